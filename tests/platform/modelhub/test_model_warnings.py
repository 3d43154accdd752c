"""Honest model feedback: a model that ranks invalid pairs above valid ones (ROC AUC < 0.5) or
does worse than its base is flagged on /models/, and when it decides, on the dashboard too."""
from __future__ import annotations

from django.test import TestCase
from django.urls import reverse

from modelhub.models import ModelVersion
from modelhub.selectors import model_warnings

from ..corpus.factories import make_dataset, make_user


class ModelWarningTests(TestCase):
    def test_below_chance_and_below_base_are_named(self):
        version = ModelVersion(kind="paraqd", base_model="tiny", metrics={
            "eval": {"aqua-test": {"auc": 0.259, "n": 40}, "svamp": {"auc": 0.81}},
            "training": {"best_validation_auc": 0.489, "base_validation_auc": 0.55},
            "gate": {"candidate": {"metrics": {"auc": 0.7}}},
        })
        warnings = model_warnings(version)
        self.assertEqual(len(warnings), 3, warnings)
        self.assertIn("below chance on the aqua-test evaluation: ROC AUC 0.259", warnings[0])
        self.assertIn("below chance on its training validation pairs: ROC AUC 0.489", warnings[1])
        self.assertIn("below its base model on validation: ROC AUC 0.489 against 0.550", warnings[2])
        self.assertEqual(model_warnings(ModelVersion(kind="paraqd", metrics={"eval": {"x": {"auc": 0.9}}})), [])
        self.assertEqual(model_warnings(None), [])

    def test_the_models_page_and_the_dashboard_flag_the_deciding_model(self):
        staff = make_user("boss", staff=True)
        make_dataset("algebra")
        ModelVersion.objects.filter(kind="judge").update(status="archived")  # the shipped judge stands aside
        ModelVersion.objects.create(kind="paraqd", base_model="tiny", status="active", artifact_path="/nowhere",
                                    metrics={"eval": {"aqua-test": {"auc": 0.259, "n": 40}}})
        self.client.force_login(staff)
        page = self.client.get(reverse("model-list")).content.decode()
        self.assertIn('data-field="warning"', page)
        dashboard = self.client.get(reverse("dashboard")).content.decode()
        self.assertIn('data-field="judge-warnings"', dashboard)
        self.assertIn("below chance on the aqua-test evaluation: ROC AUC 0.259", dashboard)
