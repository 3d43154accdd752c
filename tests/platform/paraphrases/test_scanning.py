"""SCANNING through the platform's jobs (eager): tiny STEAD and PAP train, register versions,
store PAP's parallel corpus, generate; a killed training job resumes from its checkpoint; the
commands answer bad input clearly."""
from __future__ import annotations

import json
from datetime import timedelta
from io import StringIO
from pathlib import Path
from unittest import mock

from django.core.management import CommandError, call_command
from django.test import TestCase, override_settings
from django.utils import timezone

from annotation.models import AnnotationItem, GoldLabel
from corpus.models import Problem
from jobs.models import Job
from modelhub.models import ModelVersion
from paraphrases.models import Candidate, Score
from modelhub.kinds.pap import pap_corpus_build, pap_train_from_corpus
from modelhub.kinds.seq2seq import ScanningError, scanning_train_start, training_problem_rows
from modelhub.kinds.stead import stead_train
from modelhub.services import modelversion_set_metrics
from modelhub.resources import generation_resources
from paraphrases.generation import generator_catalog, generator_names
from workers.scanning import train_job

from ..corpus.factories import make_gold
from .helpers import PROBLEMS, ParaQDSettingsMixin, make_algebra

MORE = [
    "Sam reads 20 pages every day. How many pages does Sam read in 7 days?",
    "A farmer has 36 cows and sells 9 cows. How many cows does the farmer have left?",
    "Lisa baked 24 cookies and gave 6 cookies to each of her 2 friends. How many cookies are left?",
    "A car uses 8 liters of fuel per 100 km. How much fuel does it use for 250 km?",
]
EVAL = ["Tom has 15 marbles and finds 7 more marbles. How many marbles does Tom have now?"]


class ScanningSettingsMixin(ParaQDSettingsMixin):
    """Tiny preset, scratch base, a Kneser-Ney fluency LM (no 135M model in the fast suite)."""

    def setUp(self):
        super().setUp()
        override = override_settings(PARALAB_SCANNING_PRESET="tiny", PARALAB_SEQ2SEQ_BASE="scratch",
                                     PARALAB_FLUENCY_LM="kneser-ney")
        override.enable()
        self.addCleanup(override.disable)
        self.dataset, self.problems = make_algebra("train-set", PROBLEMS + MORE)
        self.eval_dataset, _ = make_algebra("eval-set", EVAL)


