"""ParaQD as jobs: training (success and failure), scoring (idempotent), evaluation, synthesis."""
from __future__ import annotations

import os
import time
from datetime import timedelta
from pathlib import Path

from django.conf import settings
from django.test import TestCase, override_settings
from django.utils import timezone

from annotation.models import AnnotationItem
from jobs.models import Job
from modelhub.models import ModelVersion
from modelhub.services import modelversion_activate, modelversion_create
from paraphrases.models import Candidate, Score
from modelhub.kinds.paraqd import (
    PRETRAINED_SCORER,
    ParaQDError,
    paraqd_evaluate,
    paraqd_evaluate_start,
    paraqd_score_candidates,
    paraqd_score_start,
    paraqd_synthesize_start,
    paraqd_synthesize_tests,
    paraqd_train,
    paraqd_train_start,
)
from workers.paraqd import score_job, synthesize_job, train_job

from ..corpus.factories import make_candidate
from .helpers import PROBLEMS, ParaQDSettingsMixin, make_algebra, make_gold_pairs

CONTRACT_KEYS = {"n", "macro", "weighted", "mu_pos", "mu_neg", "separation"}


class JobTestCase(ParaQDSettingsMixin, TestCase):
    def run_started(self, start, **kwargs) -> Job:
        """Call a ``*_start`` service; its on-commit send runs the task eagerly."""
        with self.captureOnCommitCallbacks(execute=True):
            job = start(**kwargs)
            self.assertEqual(Job.objects.get(pk=job.pk).status, Job.Status.QUEUED)
        job.refresh_from_db()
        return job


