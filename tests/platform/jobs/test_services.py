"""The job state machine: claiming, idempotent redelivery, failure recording, stale reaping."""
from __future__ import annotations

from datetime import timedelta

from django.test import TestCase
from django.utils import timezone

from jobs.models import Job
from jobs.services import JobError, job_claim, job_create, job_progress, job_run, jobs_reap_stale


class JobRunTests(TestCase):
    def test_success_records_result_and_full_progress(self):
        job = job_create(kind=Job.Kind.IMPORT_PROBLEMS, params={"n": 3})
        seen = []

        def body(j, report):
            report(0.5, "half way")
            seen.append(Job.objects.get(pk=j.pk).progress)
            return {"created": j.params["n"]}

        out = job_run(job_id=job.pk, body=body)
        self.assertEqual(out.status, Job.Status.SUCCEEDED)
        self.assertEqual(out.progress, 1.0)
        self.assertEqual(out.result, {"created": 3})
        self.assertEqual(out.attempts, 1)
        self.assertEqual(seen, [0.5])
        self.assertIn("half way", out.log)
        self.assertIsNotNone(out.finished_at)

    def test_user_error_fails_the_job_with_its_message(self):
        job = job_create(kind=Job.Kind.IMPORT_PROBLEMS)

        def body(j, report):
            raise JobError("data.csv, line 3: column 'text' is empty")

        out = job_run(job_id=job.pk, body=body)
        self.assertEqual(out.status, Job.Status.FAILED)
        self.assertEqual(out.error, "data.csv, line 3: column 'text' is empty")

    def test_unexpected_error_fails_the_job_with_type_and_message(self):
        job = job_create(kind=Job.Kind.EXPORT)

        def body(j, report):
            raise KeyError("boom")

        with self.assertLogs("paralab.jobs", level="ERROR"):
            out = job_run(job_id=job.pk, body=body)
        self.assertEqual(out.status, Job.Status.FAILED)
        self.assertIn("KeyError", out.error)

    def test_redelivered_finished_job_is_a_no_op(self):
        job = job_create(kind=Job.Kind.IMPORT_PROBLEMS)
        calls = []

        def body(j, report):
            calls.append(1)
            return {}

        job_run(job_id=job.pk, body=body)
        self.assertIsNone(job_run(job_id=job.pk, body=body))
        self.assertEqual(len(calls), 1)
        self.assertEqual(Job.objects.get(pk=job.pk).attempts, 1)

    def test_duplicate_delivery_while_running_is_ignored_but_stale_job_is_rerun(self):
        job = job_create(kind=Job.Kind.IMPORT_PROBLEMS)
        self.assertIsNotNone(job_claim(job_id=job.pk))
        self.assertIsNone(job_claim(job_id=job.pk))  # fresh heartbeat: someone is on it
        Job.objects.filter(pk=job.pk).update(heartbeat_at=timezone.now() - timedelta(hours=1))
        again = job_claim(job_id=job.pk)
        self.assertIsNotNone(again)
        self.assertEqual(again.attempts, 2)

    def test_missing_job_is_ignored(self):
        self.assertIsNone(job_run(job_id=987654, body=lambda j, r: {}))

    def test_progress_is_clamped_and_only_written_while_running(self):
        job = job_create(kind=Job.Kind.EXPORT)
        job_progress(job_id=job.pk, progress=0.7)
        self.assertEqual(Job.objects.get(pk=job.pk).progress, 0.0)  # still queued
        job_claim(job_id=job.pk)
        job_progress(job_id=job.pk, progress=3.0)
        self.assertEqual(Job.objects.get(pk=job.pk).progress, 1.0)

    def test_reaper_fails_only_abandoned_running_jobs(self):
        stale = job_create(kind=Job.Kind.TRAIN)
        fresh = job_create(kind=Job.Kind.TRAIN)
        queued = job_create(kind=Job.Kind.TRAIN)
        for j in (stale, fresh):
            job_claim(job_id=j.pk)
        Job.objects.filter(pk=stale.pk).update(heartbeat_at=timezone.now() - timedelta(days=2))
        self.assertEqual(jobs_reap_stale(), 1)
        self.assertEqual(Job.objects.get(pk=stale.pk).status, Job.Status.FAILED)
        self.assertEqual(Job.objects.get(pk=fresh.pk).status, Job.Status.RUNNING)
        self.assertEqual(Job.objects.get(pk=queued.pk).status, Job.Status.QUEUED)
