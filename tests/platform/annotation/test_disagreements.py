"""Human–human and human–model disagreements, and the count behind the retraining trigger."""
from __future__ import annotations

from datetime import timedelta

from django.test import TestCase
from django.urls import reverse
from django.utils import timezone

from annotation import selectors, services
from annotation.models import GoldLabel, Label
from modelhub.models import ModelVersion

from ..corpus.factories import make_gold
from .helpers import active_paraqd, annotation_dataset, annotators, assign, client_for, score


class DisagreementTests(TestCase):
    @classmethod
    def setUpTestData(cls):
        cls.ann, cls.bob = annotators("ann", "bob")
        (cls.boss,) = annotators("boss", staff=True)
        cls.dataset, cls.items = annotation_dataset(n_items=4, annotators=[cls.ann, cls.bob], k=2)
        cls.other, cls.other_items = annotation_dataset("other", n_items=1, annotators=[cls.ann], k=2)
        # item 0 split (ann valid, bob invalid), item 1 agreed valid, item 2 agreed invalid
        for item, (a, b) in zip(cls.items[:3], [(True, False), (True, True), (False, False)]):
            assign(cls.ann, item)
            services.label_submit(user=cls.ann, item=item, valid=a)
            assign(cls.bob, item)
            services.label_submit(user=cls.bob, item=item, valid=b)

    def get(self, kind, dataset=None, user=None):
        return client_for(user or self.boss).get(
            reverse("api-disagreement-list"), {"dataset": (dataset or self.dataset).pk, "kind": kind}
        )

    def test_human_human_lists_split_items_with_every_label(self):
        response = self.get("human_human")
        self.assertEqual(response.status_code, 200)
        rows = response.json()["results"]
        self.assertEqual([r["item"] for r in rows], [self.items[0].pk])
        row = rows[0]
        self.assertEqual(row["labels"], [{"annotator": "ann", "valid": True}, {"annotator": "bob", "valid": False}])
        self.assertIsNone(row["gold"])
        self.assertEqual(row["paraphrase"], self.items[0].candidate.text)
        self.assertEqual(row["problem"], self.items[0].candidate.problem.text)
        self.assertIsNone(row["model_score"])
        services.item_adjudicate(user=self.boss, item=self.items[0], valid=False)
        row = self.get("human_human").json()["results"][0]
        self.assertEqual(row["gold"]["decided_by"], "boss")
        self.assertEqual(row["gold"]["source"], "adjudication")

    def test_human_model_compares_gold_with_the_active_version_at_its_threshold(self):
        version = active_paraqd()
        old = ModelVersion.objects.create(kind="paraqd", base_model="tiny",
                                          status=ModelVersion.Status.RETIRED)
        score(self.items[1], version, 0.2)    # gold valid, model says invalid → listed
        score(self.items[2], version, 0.9)    # gold invalid, model says valid → listed
        score(self.items[0], version, 0.1)    # no gold yet (split): not a human–model case
        gold_imported = make_gold(self.items[3].candidate, valid=False)
        score(self.items[3], version, 0.5)    # valid means > threshold: 0.5 is invalid, agrees with gold
        score(self.items[1], old, 0.99)       # a retired version's scores do not count
        rows = self.get("human_model").json()["results"]
        self.assertEqual([r["item"] for r in rows], [self.items[1].pk, self.items[2].pk])
        self.assertEqual([(r["model_score"], r["model_valid"], r["gold"]["valid"]) for r in rows],
                         [(0.2, False, True), (0.9, True, False)])
        self.assertEqual(selectors.human_model_disagreement_count(), 2)
        GoldLabel.objects.filter(pk=gold_imported.pk).update(valid=True)
        self.assertEqual(selectors.human_model_disagreement_count(), 3)
        later = timezone.now() + timedelta(seconds=5)
        self.assertEqual(selectors.human_model_disagreement_count(since=later), 0)
        # Other datasets do not leak into this one's list.
        self.assertEqual(self.get("human_model", dataset=self.other).json()["results"], [])

    def test_without_an_active_model_there_is_no_human_model_disagreement(self):
        score(self.items[1], None, -0.9)
        self.assertEqual(self.get("human_model").json()["results"], [])
        self.assertEqual(selectors.human_model_disagreement_count(), 0)

    def test_bad_queries(self):
        self.assertEqual(self.get("both").status_code, 400)
        client = client_for(self.boss)
        self.assertEqual(client.get(reverse("api-disagreement-list"), {"kind": "human_human"}).status_code, 400)
        self.assertEqual(client.get(reverse("api-disagreement-list"), {"dataset": 999999}).status_code, 404)
        self.assertEqual(self.get("human_human", user=self.ann).status_code, 403)

    def test_labels_stay_blind_to_annotators(self):
        # ann's own list never carries bob's label, nor the model's opinion.
        response = client_for(self.ann).get(reverse("api-annotation-labels"), {"dataset": self.dataset.pk})
        body = response.json()
        self.assertEqual(len(body["results"]), Label.objects.filter(annotator=self.ann, item__dataset=self.dataset).count())
        self.assertNotIn("bob", str(body))