class SteadTrainingTests(ScanningSettingsMixin, TestCase):
    def test_train_stead_command_registers_a_version_with_its_training_summary(self):
        out = StringIO()
        call_command("train_stead", "--dataset", "train-set", "--activate", stdout=out)
        result = json.loads(out.getvalue())
        version = ModelVersion.objects.get(pk=result["version"])
        self.assertEqual((version.kind, version.status), ("stead", "active"))
        self.assertTrue((Path(version.artifact_path) / "paralab_text_model.json").exists()
                        or any(Path(version.artifact_path).iterdir()))
        self.assertEqual(version.training_data["problems"], len(PROBLEMS + MORE))
        self.assertGreater(version.metrics["training"]["steps"], 0)
        self.assertIn("fluency", json.dumps(version.metrics["noise"]).lower())
        job = Job.objects.get(pk=result["job"])
        self.assertEqual((job.queue, job.status), ("gpu", Job.Status.SUCCEEDED))
        # the work folder with checkpoints is gone once the version is registered
        self.assertEqual([p.name for p in (self.model_dir / "stead").iterdir() if p.name.startswith(".")], [])
        # the handout gate: the judge read what the new version writes on its training problems
        gate = version.metrics["handout_gate"]
        self.assertEqual(gate["problems"], min(len(PROBLEMS + MORE), 12))
        self.assertEqual(result["metrics"]["handout_gate"], gate)
        catalog = {row["name"]: row for row in generator_catalog()}
        self.assertTrue(catalog["stead"]["available"])
        # a seconds-long tiny model does not reach the share the default set needs: listed, not ticked
        self.assertEqual(gate["passed"], gate["candidates"] > 0 and gate["judged_valid_share"] >= 0.5)
        self.assertEqual(catalog["stead"]["default"], gate["passed"])
        if not gate["passed"]:
            self.assertIn(f"v{version.pk}: the judge passed", catalog["stead"]["not_default_reason"])
            self.assertNotIn("stead", generator_names(None, generation_resources()))
        # and a version whose gate passed joins the default set
        modelversion_set_metrics(version=version, metrics={"handout_gate": {**gate, "passed": True}})
        self.assertTrue({row["name"]: row for row in generator_catalog()}["stead"]["default"])
        self.assertIn("stead", generator_names(None, generation_resources()))

    def test_evaluation_and_test_split_problems_are_never_trained_on(self):
        Problem.objects.filter(pk=self.problems[0].pk).update(split=Problem.Split.TEST)
        rows = training_problem_rows([self.dataset], exclude=[self.eval_dataset])
        texts = {text for _, text in rows}
        self.assertNotIn(PROBLEMS[0], texts)
        self.assertEqual(len(texts), len(PROBLEMS + MORE) - 1)

    def test_bad_input_is_a_clear_error(self):
        with self.assertRaisesMessage(CommandError, "unknown dataset(s): nope"):
            call_command("train_stead", "--dataset", "nope", stdout=StringIO())
        with self.assertRaisesMessage(ScanningError, "no STEAD version is active"):
            pap_train_from_corpus(dataset_names=["train-set"])
        with self.assertRaisesMessage(CommandError, "must not be one of the training datasets"):
            call_command("scanning", "--dataset", "train-set", "--eval-dataset", "train-set", stdout=StringIO())

    def test_killed_training_job_resumes_from_its_checkpoint(self):
        """The worker dies after the first checkpoint (nothing in Python cleans up); the broker
        redelivers; the rerun resumes from the step the checkpoint holds and finishes once."""
        job = scanning_train_start(kind="stead", dataset_names=["train-set"], enqueue=False)
        import ml.seq2seq

        real = ml.seq2seq.train_text_model

        def dies_in_the_second_epoch(model, examples_for_epoch, config, **kwargs):
            def examples(epoch):
                if epoch == 1:  # epoch 0 finished and its checkpoint is on disk
                    raise SystemExit("worker killed")
                return examples_for_epoch(epoch)

            return real(model, examples, config, **kwargs)

        with mock.patch.object(ml.seq2seq, "train_text_model", dies_in_the_second_epoch):
            with self.assertRaises(SystemExit):
                train_job.apply(args=[job.pk], throw=True)
        job.refresh_from_db()
        self.assertEqual(job.status, Job.Status.RUNNING)
        work = self.model_dir / "stead" / f".job-{job.pk}"
        self.assertTrue(any((work / "checkpoints").iterdir()))
        self.assertFalse(ModelVersion.objects.filter(kind="stead").exists())
        # the heartbeat goes stale, the message comes back
        Job.objects.filter(pk=job.pk).update(heartbeat_at=timezone.now() - timedelta(hours=1))
        train_job.apply(args=[job.pk])
        job.refresh_from_db()
        self.assertEqual(job.status, Job.Status.SUCCEEDED, job.error)
        self.assertEqual(job.attempts, 2)
        self.assertGreater(job.result["metrics"]["training"]["resumed_from_step"], 0)
        self.assertEqual(ModelVersion.objects.filter(kind="stead", job=job).count(), 1)
        self.assertFalse(work.exists())
        # a third delivery of the finished job changes nothing
        train_job.apply(args=[job.pk])
        self.assertEqual(ModelVersion.objects.filter(kind="stead").count(), 1)