class TrainJobTests(JobTestCase):
    def setUp(self):
        super().setUp()
        self.dataset, self.problems = make_algebra()

    def train(self, **kwargs) -> Job:
        kwargs.setdefault("dataset_names", ["algebra"])
        return self.run_started(paraqd_train_start, **kwargs)

    def test_tiny_training_creates_a_candidate_version_with_metrics(self):
        job = self.train()
        self.assertEqual(job.status, Job.Status.SUCCEEDED, job.error)
        self.assertEqual((job.queue, job.kind, job.progress), ("gpu", Job.Kind.TRAIN, 1.0))
        version = ModelVersion.objects.get(pk=job.result["version"])
        self.assertEqual((version.kind, version.status, version.job_id), ("paraqd", "candidate", job.pk))
        path = Path(version.artifact_path)
        self.assertEqual(path.parent, self.model_dir / "paraqd")
        self.assertTrue(path.name.startswith(f"v{version.pk}-"))
        self.assertTrue((path / "model.safetensors").exists() and (path / "paraqd.json").exists())
        self.assertEqual(self.model_folders(), [path.name])  # no partial folder left behind
        training = version.metrics["training"]
        self.assertEqual(training["device"], "cpu")
        self.assertGreater(training["seconds"], 0)
        self.assertGreater(training["steps"], 0)
        self.assertEqual(version.params["preset"], "tiny")
        self.assertEqual(version.params["epochs"], 1)
        self.assertEqual(version.base_model, self.encoder)
        self.assertEqual(version.training_data["triplets"], job.result["training_data"]["triplets"])
        self.assertEqual(version.training_data["problems_used"], 4)
        self.assertEqual(job.result["path"], version.artifact_path)
        self.assertIn("triplets from 4 problems", job.log)
        self.assertIsNone(ModelVersion.objects.filter(status="active").first())

    def test_the_torch_threads_setting_reaches_the_training_config(self):
        with override_settings(PARALAB_TORCH_THREADS=None):
            default = self.train()
        self.assertIsNone(ModelVersion.objects.get(pk=default.result["version"]).params["num_threads"])
        with override_settings(PARALAB_TORCH_THREADS=1):
            job = self.train()
        self.assertEqual(job.status, Job.Status.SUCCEEDED, job.error)
        self.assertEqual(ModelVersion.objects.get(pk=job.result["version"]).params["num_threads"], 1)

    def test_config_overrides_pick_the_loss_and_the_budget_covers_triplet_building(self):
        version = paraqd_train(dataset_names=["algebra"], operators=["f2", "f6"], max_problems=2,
                               config_overrides={"distance": "euclidean", "margin": None}, time_budget_s=600)
        # Euclidean without a margin takes its own default (the authors' script: 5).
        self.assertEqual((version.params["distance"], version.params["margin"]), ("euclidean", 5.0))
        self.assertGreater(version.training_data["seconds"], 0)
        # Training got what building the triplets left of the budget.
        self.assertLess(version.params["time_budget_s"], 600)
        with self.assertRaisesMessage(ParaQDError, "margin must be > 0"):
            paraqd_train(dataset_names=["algebra"], operators=["f2", "f6"], config_overrides={"margin": -1.0})

    def test_all_pairing_reaches_the_data_and_lifts_the_per_question_cap(self):
        cycled = paraqd_train(dataset_names=["algebra"], operators=["f2", "f3", "f6", "f8"], max_problems=2,
                              preset="paper", epochs=1)
        paired = paraqd_train(dataset_names=["algebra"], operators=["f2", "f3", "f6", "f8"], max_problems=2,
                              preset="paper", epochs=1, config_overrides={"triplet_pairing": "all"})
        self.assertEqual(cycled.params["max_triplets_per_anchor"], 6)  # the paper preset's cap
        self.assertIsNone(paired.params["max_triplets_per_anchor"])
        self.assertEqual(paired.training_data["pairing"], "all")
        self.assertGreater(paired.training_data["triplets"], cycled.training_data["triplets"])
        # Every triplet was trained on: nothing capped away.
        self.assertEqual(paired.metrics["training"]["triplets_seen"], paired.training_data["triplets"])
        capped = paraqd_train(dataset_names=["algebra"], operators=["f2", "f3", "f6", "f8"], max_problems=2,
                              preset="paper", epochs=1,
                              config_overrides={"triplet_pairing": "all", "max_triplets_per_anchor": 2})
        self.assertEqual(capped.metrics["training"]["triplets_seen"], 4)
        with self.assertRaisesMessage(ParaQDError, "triplet_pairing must be one of"):
            paraqd_train(dataset_names=["algebra"], config_overrides={"triplet_pairing": "every"})

    def test_operator_draws_reach_the_training_data(self):
        version = paraqd_train(dataset_names=["algebra"], operators=["f2", "f8"], max_problems=2,
                               config_overrides={"operator_draws": 3})
        self.assertEqual(version.params["operator_draws"], 3)
        self.assertEqual(version.training_data["operator_draws"], 3)
        self.assertGreater(version.training_data["extra_draw_outputs_per_operator"]["f8"], 0)

    def test_activate_retires_the_previous_version(self):
        old = modelversion_activate(version=modelversion_create(kind="paraqd", base_model="x", artifact_path="/nope"))
        job = self.train(activate=True, epochs=1, max_problems=2)
        self.assertEqual(job.status, Job.Status.SUCCEEDED, job.error)
        old.refresh_from_db()
        self.assertEqual(old.status, "retired")
        new = ModelVersion.objects.get(pk=job.result["version"])
        self.assertEqual(new.status, "active")
        self.assertEqual(new.training_data["problems_used"], 2)
        self.assertEqual(ModelVersion.objects.filter(kind="paraqd", status="active").count(), 1)

    def test_a_missing_encoder_fails_the_job_and_leaves_the_active_model_alone(self):
        active = modelversion_activate(version=modelversion_create(kind="paraqd", base_model="x", artifact_path="/a"))
        missing = str(self.model_dir / "no-such-encoder")
        job_count = ModelVersion.objects.count()
        with self.settings(PARALAB_SENTENCE_ENCODER=missing):
            # The start service refuses up front when it is asked for that encoder explicitly...
            with self.assertRaisesMessage(ParaQDError, "encoder directory not found"):
                paraqd_train_start(dataset_names=["algebra"], encoder=missing)
            # ...and a job whose setting points nowhere fails with the same clear message.
            job = Job.objects.create(kind=Job.Kind.TRAIN, queue="gpu", params={"datasets": ["algebra"]})
            train_job.apply(args=[job.pk])
        job.refresh_from_db()
        self.assertEqual(job.status, Job.Status.FAILED)
        self.assertIn("encoder directory not found", job.error)
        self.assertIn("no-such-encoder", job.error)
        self.assertEqual(ModelVersion.objects.count(), job_count)
        active.refresh_from_db()
        self.assertEqual(active.status, "active")
        self.assertEqual(self.model_folders(), [])

    def test_a_broken_encoder_fails_the_job_and_leaves_no_version(self):
        active = modelversion_activate(version=modelversion_create(kind="paraqd", base_model="x", artifact_path="/a"))
        broken = self.model_dir / "broken-encoder"
        broken.mkdir()
        (broken / "model.bin").write_bytes(b"pickle")  # weights only as a pickle: refused
        with self.assertLogs("paralab.jobs", level="ERROR"):
            job = self.train(encoder=str(broken), activate=True)
        self.assertEqual(job.status, Job.Status.FAILED)
        self.assertIn("pickle", job.error)
        self.assertEqual(ModelVersion.objects.get(status="active"), active)
        self.assertEqual(ModelVersion.objects.count(), 1)
        self.assertEqual(self.model_folders(), [])

    def test_a_failure_after_the_model_was_written_deletes_the_folder(self):
        active = modelversion_activate(version=modelversion_create(kind="paraqd", base_model="x", artifact_path="/a"))

        def cancel_when_saved(fraction, note=None):  # e.g. the job was cancelled at the last moment
            if note and note.startswith("saved to"):
                self.assertEqual(len(self.model_folders()), 1)  # the partial folder exists now
                raise RuntimeError("cancelled")

        with self.assertRaisesMessage(RuntimeError, "cancelled"):
            paraqd_train(dataset_names=["algebra"], activate=True, operators=["f2", "f6"], progress=cancel_when_saved)
        self.assertEqual(self.model_folders(), [])
        self.assertEqual(list(ModelVersion.objects.all()), [active])
        active.refresh_from_db()
        self.assertEqual(active.status, "active")

    def test_a_rerun_after_a_lost_worker_does_not_train_again(self):
        job = self.train()
        self.assertEqual(job.status, Job.Status.SUCCEEDED, job.error)
        # The worker was lost after registering the version, before finishing the job.
        Job.objects.filter(pk=job.pk).update(status=Job.Status.RUNNING,
                                             heartbeat_at=timezone.now() - timedelta(hours=1))
        train_job.apply(args=[job.pk])
        job.refresh_from_db()
        self.assertEqual((job.status, job.attempts), (Job.Status.SUCCEEDED, 2))
        self.assertEqual(ModelVersion.objects.get().pk, job.result["version"])
        self.assertEqual(len(self.model_folders()), 1)

    def test_abandoned_partial_folders_are_removed(self):
        root = self.model_dir / "paraqd"
        old, fresh = root / ".partial-old", root / ".partial-fresh"
        old.mkdir(parents=True)
        fresh.mkdir()
        long_ago = time.time() - settings.PARALAB_TASK_HARD_LIMIT_S - 3600
        os.utime(old, (long_ago, long_ago))
        job = self.train(max_problems=1)
        self.assertEqual(job.status, Job.Status.SUCCEEDED, job.error)
        self.assertFalse(old.exists())
        self.assertTrue(fresh.exists())  # maybe another worker's run in progress

    def test_bad_input_is_refused_before_a_job_exists(self):
        for kwargs, message in (
            ({"dataset_names": ["nope"]}, "no dataset named 'nope'"),
            ({"dataset_names": ["algebra"], "preset": "huge"}, "--preset"),
            ({"dataset_names": ["algebra"], "epochs": 0}, "--epochs"),
            ({"dataset_names": ["algebra"], "max_problems": 0}, "--max-problems"),
        ):
            with self.subTest(**kwargs), self.assertRaisesMessage(ParaQDError, message):
                paraqd_train_start(**kwargs)
        self.assertFalse(Job.objects.exists())

    def test_no_trainable_problem_fails_the_job_clearly(self):
        make_algebra("held-out", texts=["What is 2 + 3?"], split="test")
        job = self.train(dataset_names=["held-out"])
        self.assertEqual(job.status, Job.Status.FAILED)
        self.assertIn("no training triplets from held-out: no problem may be trained on (1 of split test", job.error)
        self.assertEqual(self.model_folders(), [])


