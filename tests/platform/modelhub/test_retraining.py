"""Retraining ParaQD from the annotators' labels: held-out split, candidate, promotion gate,
re-scoring after a promotion, and failures that leave the active model alone."""
from __future__ import annotations

from pathlib import Path
from unittest import mock

from django.test import SimpleTestCase, TestCase

from annotation.models import GoldLabel
from jobs.models import Job
from modelhub import retraining
from modelhub.kinds import paraqd as paraqd_kind
from modelhub.models import ModelVersion
from modelhub.kinds.paraqd.gate import GATE_METRICS
from modelhub.retraining import heldout_bucket, promotion_gate, retrain_gold_split
from modelhub.services import RetrainBusy, RetrainError, modelversion_activate, modelversion_create
from paraphrases.models import Score
from workers.retraining import retrain_job

from ..corpus.factories import make_candidate, make_gold
from .retrain_helpers import RetrainSetUpMixin


def nested(f1_hm: float, separation: float | None) -> dict:
    return {"n": 4, "macro": {"p": 0.5, "r": 0.5, "f1": 0.5, "f1_hm": 0.5},
            "weighted": {"p": f1_hm, "r": f1_hm, "f1": f1_hm, "f1_hm": f1_hm},
            "mu_pos": None, "mu_neg": None, "separation": separation}


class PromotionGateTests(SimpleTestCase):
    def test_equal_numbers_pass_the_gate(self):
        gate = promotion_gate(candidate=nested(0.8, 0.3), active=nested(0.8, 0.3), tolerance=0.0, metrics=GATE_METRICS)
        self.assertTrue(gate["promoted"])
        self.assertTrue(gate["reason"].startswith("no regression"))
        self.assertEqual([c["passed"] for c in gate["checks"]], [True, True])

    def test_a_regression_on_either_metric_blocks_the_promotion(self):
        for candidate in (nested(0.79, 0.5), nested(0.9, 0.29)):
            with self.subTest(candidate=candidate):
                gate = promotion_gate(candidate=candidate, active=nested(0.8, 0.3), tolerance=0.0, metrics=GATE_METRICS)
                self.assertFalse(gate["promoted"])
                self.assertIn("regression", gate["reason"])
                self.assertEqual(sum(c["passed"] is False for c in gate["checks"]), 1)

    def test_the_tolerance_admits_a_small_drop(self):
        self.assertFalse(promotion_gate(candidate=nested(0.78, 0.3), active=nested(0.8, 0.3), tolerance=0.01, metrics=GATE_METRICS)["promoted"])
        gate = promotion_gate(candidate=nested(0.78, 0.3), active=nested(0.8, 0.3), tolerance=0.05, metrics=GATE_METRICS)
        self.assertTrue(gate["promoted"])
        self.assertIn("minus 0.05", gate["rule"])

    def test_a_metric_undefined_on_the_split_is_not_compared(self):
        gate = promotion_gate(candidate=nested(0.8, None), active=nested(0.7, 0.3), tolerance=0.0, metrics=GATE_METRICS)
        self.assertTrue(gate["promoted"])
        self.assertEqual([c["passed"] for c in gate["checks"]], [True, None])
        self.assertFalse(promotion_gate(candidate=nested(0.6, None), active=nested(0.7, None), tolerance=0.0, metrics=GATE_METRICS)["promoted"])