class PapPipelineTests(ScanningSettingsMixin, TestCase):
    def test_corpus_is_stored_scored_and_gold_labels_edit_what_pap_trains_on(self):
        stead = stead_train(dataset_names=["train-set"], activate=True)
        rows = training_problem_rows([self.dataset])
        corpus = pap_corpus_build(rows=rows, stead_version=stead)
        stored = Candidate.objects.filter(generator="stead", model_version=stead)
        self.assertEqual(corpus["summary"]["candidates"], stored.count())
        self.assertGreater(stored.count(), 0)
        self.assertEqual(Score.objects.filter(candidate__in=stored, pqi__isnull=False).count(), stored.count())
        picked = stored.exclude(selected_by="")
        self.assertEqual(len(corpus["pairs"]), picked.count())
        self.assertEqual(AnnotationItem.objects.filter(candidate__in=picked).count(), picked.count())
        # rerunning reuses what is stored
        again = pap_corpus_build(rows=rows, stead_version=stead)
        self.assertEqual(again["summary"]["reused"], len(rows))
        self.assertEqual(stored.count(), corpus["summary"]["candidates"])

        # annotators say two STEAD outputs are valid (agreement): they join PAP's corpus
        for candidate in stored.order_by("id")[:2]:
            make_gold(candidate, valid=True, source=GoldLabel.Source.AGREEMENT)
        version = pap_train_from_corpus(dataset_names=["train-set"], activate=True)
        self.assertEqual((version.kind, version.status), ("pap", "active"))
        self.assertEqual(version.training_data["stead_version"], stead.pk)
        self.assertGreaterEqual(version.training_data["gold_valid_added"], 1)
        self.assertEqual(version.training_data["pairs"],
                         len(corpus["pairs"]) + version.training_data["gold_valid_added"]
                         - version.training_data["gold_invalid_removed"])

        # both generators are now available and generate through the generate job
        from paraphrases.generation import generation_run

        resources = generation_resources()
        self.assertEqual(resources.stead_model, stead.artifact_path)
        self.assertEqual(resources.pap_model, version.artifact_path)
        result = generation_run(dataset=self.eval_dataset, generators=["stead", "pap", "reorder"])
        self.assertEqual(result["generators"], ["stead", "pap", "reorder"])
        neural = Candidate.objects.filter(problem__dataset=self.eval_dataset, generator__in=["stead", "pap"])
        for candidate in neural:  # every handed-out neural candidate kept the numbers
            self.assertEqual(candidate.model_version.kind, candidate.generator)
            self.assertIn("15", candidate.text)
            self.assertIn("7", candidate.text)
        self.assertEqual(set(result["refused"]) | {n for n in result["by_generator"]} >= {"stead", "pap"}, True)


class ScanningFromTheDashboardTests(ScanningSettingsMixin, TestCase):
    def setUp(self):
        super().setUp()
        from ..corpus.factories import make_user

        self.staff = make_user("boss", staff=True)
        self.annotator = make_user("ann")

    def test_staff_start_the_chain_as_one_gpu_job(self):
        from django.urls import reverse

        self.client.force_login(self.staff)
        page = self.client.get(reverse("dashboard") + f"?dataset={self.eval_dataset.pk}")
        self.assertContains(page, 'id="scanning-form"')
        response = self.client.post(reverse("scanning-start"), {
            "datasets": ["train-set"], "eval_dataset": "eval-set", "preset": "tiny"})
        self.assertRedirects(response, reverse("job-list"), fetch_redirect_response=False)
        job = Job.objects.get()
        self.assertEqual((job.kind, job.queue, job.params["model"]), (Job.Kind.TRAIN, "gpu", "scanning"))
        self.assertEqual((job.params["datasets"], job.params["eval_dataset"]), (["train-set"], "eval-set"))
        refused = self.client.post(reverse("scanning-start"), {
            "datasets": ["eval-set"], "eval_dataset": "eval-set"}, follow=True)
        self.assertContains(refused, "SCANNING not started: the evaluation dataset must not be one of the training")
        self.assertEqual(Job.objects.count(), 1)

    def test_annotators_cannot_start_it(self):
        from django.urls import reverse

        self.client.force_login(self.annotator)
        response = self.client.post(reverse("scanning-start"), {"datasets": ["train-set"], "eval_dataset": "eval-set"})
        self.assertEqual(response.status_code, 403)
        self.assertFalse(Job.objects.exists())