class ScoreJobTests(JobTestCase):
    def setUp(self):
        super().setUp()
        self.dataset, problems = make_algebra()
        self.candidates = [
            make_candidate(problems[0], "John had 5 apples and ate 2. How many are left?", generator="pap"),
            make_candidate(problems[0], "John bought apples.", generator="pap"),
            make_candidate(problems[1], "In 5 hours a train covers 300 km. Find its speed.", generator="stead"),
        ]

    def test_scores_with_the_pretrained_encoder_when_no_version_exists(self):
        job = self.run_started(paraqd_score_start, candidate_ids=[c.pk for c in self.candidates])
        self.assertEqual(job.status, Job.Status.SUCCEEDED, job.error)
        self.assertEqual((job.queue, job.result["scored"]), ("gpu", 3))
        scores = Score.objects.filter(scorer_version=PRETRAINED_SCORER)
        self.assertEqual(scores.count(), 3)
        for score in scores:
            self.assertTrue(-1.0 <= score.paraqd <= 1.0)
            self.assertAlmostEqual(score.similarity, (score.paraqd + 1) / 2, places=6)
            self.assertIsNone(score.model_version)

    def test_a_redelivered_or_rerun_job_updates_instead_of_duplicating(self):
        job = self.run_started(paraqd_score_start, dataset=self.dataset)
        self.assertEqual(job.status, Job.Status.SUCCEEDED, job.error)
        first = dict(Score.objects.values_list("candidate_id", "paraqd"))
        self.assertEqual(len(first), 3)
        Score.objects.update(paraqd=9.0, similarity=9.0)  # stale values a rerun must overwrite
        # Redelivery of a finished job: a no-op.
        score_job.apply(args=[job.pk])
        self.assertEqual(set(Score.objects.values_list("paraqd", flat=True)), {9.0})
        # The worker died mid-job (running, stale heartbeat): the redelivered task reruns it.
        Job.objects.filter(pk=job.pk).update(status=Job.Status.RUNNING,
                                             heartbeat_at=timezone.now() - timedelta(hours=1))
        score_job.apply(args=[job.pk])
        job.refresh_from_db()
        self.assertEqual((job.status, job.attempts), (Job.Status.SUCCEEDED, 2))
        self.assertEqual(Score.objects.count(), 3)
        again = dict(Score.objects.values_list("candidate_id", "paraqd"))
        self.assertEqual(again.keys(), first.keys())
        for pk, value in first.items():
            self.assertAlmostEqual(again[pk], value, places=5)
        # Calling the service twice directly: still one row per (candidate, scorer version).
        self.assertEqual(paraqd_score_candidates(candidate_ids=[c.pk for c in self.candidates]), 3)
        self.assertEqual(Score.objects.count(), 3)

    def test_scores_with_the_active_version(self):
        trained = self.run_started(paraqd_train_start, dataset_names=["algebra"], activate=True)
        self.assertEqual(trained.status, Job.Status.SUCCEEDED, trained.error)
        version = ModelVersion.objects.get(pk=trained.result["version"])
        paraqd_score_candidates(candidate_ids=[c.pk for c in self.candidates])
        paraqd_score_candidates(candidate_ids=[c.pk for c in self.candidates], version=None)
        rows = Score.objects.filter(scorer_version=f"paraqd:v{version.pk}")
        self.assertEqual(rows.count(), 3)
        self.assertTrue(all(r.model_version_id == version.pk for r in rows))
        self.assertFalse(Score.objects.filter(scorer_version=PRETRAINED_SCORER).exists())
        self.assertEqual(paraqd_score_candidates(candidate_ids=[]), 0)


