"""The numbers/units/names check comes from the server (ml/checks.py) on every endpoint and page
that shows a pair: ``GET annotation/items/{item}/``, ``GET datasets/{id}/candidates/``,
``POST paraphrase/`` and the adjudication page."""
from __future__ import annotations

from django.test import TestCase
from django.urls import reverse
from rest_framework.test import APIClient

from annotation import services

from .corpus.factories import make_candidate, make_dataset, make_item, make_problem, make_user
from .paraphrases.helpers import ParaQDSettingsMixin

TRAIN = "A train covers 300 km in 5 hours. What is its speed?"


class PairChecksApiTests(ParaQDSettingsMixin, TestCase):
    def setUp(self):
        super().setUp()
        self.staff = make_user("boss", staff=True)
        self.ana, self.ben = make_user("ana"), make_user("ben")
        self.dataset = make_dataset("trains", annotators=[self.ana, self.ben])
        problem = make_problem(self.dataset, TRAIN)
        self.miles = make_candidate(problem, "A train covers 300 miles in 5 hours. What is its speed?")
        self.same = make_candidate(problem, "In 5 hours a train covers 300 kilometres. What is its speed?",
                                   generator="reorder")
        self.item = make_item(self.dataset, self.miles)
        self.client_ = APIClient()

    def test_the_item_endpoint_says_the_unit_changed(self):
        self.assertEqual(services.annotation_next(user=self.ana, dataset=self.dataset), self.item)
        self.client_.force_login(self.ana)
        data = self.client_.get(reverse("api-annotation-item", args=[self.item.pk])).data
        self.assertEqual(set(data["checks"]), {"numbers", "units", "names"})
        self.assertTrue(data["checks"]["numbers"]["ok"])
        units = data["checks"]["units"]
        self.assertFalse(units["ok"])
        self.assertEqual((units["only_original"], units["only_paraphrase"]), (["kilometre"], ["mile"]))
        self.assertEqual((units["original"], units["paraphrase"]), (["km", "hours"], ["miles", "hours"]))

    def test_the_candidates_list_checks_every_row(self):
        self.client_.force_login(self.staff)
        rows = self.client_.get(reverse("api-dataset-candidates", args=[self.dataset.pk])).data["results"]
        by_text = {r["text"]: r["checks"] for r in rows}
        self.assertFalse(by_text[self.miles.text]["units"]["ok"])
        self.assertTrue(by_text[self.same.text]["units"]["ok"])  # "km" and "kilometres" are one unit
        self.assertTrue(by_text[self.same.text]["numbers"]["ok"])

    def test_paraphrase_variants_carry_their_checks(self):
        self.client_.force_login(self.staff)
        response = self.client_.post(reverse("api-paraphrase"), {"text": TRAIN, "k": 2, "generators": ["reorder"]},
                                     format="json")
        self.assertEqual(response.status_code, 200, response.data)
        self.assertTrue(response.data["variants"], response.data)
        for variant in response.data["variants"]:
            self.assertTrue(variant["checks"]["numbers"]["ok"] and variant["checks"]["units"]["ok"], variant)
            self.assertTrue(variant["checks"]["units"]["message"].startswith("\u2713 Units"))

    def test_the_adjudication_page_renders_the_servers_verdict(self):
        for user, valid in ((self.ana, True), (self.ben, False)):
            self.assertEqual(services.annotation_next(user=user, dataset=self.dataset), self.item)
            services.label_submit(user=user, item=self.item, valid=valid)
        self.client.force_login(self.staff)
        page = self.client.get(f"/adjudicate/{self.dataset.pk}/").content.decode()
        self.assertIn('data-check="units"', page)
        self.assertIn("kilometre only in the original; mile only in the paraphrase", page)
