"""The /jobs/ page in headless Chromium: jobs.js polls the job API and moves the progress bar."""
from __future__ import annotations

import os
import shutil

import pytest
from django.contrib.staticfiles.testing import StaticLiveServerTestCase

from jobs.models import Job
from tests.platform.corpus.factories import PASSWORD, make_user

CHROMIUM = os.environ.get("PARALAB_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync",
]

# `make test` installs Chromium and sets PARALAB_REQUIRE_BROWSER=1, so there a missing browser
# fails the run instead of skipping it; a developer machine without Chromium skips with a reason.
pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(
        not os.path.exists(CHROMIUM) and os.environ.get("PARALAB_REQUIRE_BROWSER") != "1",
        reason=f"no Chromium at {CHROMIUM} (apt-get install chromium)",
    ),
]


class JobsPageLiveTests(StaticLiveServerTestCase):
    @classmethod
    def setUpClass(cls):
        # Playwright's sync API keeps an event loop running in this thread, so Django would refuse
        # the test's own ORM calls; they are plain synchronous calls between page actions.
        cls._async_unsafe = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
        os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
        super().setUpClass()
        from playwright.sync_api import sync_playwright

        cls.playwright = sync_playwright().start()
        cls.browser = cls.playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)

    @classmethod
    def tearDownClass(cls):
        cls.browser.close()
        cls.playwright.stop()
        super().tearDownClass()
        if cls._async_unsafe is None:
            os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        else:
            os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = cls._async_unsafe

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
