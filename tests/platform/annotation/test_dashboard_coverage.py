"""The dashboard counts the items below k (and the skipped ones among them), and each of its
"none" sentences states the numbers it rests on."""
from __future__ import annotations

import re

from django.test import TestCase
from django.urls import reverse

from annotation import services
from annotation.coverage import dataset_coverage, judged_gold
from annotation.models import Assignment, GoldLabel
from modelhub.models import ModelVersion
from paraphrases.models import Score

from ..corpus.factories import make_label, make_user
from .helpers import annotation_dataset, annotators


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", html)).strip()


class CoverageTests(TestCase):
    @classmethod
    def setUpTestData(cls):
        cls.ann, cls.bob = annotators("ann", "bob")
        cls.boss = make_user("boss", staff=True)
        cls.dataset, cls.items = annotation_dataset("cover", n_items=5, annotators=[cls.ann, cls.bob], k=2)

    def section(self, element_id: str) -> str:
        self.client.force_login(self.boss)
        page = self.client.get(reverse("dashboard"), {"dataset": self.dataset.pk}).content.decode()
        start = page.index(f'id="{element_id}"')
        return _text(page[start:page.index("</p>", start)].split(">", 1)[1])

    def test_items_below_k_and_the_skipped_among_them(self):
        full, half, skipped_half, skipped_fresh, _fresh = self.items
        for item in (full, half, skipped_half):
            make_label(item, self.ann)
        make_label(full, self.bob)
        for item in (skipped_half, skipped_fresh):
            Assignment.objects.create(item=item, annotator=self.bob, status=Assignment.Status.SKIPPED)
        self.assertEqual(dataset_coverage(dataset=self.dataset),
                         {"items": 5, "below_k": 4, "unstarted": 2, "started": 2, "skipped": 2})
        self.assertEqual(self.section("coverage"),
                         "4 of 5 pairs have fewer labels than required: 2 with none, 2 started; 2 of the 4 "
                         "skipped by someone (a skipped pair goes to the others, and back to whoever skipped it "
                         "once they have nothing else).")
        # A skip on an item that then got its k labels is not counted as "below k".
        make_label(skipped_half, make_user("cid"))
        self.assertEqual(dataset_coverage(dataset=self.dataset)["skipped"], 1)

    def test_a_skip_through_the_service_shows_up_and_everything_labelled_says_so(self):
        item = services.annotation_next(user=self.ann, dataset=self.dataset)
        services.item_skip(user=self.ann, item=item)
        self.assertEqual(dataset_coverage(dataset=self.dataset)["skipped"], 1)
        for item in self.items:
            make_label(item, self.ann)
            make_label(item, self.bob)
        self.assertEqual(self.section("coverage"), "All 5 pairs have the labels they need.")

    def test_human_human_none_says_how_many_pairs_it_compared(self):
        self.assertEqual(self.section("human-human-none"),
                         "None yet: no pair has two or more labels, so there is nothing to compare.")
        make_label(self.items[0], self.ann, valid=True)
        make_label(self.items[0], self.bob, valid=True)
        self.assertEqual(self.section("human-human-none"), "None: each of the 1 pair with two or more labels has one verdict.")


class GoldScoredTests(TestCase):
    @classmethod
    def setUpTestData(cls):
        cls.ann, cls.bob = annotators("ann", "bob")
        cls.boss = make_user("boss", staff=True)
        cls.dataset, cls.items = annotation_dataset("gold", n_items=3, annotators=[cls.ann, cls.bob], k=2)
        for item in cls.items[:2]:
            GoldLabel.objects.create(candidate=item.candidate, valid=True, source=GoldLabel.Source.AGREEMENT)

    def none_sentence(self) -> str:
        self.client.force_login(self.boss)
        page = self.client.get(reverse("dashboard"), {"dataset": self.dataset.pk}).content.decode()
        start = page.index('id="human-model-none"')
        return _text(page[start:page.index("</p>", start)].split(">", 1)[1])

    def test_without_a_judge_nothing_is_claimed(self):
        self.assertEqual(judged_gold(dataset=self.dataset), {"gold": 2, "scored": 0})
        self.assertEqual(self.none_sentence(),
                         "No deciding judge yet (no active ParaQD or numeracy-aware judge version): nothing to compare.")

    def test_a_judge_that_scored_no_gold_label_says_0_scored(self):
        ModelVersion.objects.create(kind="paraqd", base_model="tiny", status="active")
        self.assertEqual(self.none_sentence(),
                         "0 gold labels scored: the judge has not scored any gold-labelled pair of gold yet, "
                         "so there is nothing to compare.")
        self.assertNotIn("agrees", self.none_sentence())

    def test_agreement_is_claimed_over_the_gold_labels_scored(self):
        version = ModelVersion.objects.create(kind="paraqd", base_model="tiny", status="active")
        for item in self.items:  # the third has no gold label: not counted
            Score.objects.create(candidate=item.candidate, scorer_version=f"paraqd:v{version.pk}",
                                 model_version=version, paraqd=0.9)
        self.assertEqual(judged_gold(dataset=self.dataset), {"gold": 2, "scored": 2})
        self.assertEqual(self.none_sentence(), "None: the judge agrees with each of the 2 gold labels it has scored here.")
        self.client.force_login(self.boss)
        page = self.client.get(reverse("dashboard"), {"dataset": self.dataset.pk}).content.decode()
        self.assertIn(f"Gold vs the deciding judge (paraqd v{version.pk})", page)
        self.assertIn('It has scored <span data-field="scored">2</span> of the 2 gold labels of gold.', page)
        # A score below the threshold on a valid gold label is a disagreement: no "none" sentence then.
        Score.objects.filter(candidate=self.items[0].candidate).update(paraqd=-0.5)
        page = self.client.get(reverse("dashboard"), {"dataset": self.dataset.pk}).content.decode()
        self.assertNotIn('id="human-model-none"', page)
        self.assertIn("-0.500", page)
