"""Jobs never block a page on the embedded default: with no broker and PARALAB_JOB_RUNNER=thread
(what runserver and the demo's server use), a job runs on a background thread of the server, the
request that started it returns with the job queued or running, progress and time left show on
the job while it runs, and a cancel stops it.

TransactionTestCase: the job thread has its own database connection, so it must see committed rows."""
from __future__ import annotations

import threading
import time

from celery import shared_task
from django.test import TransactionTestCase, override_settings
from django.urls import reverse
from rest_framework.test import APIClient

from jobs.background import wait_idle
from jobs.models import Job
from jobs.services import job_create, job_enqueue

from ..corpus.factories import make_dataset, make_problem, make_user

RELEASE = threading.Event()
STARTED = threading.Event()


@shared_task(name="tests.jobs.wait_for_release", bind=True)
def wait_for_release(self, job_id: int) -> None:
    """A job that reports progress until the test releases it (or someone cancels it)."""
    from jobs.services import job_run

    def body(job, progress):
        STARTED.set()
        step = 0
        while not RELEASE.is_set():
            step += 1
            progress(min(0.5, step / 100))
            time.sleep(0.02)
        progress(1.0)
        return {"steps": step}

    job_run(job_id=job_id, body=body)


def wait_for(predicate, timeout: float = 20.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return False


@override_settings(PARALAB_JOB_RUNNER="thread")
class BackgroundJobTests(TransactionTestCase):
    def setUp(self):
        RELEASE.clear()
        STARTED.clear()
        self.addCleanup(wait_idle, 30)
        self.addCleanup(RELEASE.set)
        self.staff = make_user("boss", staff=True)
        self.api = APIClient()
        self.api.force_login(self.staff)

    def start_blocking_job(self) -> Job:
        job = job_create(kind=Job.Kind.SCORE, created_by=self.staff)
        job_enqueue(job=job, task=wait_for_release.name)  # outside a transaction: sent at once
        self.assertTrue(STARTED.wait(20), "the background thread never started the job")
        return job

    def test_the_call_returns_while_the_job_runs_and_its_progress_is_visible(self):
        job = self.start_blocking_job()
        self.assertTrue(wait_for(lambda: Job.objects.get(pk=job.pk).progress > 0.05))
        data = self.api.get(reverse("api-job-detail", args=[job.pk])).data
        self.assertEqual(data["status"], "running")
        self.assertGreater(data["progress"], 0.0)
        self.assertIsNotNone(data["eta_seconds"])  # past 2 % of its work: a time left is known
        self.assertGreaterEqual(data["eta_seconds"], 0.0)
        page = self.client
        page.force_login(self.staff)
        html = page.get(reverse("job-list")).content.decode()
        self.assertIn(f'id="job-{job.pk}"', html)
        self.assertIn('data-field="cancel"', html)
        RELEASE.set()
        self.assertTrue(wait_idle(30))
        job.refresh_from_db()
        self.assertEqual((job.status, job.progress), (Job.Status.SUCCEEDED, 1.0))

    def test_a_page_that_starts_a_job_returns_before_it_runs(self):
        self.start_blocking_job()  # the one job thread is busy
        dataset = make_dataset("algebra")
        make_problem(dataset, "A train covers 300 km in 5 hours. What is its speed?")
        self.client.force_login(self.staff)
        response = self.client.post(reverse("dataset-generate", args=[dataset.pk]),
                                    {"generators": ["reorder"], "per_problem": "1"}, follow=True)
        generate = Job.objects.get(kind=Job.Kind.GENERATE)
        self.assertContains(response, f'started as <a href="/jobs/#job-{generate.pk}">job {generate.pk}</a>')
        self.assertEqual(Job.objects.get(pk=generate.pk).status, Job.Status.QUEUED)  # not run in the request
        RELEASE.set()
        self.assertTrue(wait_idle(120))
        self.assertEqual(Job.objects.get(pk=generate.pk).status, Job.Status.SUCCEEDED)

    def test_cancel_stops_a_running_job_and_a_queued_one(self):
        running = self.start_blocking_job()
        queued = job_create(kind=Job.Kind.SCORE, created_by=self.staff)
        job_enqueue(job=queued, task=wait_for_release.name)  # waits behind the running one
        answer = self.api.post(reverse("api-job-cancel", args=[queued.pk]))
        self.assertEqual((answer.status_code, answer.data["status"]), (200, "cancelled"))
        answer = self.api.post(reverse("api-job-cancel", args=[running.pk]))
        self.assertEqual((answer.status_code, answer.data["cancel_requested"]), (200, True))
        self.assertTrue(wait_for(lambda: Job.objects.get(pk=running.pk).status == Job.Status.CANCELLED))
        self.assertTrue(wait_idle(30))
        self.assertEqual(Job.objects.get(pk=queued.pk).status, Job.Status.CANCELLED)  # never ran
        self.assertIn("cancel requested", Job.objects.get(pk=running.pk).log)
        # a finished job is returned as it is
        again = self.api.post(reverse("api-job-cancel", args=[running.pk]))
        self.assertEqual(again.data["status"], "cancelled")

    def test_a_new_server_fails_the_jobs_an_earlier_one_was_running_and_sends_its_queued_ones(self):
        from jobs.services import jobs_recover_orphans

        orphan = Job.objects.create(kind=Job.Kind.SCORE, status=Job.Status.RUNNING, task=wait_for_release.name)
        waiting = Job.objects.create(kind=Job.Kind.SCORE, status=Job.Status.QUEUED, task=wait_for_release.name)
        RELEASE.set()
        jobs_recover_orphans(sending=-1)
        self.assertTrue(wait_idle(30))
        orphan.refresh_from_db()
        waiting.refresh_from_db()
        self.assertEqual((orphan.status, orphan.error),
                         (Job.Status.FAILED, "the server stopped while it ran; start it again"))
        self.assertEqual(waiting.status, Job.Status.SUCCEEDED)
        self.assertIn("sent again", waiting.log)


class CommandProgressTests(TransactionTestCase):
    def test_a_long_command_prints_its_progress_and_time_left(self):
        """``run_job_here`` (every job-running management command) prints the job's progress, the
        time left and its latest log line while the job runs."""
        import io

        from jobs.foreground import run_job_here

        RELEASE.clear()
        STARTED.clear()
        job = job_create(kind=Job.Kind.SCORE)
        threading.Timer(1.5, RELEASE.set).start()
        out = io.StringIO()
        run_job_here(job, wait_for_release.name, stream=out, every_s=0.2)
        lines = out.getvalue().splitlines()
        self.assertTrue(lines, "no progress line was printed")
        self.assertTrue(all(line.startswith(f"job {job.pk}: ") for line in lines), lines)
        self.assertTrue(any("running" in line and "%" in line for line in lines), lines)
        self.assertTrue(any("min left" in line for line in lines), lines)


def test_the_tiny_preset_trains_the_tiny_scratch_base_unless_a_base_is_named(settings):
    from modelhub.kinds.seq2seq import scanning_base

    settings.PARALAB_SEQ2SEQ_BASE = ""  # not set
    assert scanning_base(None, "tiny") == "scratch"
    assert scanning_base("minilm", "tiny") == "minilm"
    assert scanning_base(None, "paper") == "smollm2"
    settings.PARALAB_SEQ2SEQ_BASE = "smollm2"  # a base named in the settings is a base named
    assert scanning_base(None, "tiny") == "smollm2"
