"""PAP learns from the annotators: a retrain trains a candidate on the stored corpus edited by the
gold labels, measures it and the active version on held-out problems (mean PQI and N, human-valid
rate), and the gate keeps a worse candidate out while the active version keeps serving."""
from __future__ import annotations

from unittest import mock

from django.test import TestCase

from annotation.models import GoldLabel
from jobs.models import Job
from modelhub.kinds import get_kind
from modelhub.kinds.pap import PapKind
from modelhub.models import ModelVersion
from modelhub.selectors import modelversion_active
from modelhub.services import model_retrain_start

from ..corpus.factories import make_candidate, make_gold
from ..paraphrases.test_scanning import ScanningSettingsMixin


class PapRetrainTests(ScanningSettingsMixin, TestCase):
    def setUp(self):
        super().setUp()
        override = self.settings(PARALAB_RETRAIN_PRESET="tiny", PARALAB_RETRAIN_HOLDOUT_PERCENT=30, PARALAB_GATE_MIN_HELDOUT=1,
                                 PARALAB_RETRAIN_TOLERANCE=0.0, PARALAB_RETRAIN_MIN_NEW=1)
        override.enable()
        self.addCleanup(override.disable)
        # a tiny PAP that sees its few pairs often enough to say something (not an empty string);
        # measuring it on the held-out problems (decoding) is most of each retrain's time, so it
        # decodes with one prompt and short outputs: the gate's logic is what these tests are about
        from ml.stead import config

        patch = mock.patch.dict(config.PRESETS, {"tiny": config.PRESETS["tiny"].with_overrides(
            epochs=30, learning_rate=2e-3, max_new_tokens=32, pap_prompts=("replace shuffle",))})
        patch.start()
        self.addCleanup(patch.stop)
        # annotators agreed on STEAD outputs of every training problem: one valid, one invalid each
        for problem in self.problems:
            valid = make_candidate(problem, problem.text.replace("How many", "Tell me how many"), generator="stead")
            invalid = make_candidate(problem, problem.text.split(".")[0] + ".", generator="stead")
            make_gold(valid, valid=True, source=GoldLabel.Source.AGREEMENT)
            make_gold(invalid, valid=False, source=GoldLabel.Source.AGREEMENT)

    def retrain(self, **params) -> Job:
        with self.captureOnCommitCallbacks(execute=True):
            job = model_retrain_start(kind="pap", force=True)
        if params:
            Job.objects.filter(pk=job.pk).update(params={**job.params, **params})
        job.refresh_from_db()
        return job

    def test_first_retrain_is_promoted_then_a_worse_candidate_is_kept_out(self):
        job = self.retrain()
        self.assertEqual(job.status, Job.Status.SUCCEEDED, job.error)
        first = ModelVersion.objects.get(pk=job.result["version"])
        self.assertEqual((first.kind, first.status), ("pap", "active"))
        gate = job.result["gate"]
        self.assertTrue(gate["promoted"])
        self.assertIn("no active pap version", gate["reason"])
        held = first.training_data["heldout_problems"]
        self.assertTrue(held)
        # gold-valid pairs of held-out problems were never trained on
        self.assertEqual(first.training_data["gold_valid_added"], len(self.problems) - len(held))
        for side in ("candidate", "active"):
            self.assertIn("human_valid_rate", gate[side]["metrics"])
        self.assertGreater(gate["candidate"]["metrics"]["n"], 0)
        self.assertIsNotNone(gate["candidate"]["mean_n"])

        # a second candidate that does no better than the active one by the margin the gate asks for
        from workers.retraining import retrain_job

        second = Job.objects.create(kind=Job.Kind.RETRAIN, queue="gpu",
                                    params={"model": "pap", "preset": "tiny", "tolerance": -1.0})
        retrain_job.apply(args=[second.pk])
        second.refresh_from_db()
        self.assertEqual(second.status, Job.Status.SUCCEEDED, second.error)
        self.assertFalse(second.result["promoted"])
        self.assertIn("regression", second.result["gate"]["reason"])
        self.assertEqual(modelversion_active(kind="pap"), first)  # the active PAP keeps serving
        candidate = ModelVersion.objects.get(pk=second.result["version"])
        self.assertEqual(candidate.status, "candidate")
        # both sides were measured on the same held-out problems
        gate = second.result["gate"]
        self.assertEqual(gate["active"]["version"], first.pk)
        self.assertEqual(gate["candidate"]["metrics"]["problems"], gate["active"]["metrics"]["problems"])

    def test_gate_compares_mean_pqi_and_n(self):
        job = self.retrain()
        active = ModelVersion.objects.get(pk=job.result["version"])
        kind = get_kind("pap")
        self.assertIsInstance(kind, PapKind)

        def measured(candidate, reference):
            def metrics(self, *, version, split):
                return reference if version is not None and version.pk == active.pk else candidate
            return metrics

        cases = [({"PQI": 0.40, "N": 1.0}, {"PQI": 0.50, "N": 1.0}, False),   # PQI regressed
                 ({"PQI": 0.60, "N": 0.90}, {"PQI": 0.50, "N": 1.0}, False),   # N regressed
                 ({"PQI": 0.55, "N": 1.0}, {"PQI": 0.50, "N": 1.0}, True)]
        for candidate, reference, promoted in cases:
            with self.subTest(candidate=candidate), \
                    mock.patch.object(PapKind, "heldout_metrics", measured(candidate, reference)):
                job = self.retrain()
                self.assertEqual(job.status, Job.Status.SUCCEEDED, job.error)
                self.assertEqual(job.result["promoted"], promoted, job.result["gate"]["reason"])
                current = modelversion_active(kind="pap")
                if promoted:
                    self.assertEqual(current.pk, job.result["version"])
                else:
                    self.assertEqual(current, active)
                active = current

    def test_the_gate_refuses_to_decide_on_too_few_held_out_pairs(self):
        from workers.retraining import retrain_job

        first = self.retrain()
        first.refresh_from_db()
        active = modelversion_active(kind="pap")
        self.assertEqual(active.pk, first.result["version"])  # nothing was active: the first one serves
        second = Job.objects.create(kind=Job.Kind.RETRAIN, queue="gpu",
                                    params={"model": "pap", "preset": "tiny", "tolerance": 1.0})  # passes any comparison
        with self.settings(PARALAB_GATE_MIN_HELDOUT=50):
            retrain_job.apply(args=[second.pk])
        second.refresh_from_db()
        self.assertEqual(second.status, Job.Status.SUCCEEDED, second.error)
        self.assertFalse(second.result["promoted"])
        reason = second.result["gate"]["reason"]
        self.assertTrue(reason.startswith("not enough gold to decide:"), reason)
        self.assertIn("the gate needs at least 50 with both classes", reason)
        self.assertIn(f"v{active.pk} stays active", reason)
        self.assertEqual(modelversion_active(kind="pap"), active)
