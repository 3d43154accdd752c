"""The /jobs/ page in headless Chromium: jobs.js polls the job API and moves the progress bar."""
from __future__ import annotations

from jobs.models import Job
from tests.browser.live import BROWSER_MARKS, BrowserTestCase, shot
from tests.platform.corpus.factories import PASSWORD, make_user

pytestmark = BROWSER_MARKS


class JobsPageLiveTests(BrowserTestCase):
    def test_progress_status_and_error_update_without_a_reload(self):
        make_user("boss", staff=True)
        job = Job.objects.create(kind=Job.Kind.IMPORT_PROBLEMS, status=Job.Status.RUNNING, progress=0.1)
        page = self.browser.new_page()
        page.goto(f"{self.live_server_url}/login/?next=/jobs/")
        page.fill("#id_username", "boss")
        page.fill("#id_password", PASSWORD)
        page.click("button[type=submit]")
        page.wait_for_url(f"{self.live_server_url}/jobs/")
        row = f'tr[data-job-id="{job.pk}"]'
        self.assertEqual(page.inner_text(f'{row} [data-field="progress"]'), "10%")

        Job.objects.filter(pk=job.pk).update(progress=0.64, log="[12:00:00] half way\n")
        page.wait_for_function(
            f"document.querySelector('{row} [data-field=progress]').textContent === '64%'", timeout=8000
        )
        self.assertIn("width: 64%", page.get_attribute(f'{row} [data-field="bar"]', "style"))

        Job.objects.filter(pk=job.pk).update(status=Job.Status.FAILED, error="line 3: <b>bad</b>")
        page.wait_for_function(f"document.querySelector('{row}').dataset.status === 'failed'", timeout=8000)
        self.assertEqual(page.inner_text(f'{row} [data-field="status"]'), "failed")
        # The error arrives as text, never as markup.
        self.assertEqual(page.inner_text(f'{row} [data-field="error"]'), "line 3: <b>bad</b>")
        self.assertEqual(page.locator(f"{row} b").count(), 0)
        page.close()

    def test_a_running_job_shows_time_left_and_the_cancel_button_stops_it(self):
        """The job runs on the embedded default's background thread; the page shows it move and
        its Cancel button stops it (POST jobs/{id}/cancel/, then the job's next progress report)."""
        from django.test import override_settings

        from jobs.background import wait_idle
        from jobs.services import job_create, job_enqueue
        from tests.platform.jobs.test_background import RELEASE, STARTED, wait_for_release

        RELEASE.clear()
        STARTED.clear()
        self.addCleanup(wait_idle, 30)
        self.addCleanup(RELEASE.set)
        make_user("boss", staff=True)
        with override_settings(PARALAB_JOB_RUNNER="thread"):
            job = job_create(kind=Job.Kind.SCORE)
            job_enqueue(job=job, task=wait_for_release.name)
        self.assertTrue(STARTED.wait(20))
        page = self.browser.new_page()
        page.goto(f"{self.live_server_url}/login/?next=/jobs/")
        page.fill("#id_username", "boss")
        page.fill("#id_password", PASSWORD)
        page.click("button[type=submit]")
        page.wait_for_url(f"{self.live_server_url}/jobs/")
        row = f'tr[data-job-id="{job.pk}"]'
        page.wait_for_function(f"document.querySelector('{row} [data-field=eta]').textContent.includes('left')",
                               timeout=10000)
        self.assertEqual(page.inner_text(f'{row} [data-field="status"]'), "running")
        shot(page, "job-progress", full_page=False)
        page.click(f'{row} [data-field="cancel"]')
        page.wait_for_function(f"document.querySelector('{row}').dataset.status === 'cancelled'", timeout=10000)
        self.assertFalse(page.is_visible(f'{row} [data-field="cancel"]'))
        self.assertEqual(Job.objects.get(pk=job.pk).status, Job.Status.CANCELLED)
        page.close()

