"""``train_paraqd``, ``eval_paraqd`` and ``synthesize_tests``: JSON on stdout, jobs recorded,
clear errors with nothing written on bad input."""
from __future__ import annotations

import json
from io import StringIO

from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import TestCase

from annotation.models import AnnotationItem
from jobs.models import Job
from modelhub.models import ModelVersion

from .helpers import PROBLEMS, ParaQDSettingsMixin, make_algebra, make_gold_pairs


def run(*args) -> dict:
    out = StringIO()
    call_command(*args, stdout=out)
    return json.loads(out.getvalue().strip().splitlines()[-1])


class ParaQDCommandTests(ParaQDSettingsMixin, TestCase):
    def setUp(self):
        super().setUp()
        make_algebra("train-set")
        self.eval_set, _ = make_algebra("eval-set", texts=[f"Puzzle {i}: {t}" for i, t in enumerate(PROBLEMS)])
        make_gold_pairs(self.eval_set)

    def test_train_then_eval_then_synthesize(self):
        trained = run("train_paraqd", "--dataset", "train-set", "--epochs", "1", "--max-problems", "3", "--activate")
        version = ModelVersion.objects.get(pk=trained["version"])
        self.assertEqual((trained["path"], trained["status"]), (version.artifact_path, "active"))
        self.assertIn("training", trained["metrics"])
        job = Job.objects.get(pk=trained["job"])
        self.assertEqual((job.kind, job.status, job.progress), (Job.Kind.TRAIN, Job.Status.SUCCEEDED, 1.0))
        self.assertEqual(version.training_data["problems_used"], 3)

        metrics = run("eval_paraqd", "--dataset", "eval-set", "--json")
        self.assertLessEqual({"n", "macro", "weighted", "mu_pos", "mu_neg", "separation"}, set(metrics))
        self.assertEqual(metrics["n"], 8)
        self.assertEqual(set(metrics["weighted"]), {"p", "r", "f1", "f1_hm"})
        self.assertEqual(metrics["model"]["version"], version.pk)
        version.refresh_from_db()
        self.assertIn("eval-set", version.metrics["eval"])
        pretrained = run("eval_paraqd", "--dataset", "eval-set", "--model", "pretrained", "--threshold", "0.3",
                         "--json")
        self.assertEqual((pretrained["threshold"], pretrained["model"]["version"]), (0.3, None))
        by_id = run("eval_paraqd", "--dataset", "eval-set", "--model", str(version.pk), "--json")
        self.assertAlmostEqual(by_id["separation"], metrics["separation"], places=5)
        table = StringIO()
        call_command("eval_paraqd", "--dataset", "eval-set", stdout=table)
        self.assertIn("weighted", table.getvalue())
        self.assertIn("separation", table.getvalue())

        synthesized = run("synthesize_tests", "--dataset", "train-set")
        self.assertGreaterEqual(synthesized["candidates_created"], 4)
        self.assertEqual(synthesized["items_created"], synthesized["candidates_created"])
        self.assertEqual(AnnotationItem.objects.filter(purpose="synthesized_test").count(),
                         synthesized["candidates_created"])
        self.assertEqual(run("synthesize_tests", "--dataset", "train-set")["candidates_created"], 0)

    def test_loss_options_and_training_on_dev_pairs(self):
        make_algebra("dev-pairs", texts=["Zoe reads 12 pages a day. How many pages does she read in 3 days?"],
                     split="dev", source="paraqd-wide")
        trained = run("train_paraqd", "--dataset", "train-set", "--dataset", "dev-pairs", "--epochs", "1",
                      "--max-problems", "2", "--distance", "euclidean", "--lr", "0.0001", "--balance-datasets",
                      "--include-imported-pairs")
        version = ModelVersion.objects.get(pk=trained["version"])
        self.assertEqual((version.params["distance"], version.params["margin"], version.params["lr"]),
                         ("euclidean", 5.0, 0.0001))
        snapshot = version.training_data
        self.assertEqual((snapshot["balance_datasets"], snapshot["include_imported_pairs"]), (True, True))
        # Balanced: one problem from each dataset, the dev-split pair question among them.
        self.assertEqual(snapshot["problems_used"], 2)
        self.assertIsNone(version.metrics["training"]["eval_dataset"])
        self.assertEqual(Job.objects.get(pk=trained["job"]).params["config_overrides"],
                         {"distance": "euclidean", "lr": 0.0001})
        with self.assertRaisesMessage(CommandError, "--margin"):
            call_command("train_paraqd", "--dataset", "train-set", "--margin", "-1", stdout=StringIO(),
                         stderr=StringIO())

    def test_eval_dataset_records_a_curve_per_epoch(self):
        trained = run("train_paraqd", "--dataset", "train-set", "--epochs", "2", "--max-problems", "2",
                      "--eval-dataset", "eval-set")
        training = ModelVersion.objects.get(pk=trained["version"]).metrics["training"]
        self.assertEqual(training["eval_dataset"], "eval-set")
        # Epoch 0 is the base encoder: the model selection compares every epoch's ROC AUC with it.
        self.assertEqual([point["epoch"] for point in training["eval_history"]], [0.0, 1.0, 2.0])
        self.assertEqual(training["base_validation_auc"], training["eval_history"][0]["auc"])
        self.assertIn(training["best_epoch"], (1.0, 2.0))
        self.assertTrue(all(point["n"] == 8 and "separation" in point for point in training["eval_history"]))
        with self.assertRaisesMessage(CommandError, "no dataset named 'nope'"):
            call_command("train_paraqd", "--dataset", "train-set", "--eval-dataset", "nope", stdout=StringIO())

    def test_clear_errors_and_nothing_written(self):
        for args, message in (
            (("train_paraqd", "--dataset", "nope"), "no dataset named 'nope'"),
            (("eval_paraqd", "--dataset", "nope", "--json"), "no dataset named 'nope'"),
            (("synthesize_tests", "--dataset", "nope"), "no dataset named 'nope'"),
            (("eval_paraqd", "--dataset", "eval-set", "--json"), "no active ParaQD model"),
            (("eval_paraqd", "--dataset", "train-set", "--model", "pretrained", "--json"), "no gold-labelled pairs"),
            (("eval_paraqd", "--dataset", "eval-set", "--model", "424242"), "no model version with id 424242"),
        ):
            with self.subTest(args=args), self.assertRaisesMessage(CommandError, message):
                call_command(*args, stdout=StringIO())
        self.assertFalse(Job.objects.exists())
        self.assertFalse(ModelVersion.objects.exists())
        with self.assertRaises(CommandError):
            call_command("train_paraqd", "--dataset", "train-set", "--epochs", "0", stdout=StringIO(),
                         stderr=StringIO())

    def test_a_failed_training_job_is_a_command_error(self):
        with self.assertRaisesMessage(CommandError, "encoder directory not found"):
            with self.settings(PARALAB_SENTENCE_ENCODER=str(self.model_dir / "missing")):
                call_command("train_paraqd", "--dataset", "train-set", stdout=StringIO())