class HeldOutSplitTests(RetrainSetUpMixin, TestCase):
    def test_the_split_is_deterministic_by_candidate_id_and_holds_out_about_a_fifth(self):
        self.assertEqual([heldout_bucket(i) for i in range(50)], [heldout_bucket(i) for i in range(50)])
        share = sum(heldout_bucket(i) < 20 for i in range(5000)) / 5000
        self.assertAlmostEqual(share, 0.2, delta=0.03)
        golds = [make_gold(make_candidate(self.problems[i % 4], f"Variant {i}.", generator="stead"),
                           valid=i % 2 == 0, source=GoldLabel.Source.AGREEMENT) for i in range(200)]
        golds += self.golds
        split = retrain_gold_split()
        by_hash = sorted(g.candidate_id for g in golds if heldout_bucket(g.candidate_id) < 20)
        self.assertEqual(split.heldout_ids, by_hash)  # enough of both classes: the hash alone decides
        self.assertEqual(sorted(split.heldout_ids + split.train_ids), sorted(g.candidate_id for g in golds))
        self.assertEqual(split.dataset_names, ["algebra"])
        self.assertEqual(retrain_gold_split().heldout_ids, split.heldout_ids)

    def test_at_least_one_pair_of_each_class_is_held_out(self):
        # Buckets all >= 50: the hash holds nothing out, so each class gives its lowest bucket.
        buckets = {g.candidate_id: 50 + i for i, g in enumerate(reversed(self.golds))}
        with mock.patch.object(retraining, "heldout_bucket", side_effect=buckets.__getitem__):
            split = retrain_gold_split()
        self.assertEqual(split.heldout_ids, sorted(g.candidate_id for g in self.golds[-2:]))
        self.assertEqual({p.valid for p in split.heldout}, {True, False})
        self.assertEqual(len(split.train_ids), len(self.golds) - 2)

    def test_a_single_gold_label_is_held_out(self):
        GoldLabel.objects.exclude(pk=self.golds[0].pk).delete()
        split = retrain_gold_split()
        self.assertEqual((split.heldout_ids, split.train_ids), ([self.golds[0].candidate_id], []))

    def test_synthesized_test_pairs_are_always_held_out_and_imported_gold_is_ignored(self):
        test_pair = make_candidate(self.problems[2], "Mary had 12 pens; 4 went to Tom. Pens left?", generator="test:fa")
        make_gold(test_pair, valid=True, source=GoldLabel.Source.AGREEMENT)
        imported = make_candidate(self.problems[3], "Books sold in total?", generator="import:paraqd")
        make_gold(imported, valid=False, source=GoldLabel.Source.IMPORT)
        split = retrain_gold_split()
        self.assertIn(test_pair.pk, split.heldout_ids)
        self.assertNotIn(imported.pk, split.heldout_ids + split.train_ids)
        self.assertTrue(next(p for p in split.heldout if p.candidate_id == test_pair.pk).synthesized_test)


def fake_metrics(numbers: dict):
    """A stand-in for the held-out evaluation: fixed numbers per model label ('pretrained', 'v<id>')."""

    def evaluate(*, model, pairs, threshold=0.5):
        assert pairs, "the gate is evaluated on at least one held-out pair"
        key = "candidate" if model.label not in numbers else model.label
        return nested(*numbers[key])

    return evaluate


