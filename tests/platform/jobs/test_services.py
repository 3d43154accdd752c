"""The job state machine: claiming, idempotent redelivery, failure recording, stale reaping."""
from __future__ import annotations

from datetime import timedelta

from celery import shared_task
from django.test import TestCase, override_settings
from django.utils import timezone

from jobs.models import Job
from jobs.services import JobError, job_claim, job_create, job_progress, job_run, jobs_reap_stale


SENT: list[int] = []


@shared_task(name="paralab.tests.record_job")
def record_job(job_id: int) -> None:
    """Stands for a job's task: the reaper sends it again (eager here) and it records the id."""
    SENT.append(job_id)


class JobRunTests(TestCase):
    def test_success_records_result_and_full_progress(self):
        job = job_create(kind=Job.Kind.IMPORT_PROBLEMS, params={"n": 3})
        seen = []

        def body(job, progress):
            progress(0.5, "half way")
            seen.append(Job.objects.get(pk=job.pk).progress)
            return {"created": job.params["n"]}

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

        def body(job, progress):
            raise JobError("data.csv, line 3: column 'text' is empty")

        out = job_run(job_id=job.pk, body=body)
        self.assertEqual(out.status, Job.Status.FAILED)
        self.assertEqual(out.error, "data.csv, line 3: column 'text' is empty")

    def test_any_service_user_error_fails_the_job_with_its_message_alone(self):
        from core.errors import UserError

        class NoSuchGenerator(UserError):
            pass

        job = job_create(kind=Job.Kind.GENERATE)

        def body(job, progress):
            raise NoSuchGenerator("unknown generator 'x'")

        out = job_run(job_id=job.pk, body=body)
        self.assertEqual(out.status, Job.Status.FAILED)
        self.assertEqual(out.error, "unknown generator 'x'")

    def test_unexpected_error_fails_the_job_with_type_and_message(self):
        job = job_create(kind=Job.Kind.EXPORT)

        def body(job, progress):
            raise KeyError("boom")

        with self.assertLogs("paralab.jobs", level="ERROR"):
            out = job_run(job_id=job.pk, body=body)
        self.assertEqual(out.status, Job.Status.FAILED)
        self.assertIn("KeyError", out.error)

    def test_redelivered_finished_job_is_a_no_op(self):
        job = job_create(kind=Job.Kind.IMPORT_PROBLEMS)
        calls = []

        def body(job, progress):
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
        self.assertIsNone(job_run(job_id=987654, body=lambda job, progress: {}))

    def test_progress_is_clamped_and_only_written_while_running(self):
        job = job_create(kind=Job.Kind.EXPORT)
        job_progress(job_id=job.pk, progress=0.7)
        self.assertEqual(Job.objects.get(pk=job.pk).progress, 0.0)  # still queued
        job_claim(job_id=job.pk)
        job_progress(job_id=job.pk, progress=3.0)
        self.assertEqual(Job.objects.get(pk=job.pk).progress, 1.0)

    def test_reaper_requeues_only_abandoned_running_jobs_and_says_so(self):
        stale = job_create(kind=Job.Kind.TRAIN)
        fresh = job_create(kind=Job.Kind.TRAIN)
        queued = job_create(kind=Job.Kind.TRAIN)
        Job.objects.filter(pk__in=[stale.pk, fresh.pk, queued.pk]).update(
            task="paralab.tests.record_job", sent_at=timezone.now())
        for j in (stale, fresh):
            job_claim(job_id=j.pk)
        Job.objects.filter(pk=stale.pk).update(heartbeat_at=timezone.now() - timedelta(hours=1))
        SENT.clear()
        with self.assertLogs("paralab.jobs", level="WARNING"):
            counts = jobs_reap_stale()
        self.assertEqual(counts, {"requeued": 1, "failed": 0, "resent": 0})
        self.assertEqual(SENT, [stale.pk])
        stale = Job.objects.get(pk=stale.pk)
        self.assertEqual((stale.status, stale.requeues, stale.attempts), (Job.Status.QUEUED, 1, 1))
        self.assertIn("re-queued by the reaper: the worker was lost", stale.log)
        self.assertEqual(Job.objects.get(pk=fresh.pk).status, Job.Status.RUNNING)
        self.assertEqual(Job.objects.get(pk=queued.pk).status, Job.Status.QUEUED)
        self.assertEqual(Job.objects.get(pk=queued.pk).requeues, 0)

    @override_settings(PARALAB_JOB_MAX_ATTEMPTS=2)
    def test_reaper_fails_a_job_that_lost_its_worker_too_often(self):
        job = job_create(kind=Job.Kind.IMPORT_PROBLEMS)
        Job.objects.filter(pk=job.pk).update(task="paralab.tests.record_job", sent_at=timezone.now())
        job_claim(job_id=job.pk)
        Job.objects.filter(pk=job.pk).update(attempts=2, heartbeat_at=timezone.now() - timedelta(hours=1))
        with self.assertLogs("paralab.jobs", level="WARNING"):
            self.assertEqual(jobs_reap_stale()["failed"], 1)
        job = Job.objects.get(pk=job.pk)
        self.assertEqual(job.status, Job.Status.FAILED)
        self.assertIn("after 2 attempts", job.error)

    @override_settings(PARALAB_JOB_RESEND_S=60)
    def test_reaper_sends_again_queued_jobs_whose_message_was_lost(self):
        never = job_create(kind=Job.Kind.IMPORT_PROBLEMS)
        old = job_create(kind=Job.Kind.IMPORT_PROBLEMS)
        recent = job_create(kind=Job.Kind.IMPORT_PROBLEMS)
        an_hour_ago = timezone.now() - timedelta(hours=1)
        Job.objects.filter(pk__in=[never.pk, old.pk, recent.pk]).update(
            task="paralab.tests.record_job", created_at=an_hour_ago)
        Job.objects.filter(pk=old.pk).update(sent_at=an_hour_ago)
        Job.objects.filter(pk=recent.pk).update(sent_at=timezone.now())
        SENT.clear()
        with self.assertLogs("paralab.jobs", level="WARNING"):
            counts = jobs_reap_stale()
        self.assertEqual(counts, {"requeued": 0, "failed": 0, "resent": 2})
        self.assertEqual(sorted(SENT), [never.pk, old.pk])
        self.assertIn("never reached the broker", Job.objects.get(pk=never.pk).log)
        self.assertIn("was not picked up", Job.objects.get(pk=old.pk).log)
        self.assertEqual(Job.objects.get(pk=recent.pk).log, "")

    def test_a_superseded_attempt_cannot_record_its_outcome(self):
        job = job_create(kind=Job.Kind.IMPORT_PROBLEMS)

        def body(job, progress):
            # Meanwhile the reaper judged this worker lost and another worker claimed the job.
            Job.objects.filter(pk=job.pk).update(attempts=job.attempts + 1)
            return {"created": 99}

        with self.assertLogs("paralab.jobs", level="WARNING") as logs:
            out = job_run(job_id=job.pk, body=body)
        self.assertEqual(out.status, Job.Status.RUNNING)
        self.assertEqual(out.result, {})
        self.assertIn("superseded", "\n".join(logs.output))