class EvaluateTests(JobTestCase):
    def setUp(self):
        super().setUp()
        self.dataset, _ = make_algebra()
        self.golds = make_gold_pairs(self.dataset)

    def test_pretrained_evaluation_returns_the_contract_json(self):
        result = paraqd_evaluate(dataset=self.dataset, model="pretrained", include_scores=True)
        self.assertLessEqual(CONTRACT_KEYS, set(result))
        self.assertEqual(result["n"], 8)
        for average in ("macro", "weighted"):
            self.assertEqual(set(result[average]), {"p", "r", "f1", "f1_hm"})
            for value in result[average].values():
                self.assertTrue(0.0 <= value <= 1.0)
        self.assertAlmostEqual(result["separation"], result["mu_pos"] - result["mu_neg"], places=6)
        self.assertEqual(len(result["scores"]["valid"]), 4)
        self.assertEqual(len(result["scores"]["invalid"]), 4)
        self.assertEqual(result["model"]["scorer_version"], PRETRAINED_SCORER)
        # Everything is predicted valid at threshold -1: recall of the valid class is 1.
        low = paraqd_evaluate(dataset=self.dataset, model="pretrained", threshold=-1.0)
        self.assertEqual(low["macro"]["r"], 0.5)

    def test_a_version_stores_its_evaluation(self):
        # The gold pairs' questions are imported-pair questions: never trained on. Train elsewhere.
        make_algebra("train-set", texts=[f"Puzzle {i}: {t}" for i, t in enumerate(PROBLEMS)])
        trained = self.run_started(paraqd_train_start, dataset_names=["train-set"], activate=True)
        self.assertEqual(trained.status, Job.Status.SUCCEEDED, trained.error)
        job = self.run_started(paraqd_evaluate_start, dataset=self.dataset)
        self.assertEqual(job.status, Job.Status.SUCCEEDED, job.error)
        self.assertEqual(job.queue, "cpu")
        self.assertLessEqual(CONTRACT_KEYS, set(job.result))
        version = ModelVersion.objects.get(pk=trained.result["version"])
        stored = version.metrics["eval"]["algebra"]
        self.assertEqual(stored["n"], 8)
        self.assertEqual(stored["separation"], job.result["separation"])
        # The dashboard's plot: every gold pair counted once, in its class's histogram.
        self.assertEqual(len(stored["histogram"]["edges"]), 21)
        self.assertEqual(sum(stored["histogram"]["valid"]) + sum(stored["histogram"]["invalid"]), 8)
        self.assertIn("training", version.metrics)  # merged, not replaced
        by_id = paraqd_evaluate(dataset=self.dataset, model=str(version.pk))
        by_path = paraqd_evaluate(dataset=self.dataset, model=version.artifact_path)
        self.assertAlmostEqual(by_id["separation"], job.result["separation"], places=5)
        self.assertAlmostEqual(by_path["separation"], job.result["separation"], places=5)

    def test_clear_errors(self):
        empty, _ = make_algebra("unlabelled", texts=["What is 2 + 3?"])
        for kwargs, message in (
            ({"dataset": self.dataset}, "no active ParaQD model"),
            ({"dataset": self.dataset, "model": "999999"}, "no model version with id 999999"),
            ({"dataset": self.dataset, "model": "/no/such/dir"}, "is none"),
            ({"dataset": empty, "model": "pretrained"}, "no gold-labelled pairs"),
            ({"dataset": self.dataset, "model": "pretrained", "threshold": 2.0}, "--threshold"),
        ):
            with self.subTest(**{k: str(v) for k, v in kwargs.items()}):
                with self.assertRaisesMessage(ParaQDError, message):
                    paraqd_evaluate(**kwargs)