class RetrainJobTests(RetrainSetUpMixin, TestCase):
    def make_active(self) -> ModelVersion:
        """An active version with a model directory (its evaluation is replaced in these tests)."""
        folder = self.model_dir / "previous"
        folder.mkdir(parents=True)
        return modelversion_activate(version=modelversion_create(kind="paraqd", base_model="x", artifact_path=folder))

    def test_a_real_retrain_trains_without_the_held_out_labels_and_reports_the_gate(self):
        job = self.run_retrain()
        self.assertEqual(job.status, Job.Status.SUCCEEDED, job.error)
        self.assertEqual((job.kind, job.queue, job.progress), (Job.Kind.RETRAIN, "gpu", 1.0))
        version = ModelVersion.objects.get(pk=job.result["version"])
        self.assertEqual(version.job_id, job.pk)
        self.assertEqual(version.params["preset"], "tiny")
        self.assertTrue(Path(version.artifact_path).is_dir())
        gate = version.metrics["gate"]
        self.assertEqual(gate, job.result["gate"])
        split = retrain_gold_split()
        self.assertEqual(gate["heldout"]["n"], len(split.heldout))
        # No held-out label was trained on; every other gold label was.
        held_gold = set(GoldLabel.objects.filter(candidate_id__in=split.heldout_ids).values_list("pk", flat=True))
        trained = set(version.training_data["gold_label_ids"])
        self.assertFalse(held_gold & trained)
        self.assertEqual(trained, {g.pk for g in self.golds} - held_gold)
        # No active version: the reference is the pretrained encoder, and the numbers are real.
        self.assertEqual((gate["active"]["version"], gate["active"]["model"]), (None, "pretrained"))
        self.assertEqual(gate["candidate"]["version"], version.pk)
        # The held-out scores' distributions, for the dashboard's plot: each held-out pair counted once.
        histogram = gate["candidate"]["histogram"]
        self.assertEqual(sum(histogram["valid"]) + sum(histogram["invalid"]), len(split.heldout))
        for side in ("candidate", "active"):
            self.assertEqual(gate[side]["metrics"]["n"], len(split.heldout))
            self.assertIsInstance(gate[side]["weighted_f1_hm"], float)
        self.assertIn("weighted F1", gate["rule"])
        self.assertEqual(gate["promoted"], version.status == "active")
        self.assertEqual(gate["promoted"], all(c["passed"] is not False for c in gate["checks"]))

    def test_a_worse_candidate_is_not_promoted(self):
        active = self.make_active()
        worse = fake_metrics({f"v{active.pk}": (0.8, 0.3), "candidate": (0.79, 0.3)})
        with mock.patch.object(paraqd_kind, "paraqd_heldout_metrics", side_effect=worse):
            job = self.run_retrain()
        self.assertEqual(job.status, Job.Status.SUCCEEDED, job.error)
        self.assertFalse(job.result["promoted"])
        version = ModelVersion.objects.get(pk=job.result["version"])
        self.assertEqual(version.status, "candidate")
        active.refresh_from_db()
        self.assertEqual(active.status, "active")
        gate = version.metrics["gate"]
        self.assertFalse(gate["promoted"])
        self.assertEqual(gate["reason"], "regression: weighted_f1_hm 0.7900 < 0.8000 - 0")
        self.assertEqual((gate["candidate"]["weighted_f1_hm"], gate["active"]["weighted_f1_hm"]), (0.79, 0.8))
        self.assertEqual(gate["active"]["version"], active.pk)
        self.assertEqual(job.result["rescore_jobs"], [])
        self.assertFalse(Job.objects.filter(kind=Job.Kind.SCORE).exists())

    def test_a_candidate_that_does_not_regress_is_promoted_and_pending_candidates_are_rescored(self):
        active = self.make_active()
        equal = fake_metrics({f"v{active.pk}": (0.8, 0.3), "candidate": (0.8, 0.3)})
        with mock.patch.object(paraqd_kind, "paraqd_heldout_metrics", side_effect=equal):
            job = self.run_retrain()
        self.assertEqual(job.status, Job.Status.SUCCEEDED, job.error)
        version = ModelVersion.objects.get(pk=job.result["version"])
        self.assertEqual(version.status, "active")
        self.assertTrue(version.metrics["gate"]["promoted"])
        active.refresh_from_db()
        self.assertEqual(active.status, "retired")
        # Re-scoring: one scoring job for the candidates without a gold label, run with the new version.
        (score_job,) = Job.objects.filter(kind=Job.Kind.SCORE)
        self.assertEqual(job.result["rescore_jobs"], [score_job.pk])
        self.assertEqual(score_job.status, Job.Status.SUCCEEDED, score_job.error)
        self.assertEqual(score_job.params["version"], version.pk)
        self.assertEqual(sorted(score_job.params["candidate_ids"]), sorted(c.pk for c in self.pending))
        scored = Score.objects.filter(model_version=version)
        self.assertEqual(sorted(scored.values_list("candidate_id", flat=True)), sorted(c.pk for c in self.pending))

    def test_a_redelivered_retrain_finishes_the_same_version_instead_of_training_again(self):
        active = self.make_active()
        with mock.patch.object(paraqd_kind, "paraqd_heldout_metrics",
                               side_effect=fake_metrics({f"v{active.pk}": (0.5, 0.1), "candidate": (0.9, 0.5)})):
            job = self.run_retrain()
        version = ModelVersion.objects.get(pk=job.result["version"])
        self.assertEqual(version.status, "active")
        # The worker died after the promotion, before the job was marked done: the message comes back.
        Job.objects.filter(pk=job.pk).update(status=Job.Status.QUEUED)
        with mock.patch("ml.paraqd.train.train_paraqd", side_effect=AssertionError("must not train again")), \
                self.captureOnCommitCallbacks(execute=True):
            retrain_job.apply(args=[job.pk])
        job.refresh_from_db()
        self.assertEqual(job.status, Job.Status.SUCCEEDED, job.error)
        self.assertEqual((job.result["version"], job.result["promoted"]), (version.pk, True))
        self.assertEqual(ModelVersion.objects.count(), 2)
        self.assertEqual(ModelVersion.objects.get(status="active"), version)

    def test_a_failure_during_training_leaves_the_active_model_untouched(self):
        active = self.make_active()
        with mock.patch("ml.paraqd.train.train_paraqd", side_effect=RuntimeError("out of memory")), \
                self.assertLogs("paralab.jobs", level="ERROR"):
            job = self.run_retrain()
        self.assertEqual(job.status, Job.Status.FAILED)
        self.assertIn("out of memory", job.error)
        self.assertEqual(list(ModelVersion.objects.all()), [active])
        active.refresh_from_db()
        self.assertEqual(active.status, "active")
        self.assertEqual([p.name for p in (self.model_dir / "paraqd").iterdir()], [])

    def test_a_failed_evaluation_fails_the_job_and_keeps_the_candidate_out(self):
        active = self.make_active()
        with mock.patch.object(paraqd_kind, "paraqd_heldout_metrics", side_effect=ValueError("scores must be finite numbers")):
            job = self.run_retrain()
        self.assertEqual(job.status, Job.Status.FAILED)
        self.assertIn("could not be evaluated: scores must be finite numbers", job.error)
        active.refresh_from_db()
        self.assertEqual(active.status, "active")
        candidate = ModelVersion.objects.exclude(pk=active.pk).get()
        self.assertEqual(candidate.status, "candidate")
        self.assertFalse(candidate.metrics["gate"]["promoted"])
        self.assertIn("evaluation failed", candidate.metrics["gate"]["reason"])
        self.assertFalse(Job.objects.filter(kind=Job.Kind.SCORE).exists())

    def test_an_active_model_whose_files_are_gone_is_not_replaced_blindly(self):
        active = modelversion_activate(version=modelversion_create(kind="paraqd", base_model="x", artifact_path="/gone"))
        with mock.patch.object(paraqd_kind, "paraqd_heldout_metrics", side_effect=fake_metrics({"candidate": (1.0, 1.0)})):
            job = self.run_retrain()
        self.assertEqual(job.status, Job.Status.FAILED)
        self.assertIn("no model directory", job.error)
        active.refresh_from_db()
        self.assertEqual(active.status, "active")

    def test_never_two_retrains_at_once(self):
        running = Job.objects.create(kind=Job.Kind.RETRAIN, status=Job.Status.RUNNING, params={"model": "paraqd"})
        with self.assertRaises(RetrainBusy) as caught:
            self.run_retrain()
        self.assertEqual(caught.exception.job, running)
        self.assertEqual(Job.objects.filter(kind=Job.Kind.RETRAIN).count(), 1)
        running.status = Job.Status.SUCCEEDED
        running.save()
        with mock.patch.object(paraqd_kind, "paraqd_heldout_metrics", side_effect=fake_metrics({"pretrained": (0.5, 0.0),
                                                                                        "candidate": (0.4, 0.0)})):
            self.assertEqual(self.run_retrain().status, Job.Status.SUCCEEDED)

    def test_nothing_to_retrain_on_without_gold_labels_from_annotators(self):
        GoldLabel.objects.update(source=GoldLabel.Source.IMPORT)
        with self.assertRaisesMessage(RetrainError, "annotators have not agreed"):
            self.run_retrain()
        self.assertFalse(Job.objects.exists())
