"""What the browser tests share: the Chromium they drive, the marks that make a missing browser
fail under `make test` (PARALAB_REQUIRE_BROWSER=1) and skip elsewhere, and a live-server test
case that starts Playwright once per class."""
from __future__ import annotations

import os
import shutil

import pytest
from django.contrib.staticfiles.testing import StaticLiveServerTestCase

CHROMIUM = os.environ.get("PARALAB_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync",
]

# `make test` installs Chromium and sets PARALAB_REQUIRE_BROWSER=1, so there a missing browser
# fails the run instead of skipping it; a developer machine without Chromium skips with a reason.
BROWSER_MARKS = [
    pytest.mark.browser,
    pytest.mark.skipif(
        not os.path.exists(CHROMIUM) and os.environ.get("PARALAB_REQUIRE_BROWSER") != "1",
        reason=f"no Chromium at {CHROMIUM} (apt-get install chromium)",
    ),
]


SCREENSHOTS = os.environ.get("PARALAB_SCREENSHOTS")  # a folder: save what the pages looked like


def shot(page, name: str, *, full_page: bool = True) -> None:
    """Save a screenshot as ``$PARALAB_SCREENSHOTS/<name>.png`` when that variable names a folder
    (``scripts/screenshots.sh`` sets it to docs/screenshots); otherwise nothing."""
    if SCREENSHOTS:
        os.makedirs(SCREENSHOTS, exist_ok=True)
        page.screenshot(path=os.path.join(SCREENSHOTS, f"{name}.png"), full_page=full_page)


class BrowserTestCase(StaticLiveServerTestCase):
    """A live server plus ``cls.browser`` (headless Chromium through Playwright's sync API)."""

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

    def setUp(self):
        super().setUp()
        # The cache outlives the flushed database between live-server tests (sizes, open
        # counts, dashboard summaries): each test starts without the last one's entries.
        from django.core.cache import cache

        cache.clear()
        self.addCleanup(cache.clear)

    @classmethod
    def tearDownClass(cls):
        cls.browser.close()
        cls.playwright.stop()
        super().tearDownClass()
        if cls._async_unsafe is None:
            os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        else:
            os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = cls._async_unsafe
