"""Imports as jobs: the Celery task run eagerly through the job state machine."""

from __future__ import annotations

import json
import shutil

from django.test import TestCase

from annotation.models import GoldLabel
from corpus.models import Dataset, Problem
from corpus.services import dataset_import_start
from jobs.models import Job
from paraphrases.models import Candidate
from workers.corpus import import_job

from .importing import FIXTURES, TempFilesMixin


class ImportJobTests(TempFilesMixin, TestCase):
    def setUp(self):
        super().setUp()
        self.dataset = Dataset.objects.create(name="algebra")

    def start(self, path, **kwargs) -> Job:
        """Start a job and let its on-commit send run the task (eagerly, in-process)."""
        with self.captureOnCommitCallbacks(execute=True) as callbacks:
            job = dataset_import_start(dataset=self.dataset, path=str(path), user=None, **kwargs)
            self.assertEqual(Job.objects.get(pk=job.pk).status, Job.Status.QUEUED)  # not sent before commit
        self.assertEqual(len(callbacks), 1)
        job.refresh_from_db()
        return job

    def test_import_job_succeeds_with_full_progress_and_counts(self):
        job = self.start(FIXTURES / "mawps_small.csv", fmt="auto", split="train")
        self.assertEqual(job.status, Job.Status.SUCCEEDED, job.error)
        self.assertEqual(job.progress, 1.0)
        self.assertEqual(job.result, {"dataset": "algebra", "created": 4, "duplicates": 1, "format": "mawps"})
        self.assertEqual(job.kind, Job.Kind.IMPORT_PROBLEMS)
        self.assertEqual(job.attempts, 1)
        self.assertTrue(job.celery_task_id)
        self.assertEqual(job.params["format"], "auto")
        self.assertIn("read 5 problems (mawps)", job.log)
        self.assertEqual(self.dataset.problems.filter(split="train").count(), 4)

    def test_bad_file_fails_the_job_with_the_message_and_writes_nothing(self):
        path = self.write("bad.jsonl", '{"text": "Tom walks 3 km."}\n{"text": \n')
        job = self.start(path, fmt="jsonl")
        self.assertEqual(job.status, Job.Status.FAILED)
        self.assertTrue(job.error.startswith("bad.jsonl, line 2: invalid JSON"), job.error)
        self.assertEqual(Problem.objects.count(), 0)
        self.assertTrue(path.exists())  # not an upload: the user's file stays

    def test_redelivery_of_a_finished_job_is_a_no_op(self):
        job = self.start(FIXTURES / "gsm8k_small.jsonl")
        self.assertEqual(job.status, Job.Status.SUCCEEDED)
        Problem.objects.filter(dataset=self.dataset).delete()  # a rerun would create them again
        import_job.apply(args=[job.pk])
        import_job.delay(job.pk)
        self.assertEqual(Problem.objects.count(), 0)
        job.refresh_from_db()
        self.assertEqual((job.status, job.attempts, job.result["created"]), (Job.Status.SUCCEEDED, 1, 3))

    def test_uploaded_file_is_deleted_when_the_job_ends(self):
        for source, status in (("gsm8k_small.jsonl", Job.Status.SUCCEEDED), (None, Job.Status.FAILED)):
            with self.subTest(status=status):
                if source:
                    upload = self.tmp / "upload-1a2b.jsonl"
                    shutil.copy(FIXTURES / source, upload)
                else:
                    upload = self.write("upload-3c4d.jsonl", '{"text": ""}\n')
                job = self.start(upload, uploaded=True, filename="my problems.jsonl")
                self.assertEqual(job.status, status)
                self.assertFalse(upload.exists())
        self.assertEqual(job.error, "my problems.jsonl, line 1: field 'text' is empty")

    def test_pairs_job(self):
        job = self.start(FIXTURES / "pairs_paraqd.csv", fmt="paraqd", kind=Job.Kind.IMPORT_PAIRS)
        self.assertEqual(job.status, Job.Status.SUCCEEDED, job.error)
        self.assertEqual(job.kind, Job.Kind.IMPORT_PAIRS)
        self.assertEqual(
            (job.result["problems_created"], job.result["candidates_created"], job.result["gold_labels"]), (2, 5, 5)
        )
        self.assertEqual((Candidate.objects.count(), GoldLabel.objects.count()), (5, 5))

    def test_dataset_deleted_before_the_job_runs(self):
        with self.captureOnCommitCallbacks(execute=False) as callbacks:
            job = dataset_import_start(dataset=self.dataset, path=str(FIXTURES / "gsm8k_small.jsonl"), user=None)
        self.dataset.delete()
        for callback in callbacks:
            callback()
        job.refresh_from_db()
        self.assertEqual(job.status, Job.Status.FAILED)
        self.assertEqual(job.error, "the dataset of this import no longer exists")

    def test_bad_arguments_are_refused_before_a_job_exists(self):
        for kwargs in ({"fmt": "xml"}, {"fmt": "paraqd"}, {"split": "val"}, {"kind": "export"}):
            with self.subTest(**kwargs), self.assertRaises(ValueError):
                dataset_import_start(dataset=self.dataset, path="x.jsonl", user=None, **kwargs)
        self.assertFalse(Job.objects.exists())

    def test_params_record_what_the_task_needs(self):
        with self.captureOnCommitCallbacks(execute=False):
            job = dataset_import_start(
                dataset=self.dataset, path="/tmp/x.csv", fmt="csv", split="dev", user=None, uploaded=True
            )
        self.assertEqual(
            job.params, {"path": "/tmp/x.csv", "format": "csv", "split": "dev", "uploaded": True, "filename": "x.csv"}
        )
        self.assertEqual(job.dataset, self.dataset)
        json.dumps(job.params)  # the task message carries only the id; params must stay JSON
