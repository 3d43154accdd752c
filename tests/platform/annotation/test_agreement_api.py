"""GET datasets/{id}/agreement/ on a table worked out by hand."""
from __future__ import annotations

from django.test import TestCase
from django.urls import reverse

from annotation.models import Assignment, Label

from .helpers import annotation_dataset, annotators, client_for

# valid labels:   i0  i1  i2  i3
#   ann            T   F   T   F
#   bob            T   F   F   F
#   cid            T   T   F   F
# ann–bob: p_o = 3/4; ann (2 T, 2 F), bob (1 T, 3 F) → p_e = (2·1 + 2·3)/16 = 1/2 → kappa = 1/2
# ann–cid: p_o = 2/4; cid (2 T, 2 F) → p_e = (4 + 4)/16 = 1/2 → kappa = 0
# bob–cid: p_o = 3/4; p_e = (1·2 + 3·2)/16 = 1/2 → kappa = 1/2
# Fleiss (3 raters): rows [3,0] [1,2] [1,2] [0,3] → P_i = 1, 1/3, 1/3, 1 → P̄ = 2/3;
#   p = (5/12, 7/12) → P_e = 74/144 → kappa = (96 - 74)/(144 - 74) = 22/70 = 11/35
VALID = {"ann": [True, False, True, False], "bob": [True, False, False, False], "cid": [True, True, False, False]}
# fluency, ann and bob only: ann 5 3 4 0, bob 5 3 4 1. Quadratic weights (d/5)²:
#   Σ w·O = (1/25)/4 = 0.01; Σ_(a,b) (a - b)² over the marginals = 51 + 9 + 11 + 21 = 92
#   → Σ w·E = 92/25/16 = 0.23 → kappa = 1 - 0.01/0.23 = 22/23
FLUENCY = {"ann": [5, 3, 4, 0], "bob": [5, 3, 4, 1], "cid": [None] * 4}


class AgreementApiTests(TestCase):
    @classmethod
    def setUpTestData(cls):
        users = annotators("ann", "bob", "cid")
        (cls.boss,) = annotators("boss", staff=True)
        cls.dataset, items = annotation_dataset(n_items=5, annotators=users, k=3)
        for user in users:
            for item, valid, fluency in zip(items, VALID[user.username], FLUENCY[user.username]):
                Assignment.objects.create(item=item, annotator=user, status=Assignment.Status.DONE)
                Label.objects.create(item=item, annotator=user, valid=valid, fluency=fluency)
        # item 4: one label only (counts as labelled, not in any pair)
        Label.objects.create(item=items[4], annotator=users[0], valid=True)

    def test_numbers(self):
        response = client_for(self.boss).get(reverse("api-dataset-agreement", kwargs={"dataset_id": self.dataset.pk}))
        self.assertEqual(response.status_code, 200)
        body = response.json()
        self.assertEqual(body["annotators"], ["ann", "bob", "cid"])
        self.assertEqual((body["n_items"], body["n_labelled_items"], body["n_labels"]), (4, 5, 13))
        pairs = {(p["a"], p["b"]): p for p in body["binary"]["pairs"]}
        self.assertEqual(set(pairs), {("ann", "bob"), ("ann", "cid"), ("bob", "cid")})
        self.assertAlmostEqual(pairs["ann", "bob"]["kappa"], 0.5)
        self.assertAlmostEqual(pairs["ann", "cid"]["kappa"], 0.0)
        self.assertAlmostEqual(pairs["bob", "cid"]["kappa"], 0.5)
        self.assertEqual(pairs["ann", "bob"]["n"], 4)
        self.assertAlmostEqual(pairs["ann", "bob"]["agreement"], 0.75)
        fleiss = body["binary"]["fleiss"]
        self.assertEqual((fleiss["n_items"], fleiss["raters"]), (4, 3))
        self.assertAlmostEqual(fleiss["kappa"], 11 / 35)
        fluency = body["ratings"]["fluency"]
        self.assertEqual(fluency["method"], "quadratic-weighted kappa")
        self.assertEqual(len(fluency["pairs"]), 1)
        self.assertEqual((fluency["pairs"][0]["a"], fluency["pairs"][0]["b"], fluency["pairs"][0]["n"]), ("ann", "bob", 4))
        self.assertAlmostEqual(fluency["pairs"][0]["kappa"], 22 / 23)
        self.assertEqual(body["ratings"]["solvability"]["pairs"], [])

    def test_an_unlabelled_dataset_has_no_agreement_yet(self):
        empty, _ = annotation_dataset("empty", n_items=2)
        body = client_for(self.boss).get(reverse("api-dataset-agreement", kwargs={"dataset_id": empty.pk})).json()
        self.assertEqual((body["n_items"], body["annotators"], body["binary"]["pairs"], body["binary"]["fleiss"]),
                         (0, [], [], None))

    def test_staff_progress_per_annotator(self):
        response = client_for(self.boss).get(reverse("api-annotation-progress", kwargs={"dataset_id": self.dataset.pk}))
        self.assertEqual(response.status_code, 200)
        # 5 items × k 3 = 15 slots over 3 members → a share of 5 each.
        self.assertEqual(response.json(), [
            {"annotator": "ann", "done": 5, "total": 5},
            {"annotator": "bob", "done": 4, "total": 5},
            {"annotator": "cid", "done": 4, "total": 5},
        ])
