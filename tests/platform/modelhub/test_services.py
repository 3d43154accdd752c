"""Model versions: registration, activation (one active per kind), metrics, selectors."""
from __future__ import annotations

from django.db import IntegrityError, transaction
from django.test import TestCase

from modelhub.models import ModelVersion
from modelhub.selectors import modelversion_active, modelversion_get, modelversion_list
from modelhub.services import modelversion_activate, modelversion_create, modelversion_set_metrics


def _version(kind: str = "paraqd", **kwargs) -> ModelVersion:
    kwargs.setdefault("base_model", "packaged:all-MiniLM-L6-v2")
    return modelversion_create(kind=kind, artifact_path=f"/models/{kind}", training_data={"hash": "h"},
                               params={"epochs": 1}, metrics={"training": {"seconds": 1.0}}, **kwargs)


class ModelVersionServiceTests(TestCase):
    def test_create_makes_a_candidate(self):
        version = _version()
        self.assertEqual((version.kind, version.status), ("paraqd", "candidate"))
        self.assertEqual(version.training_data, {"hash": "h"})
        self.assertIsNone(version.activated_at)
        with self.assertRaisesMessage(ValueError, "unknown model kind 'bert'"):
            modelversion_create(kind="bert", base_model="x", artifact_path="", training_data={}, params={}, metrics={})

    def test_activation_keeps_exactly_one_active_and_retires_the_old(self):
        first, second, third = _version(), _version(), _version()
        other_kind = modelversion_activate(version=_version("pap"))
        self.assertIsNone(modelversion_active(kind="paraqd"))

        modelversion_activate(version=first)
        self.assertEqual(modelversion_active(kind="paraqd"), first)
        modelversion_activate(version=second)
        first.refresh_from_db()
        second.refresh_from_db()
        self.assertEqual((first.status, second.status), ("retired", "active"))
        self.assertIsNotNone(second.activated_at)
        self.assertEqual(ModelVersion.objects.filter(kind="paraqd", status="active").count(), 1)

        # Activating the active one again changes nothing; a retired one can come back.
        stamp = second.activated_at
        self.assertEqual(modelversion_activate(version=second).activated_at, stamp)
        modelversion_activate(version=first)
        self.assertEqual(modelversion_active(kind="paraqd"), first)
        second.refresh_from_db()
        third.refresh_from_db()
        self.assertEqual((second.status, third.status), ("retired", "candidate"))
        # Other kinds are untouched.
        self.assertEqual(modelversion_active(kind="pap"), other_kind)

    def test_the_database_refuses_two_active_versions_of_a_kind(self):
        modelversion_activate(version=_version())
        with self.assertRaises(IntegrityError), transaction.atomic():
            ModelVersion.objects.create(kind="paraqd", base_model="x", status="active")

    def test_set_metrics_merges_at_a_path(self):
        version = _version()
        modelversion_set_metrics(version=version, metrics={"aqua": {"n": 4}}, path=("eval",))
        modelversion_set_metrics(version=version, metrics={"gsm8k": {"n": 2}}, path=("eval",))
        modelversion_set_metrics(version=version, metrics={"note": "ok"})
        version.refresh_from_db()
        self.assertEqual(version.metrics, {
            "training": {"seconds": 1.0}, "eval": {"aqua": {"n": 4}, "gsm8k": {"n": 2}}, "note": "ok",
        })

    def test_selectors(self):
        a, b, c = _version(), _version("pap"), _version()
        self.assertEqual(list(modelversion_list()), [c, b, a])
        self.assertEqual(list(modelversion_list(kind="paraqd")), [c, a])
        self.assertEqual(modelversion_get(version_id=b.pk), b)
        self.assertIsNone(modelversion_get(version_id=b.pk, kind="paraqd"))
        self.assertIsNone(modelversion_get(version_id=999999))
