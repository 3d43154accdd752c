"""Gold labels: agreement kept in sync with the labels, adjudication by staff, imports untouched."""
from __future__ import annotations

from django.test import TestCase
from django.urls import reverse

from annotation import services
from annotation.models import GoldLabel

from ..corpus.factories import make_gold
from .helpers import annotation_dataset, annotators, assign, client_for


class GoldTests(TestCase):
    @classmethod
    def setUpTestData(cls):
        cls.ann, cls.bob = annotators("ann", "bob")
        (cls.boss,) = annotators("boss", staff=True)
        cls.dataset, cls.items = annotation_dataset(n_items=2, annotators=[cls.ann, cls.bob], k=2)
        cls.item = cls.items[0]

    def label(self, user, valid, item=None):
        item = item or self.item
        assign(user, item)
        return services.label_submit(user=user, item=item, valid=valid)

    def gold(self):
        return GoldLabel.objects.filter(candidate=self.item.candidate).first()

    def test_agreement_of_all_k_labels_makes_the_gold(self):
        self.label(self.ann, True)
        self.assertIsNone(self.gold())  # one label of two: nothing agreed yet
        self.label(self.bob, True)
        gold = self.gold()
        self.assertEqual((gold.valid, gold.source, gold.decided_by), (True, GoldLabel.Source.AGREEMENT, None))

    def test_agreed_gold_follows_edits_and_undo(self):
        self.label(self.ann, False)
        self.label(self.bob, False)
        self.assertFalse(self.gold().valid)
        services.label_submit(user=self.bob, item=self.item, valid=True)  # now split
        self.assertIsNone(self.gold())
        services.label_submit(user=self.bob, item=self.item, valid=False)  # agreed again
        self.assertFalse(self.gold().valid)
        services.label_undo(user=self.bob, dataset=self.dataset)
        self.assertIsNone(self.gold())

    def test_a_split_waits_for_adjudication_which_no_later_label_overrides(self):
        self.label(self.ann, True)
        self.label(self.bob, False)
        self.assertIsNone(self.gold())
        response = client_for(self.boss).post(
            reverse("api-annotation-adjudicate", kwargs={"item_id": self.item.pk}),
            {"valid": False, "note": "the unit changed"}, format="json",
        )
        self.assertEqual(response.status_code, 200, response.data)
        body = response.json()["gold"]
        self.assertEqual((body["valid"], body["source"], body["decided_by"], body["note"]),
                         (False, "adjudication", "boss", "the unit changed"))
        services.label_submit(user=self.ann, item=self.item, valid=False)
        services.label_submit(user=self.bob, item=self.item, valid=True)
        gold = self.gold()
        self.assertEqual((gold.valid, gold.source, gold.decided_by), (False, GoldLabel.Source.ADJUDICATION, self.boss))

    def test_adjudication_needs_a_valid_value_and_staff(self):
        url = reverse("api-annotation-adjudicate", kwargs={"item_id": self.item.pk})
        self.assertEqual(client_for(self.boss).post(url, {"note": "x"}, format="json").status_code, 400)
        self.assertEqual(client_for(self.ann).post(url, {"valid": True}, format="json").status_code, 403)
        self.assertEqual(client_for(self.boss).post(reverse("api-annotation-adjudicate", kwargs={"item_id": 999999}),
                                                    {"valid": True}, format="json").status_code, 404)
        self.assertIsNone(self.gold())

    def test_imported_gold_is_left_alone(self):
        make_gold(self.item.candidate, valid=False, source=GoldLabel.Source.IMPORT)
        self.label(self.ann, True)
        self.label(self.bob, True)
        gold = self.gold()
        self.assertEqual((gold.valid, gold.source), (False, GoldLabel.Source.IMPORT))

    def test_raising_k_withdraws_an_agreement_of_too_few(self):
        from corpus.services import dataset_update

        self.label(self.ann, True)
        self.label(self.bob, True)
        self.assertIsNotNone(self.gold())
        dataset_update(dataset=self.dataset, labels_per_item=3)
        self.assertIsNone(self.gold())
        dataset_update(dataset=self.dataset, labels_per_item=2)
        self.assertTrue(self.gold().valid)
