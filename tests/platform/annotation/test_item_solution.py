"""The labelling screen's answer box: ``GET annotation/next/`` and ``GET annotation/items/{item}/``
carry the problem's imported answer and equation (empty strings when the file had none), and
the page has the collapsed box the script fills."""
from __future__ import annotations

from django.test import TestCase
from django.urls import reverse

from corpus.models import Problem

from .helpers import annotation_dataset, annotators, client_for


class ItemSolutionTests(TestCase):
    @classmethod
    def setUpTestData(cls):
        (cls.ann,) = annotators("ann")
        cls.dataset, cls.items = annotation_dataset(n_items=2, annotators=[cls.ann], k=1)

    def test_next_and_item_carry_the_answer_and_equation(self):
        client = client_for(self.ann)
        body = client.get(reverse("api-annotation-next"), {"dataset": self.dataset.pk}).json()
        problem = Problem.objects.get(pk=body["problem"]["id"])
        self.assertEqual((body["problem"]["answer"], body["problem"]["equation"]), (problem.answer, problem.equation))
        self.assertTrue(problem.answer and problem.equation)
        Problem.objects.filter(pk=problem.pk).update(answer="", equation="")
        again = client.get(reverse("api-annotation-item", args=[body["item"]])).json()
        self.assertEqual((again["problem"]["answer"], again["problem"]["equation"]), ("", ""))
        # Nothing else about the problem leaks into the blind labelling screen.
        self.assertEqual(set(again["problem"]), {"id", "text", "spans", "answer", "equation"})

    def test_the_schema_documents_them(self):
        schema = self.client.get(reverse("api-schema"), {"format": "json"}).json()
        problem = schema["components"]["schemas"]["ItemProblem"]
        self.assertLessEqual({"answer", "equation"}, set(problem["properties"]))

    def test_the_page_has_a_collapsed_answer_box_and_a_decision_bar(self):
        self.client.force_login(self.ann)
        page = self.client.get(reverse("annotate-dataset", args=[self.dataset.pk])).content.decode()
        self.assertIn('<details class="problem-solution" id="problem-solution" hidden>', page)
        self.assertNotIn("problem-solution\" id=\"problem-solution\" open", page)
        bar = page[page.index('id="decision-bar"'):]
        for control in ('id="valid-button"', 'id="invalid-button"', 'id="solvability-5"', 'id="fluency-0"'):
            self.assertIn(control, bar)