class SynthesizeTests(JobTestCase):
    def setUp(self):
        super().setUp()
        self.dataset, self.problems = make_algebra()

    def test_two_pairs_per_problem_queued_for_double_annotation_and_idempotent(self):
        job = self.run_started(paraqd_synthesize_start, dataset=self.dataset)
        self.assertEqual(job.status, Job.Status.SUCCEEDED, job.error)
        self.assertEqual(job.queue, "cpu")
        candidates = Candidate.objects.filter(problem__dataset=self.dataset, generator__startswith="test:")
        self.assertEqual(job.result["candidates_created"], candidates.count())
        for problem in self.problems:
            mine = list(candidates.filter(problem=problem))
            # fc (TF-IDF) and fd (random deletion) apply to any of these problems; fa to most.
            self.assertIn(len(mine), (1, 2), problem.text)
            self.assertEqual(sum(not c.intended_valid for c in mine), 1)
            self.assertLessEqual(sum(bool(c.intended_valid) for c in mine), 1)
            for c in mine:
                self.assertEqual(c.generator, f"test:{c.operator}")
                self.assertIn(c.operator, ("fa", "fc", "fd"))  # fb and fe need a generator
                self.assertEqual(c.intended_valid, c.operator == "fa")
                self.assertNotEqual(c.text, problem.text)
        self.assertGreaterEqual(job.result["per_operator"].get("fa", 0), 2)
        self.assertEqual(candidates.count(), sum(job.result["per_operator"].values()))
        items = AnnotationItem.objects.filter(candidate__in=candidates)
        self.assertEqual(items.count(), candidates.count())
        self.assertEqual(set(items.values_list("purpose", "required_labels", "dataset")),
                         {("synthesized_test", 2, self.dataset.pk)})
        # Rerun (a new job, or the service directly): nothing new.
        again = self.run_started(paraqd_synthesize_start, dataset=self.dataset)
        self.assertEqual((again.result["candidates_created"], again.result["items_created"]), (0, 0))
        self.assertEqual(again.result["skipped_existing"], 4)
        self.assertEqual(paraqd_synthesize_tests(dataset=self.dataset)["candidates_created"], 0)
        self.assertEqual(Candidate.objects.count(), candidates.count())

    def test_synthesized_items_ask_for_the_datasets_number_of_labels(self):
        self.dataset.labels_per_item = 3
        self.dataset.save(update_fields=["labels_per_item"])
        paraqd_synthesize_tests(dataset=self.dataset)
        items = AnnotationItem.objects.filter(dataset=self.dataset, purpose="synthesized_test")
        self.assertTrue(items.exists())
        self.assertEqual(set(items.values_list("required_labels", flat=True)), {3})

    def test_a_generator_enables_fb_and_fe(self):
        generators = {"fb": lambda texts: ["Tell me: " + t for t in texts],
                      "fe": lambda texts: ["Somebody bought something." for _ in texts]}
        result = paraqd_synthesize_tests(dataset=self.dataset, per_problem=4, generators=generators)
        ops = set(Candidate.objects.values_list("operator", flat=True))
        self.assertLessEqual({"fb"}, ops)
        self.assertEqual(result["candidates_created"], Candidate.objects.count())
        for problem in self.problems:  # 2 positive + 2 negative operators per problem at most
            mine = Candidate.objects.filter(problem=problem)
            self.assertLessEqual(mine.filter(intended_valid=True).count(), 2)
            self.assertEqual(mine.filter(intended_valid=False).count(), 2)

    def test_redelivered_synthesis_job_is_a_no_op(self):
        job = self.run_started(paraqd_synthesize_start, dataset=self.dataset)
        count = Candidate.objects.count()
        synthesize_job.apply(args=[job.pk])
        self.assertEqual(Candidate.objects.count(), count)
        with self.assertRaisesMessage(ParaQDError, "--per-problem"):
            paraqd_synthesize_start(dataset=self.dataset, per_problem=0)


class TaskRegistrationTests(TestCase):
    def test_names_queues_and_reliability_options(self):
        from paralab.celery import app

        self.assertIn("workers.paraqd", app.conf.imports)
        expected = {
            "paralab.gpu.paraqd.train": "gpu",
            "paralab.gpu.paraqd.score": "gpu",
            "paralab.paraqd.evaluate": "cpu",
            "paralab.paraqd.synthesize": "cpu",
        }
        app.loader.import_default_modules()
        for name, queue in expected.items():
            with self.subTest(task=name):
                task = app.tasks[name]
                self.assertEqual(app.amqp.router.route({}, name)["queue"].name, queue)
                self.assertTrue(task.acks_late)
                self.assertTrue(task.ignore_result)
                self.assertTrue(0 < task.soft_time_limit < task.time_limit)
