"""The demo's neural step: tiny STEAD and PAP versions trained on the demo problems in minutes on a
CPU (SmolLM2 base), then both generate over the demo problems beside the rule-based generators."""
from __future__ import annotations

import pytest
from django.test import TestCase, override_settings

from modelhub.selectors import modelversion_active
from paralab.demo import demo_prepare
from paraphrases.models import Candidate

from ..paraphrases.helpers import ParaQDSettingsMixin


@pytest.mark.slow
class DemoNeuralStepTests(ParaQDSettingsMixin, TestCase):
    def test_demo_trains_stead_and_pap_and_shows_their_candidates(self):
        lines = []
        with override_settings(PARALAB_DEMO_NEURAL=True, PARALAB_DEMO_NEURAL_SECONDS=40, PARALAB_DEMO_NEURAL_PROBLEMS=3,
                               PARALAB_SEQ2SEQ_BASE="smollm2", PARALAB_FLUENCY_LM="kneser-ney",
                               PARALAB_SCANNING_PRESET="tiny", PARALAB_NEURAL_GATE_PROBLEMS=1):
            demo_prepare(log=lines.append)
            stead, pap = modelversion_active(kind="stead"), modelversion_active(kind="pap")
            self.assertIsNotNone(stead, lines)
            self.assertEqual(stead.params["architecture"].split("-")[0], "smollm2")
            neural = [line for line in lines if line.startswith("neural generators")]
            self.assertEqual(len(neural), 1)
            self.assertIn(f"stead v{stead.pk} trained", neural[0])
            stored = Candidate.objects.filter(problem__dataset__name="demo", generator="stead")
            self.assertTrue(stored.exists(), neural[0])
            for candidate in stored.filter(metadata__generation=True):  # handed-out variants keep the numbers
                self.assertEqual(candidate.model_version, stead)
            if pap is not None:
                self.assertIn(f"pap v{pap.pk} trained", neural[0])
            else:
                self.assertIn("pap not trained", neural[0])  # a tiny STEAD whose outputs all failed QF-PCF
            # a second run changes nothing
            before = Candidate.objects.count()
            lines.clear()
            demo_prepare(log=lines.append)
            self.assertEqual(Candidate.objects.count(), before)
            self.assertEqual(modelversion_active(kind="stead"), stead)
