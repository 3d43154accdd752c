"""The /jobs/ page in headless Chromium: jobs.js polls the job API and moves the progress bar."""
from __future__ import annotations

from jobs.models import Job
from tests.browser.live import BROWSER_MARKS, BrowserTestCase
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
