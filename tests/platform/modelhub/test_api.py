"""``GET /api/v1/models/?kind=``: staff see versions with metrics and which one is active."""
from __future__ import annotations

from django.test import TestCase
from django.urls import reverse
from rest_framework.test import APIClient

from modelhub.services import modelversion_activate, modelversion_create

from ..corpus.factories import make_user


class ModelListApiTests(TestCase):
    @classmethod
    def setUpTestData(cls):
        cls.staff = make_user("boss", staff=True)
        cls.annotator = make_user("ann")
        make = lambda kind: modelversion_create(  # noqa: E731
            kind=kind, base_model="packaged:all-MiniLM-L6-v2", artifact_path=f"/m/{kind}", training_data={},
            params={"epochs": 1}, metrics={"eval": {"aqua": {"separation": 0.4}}},
        )
        cls.old, cls.new, cls.pap = make("paraqd"), make("paraqd"), make("pap")
        modelversion_activate(version=cls.new)

    def get(self, user, query: str = ""):
        client = APIClient()
        if user:
            client.force_login(user)
        return client.get(reverse("api-model-list") + query)

    def test_staff_see_versions_metrics_and_the_active_one(self):
        response = self.get(self.staff, "?kind=paraqd")
        self.assertEqual(response.status_code, 200)
        self.assertEqual(response.data["count"], 2)
        self.assertEqual(response.data["active"], {"paraqd": self.new.pk})
        rows = {row["id"]: row for row in response.data["results"]}
        self.assertEqual(set(rows), {self.old.pk, self.new.pk})
        self.assertTrue(rows[self.new.pk]["is_active"])
        self.assertEqual(rows[self.new.pk]["status"], "active")
        self.assertFalse(rows[self.old.pk]["is_active"])
        self.assertEqual(rows[self.old.pk]["metrics"]["eval"]["aqua"]["separation"], 0.4)

    def test_all_kinds(self):
        response = self.get(self.staff)
        self.assertEqual(response.data["count"], 3)
        self.assertEqual(response.data["active"], {"paraqd": self.new.pk, "judge": None, "stead": None, "pap": None, "llm_gate": None})

    def test_an_unknown_kind_is_a_400(self):
        response = self.get(self.staff, "?kind=bert")
        self.assertEqual(response.status_code, 400)
        self.assertIn("kind", response.data)

    def test_annotators_and_anonymous_are_refused(self):
        self.assertEqual(self.get(self.annotator).status_code, 403)
        self.assertIn(self.get(None).status_code, (401, 403))
