"""/paraphrase/ in headless Chromium draws the job's partial answer as it comes: the rule variants
while the language model is still rewording (the status line says so), then its verified rewrite,
first and marked with the answer both texts solve to.

The job runs on the embedded runner's background thread (PARALAB_JOB_RUNNER=thread, as under
``runserver``), so the page polls it as in production; the rules and the shipped judge run for
real, and the instruct LLM is the stand-in of tests/platform/paraphrases/test_partial_api.py,
held back until the test has seen the rule variants on the page."""
from __future__ import annotations

import threading

from django.test import override_settings

from jobs.background import wait_idle
from jobs.models import Job
from tests.browser.live import BROWSER_MARKS, BrowserTestCase, shot
from tests.platform.corpus.factories import PASSWORD, make_user
from tests.platform.modelhub.test_shipped_judge import PROBLEM, ShippedJudgeOn
from tests.platform.paraphrases.test_partial_api import REWRITE, SOLVED, StandInLLM, stand_in_registered

pytestmark = BROWSER_MARKS

WAIT_MS = 180_000  # the rules and the judge on a shared 2-core machine


@override_settings(PARALAB_LLM=True, PARALAB_JOB_RUNNER="thread")
class ParaphraseStreamingLiveTests(ShippedJudgeOn, BrowserTestCase):
    def setUp(self):
        super().setUp()
        self.reached, self.release = threading.Event(), threading.Event()
        self.addCleanup(wait_idle, 120)  # the job thread ends before the database is flushed
        self.addCleanup(self.release.set)  # (cleanups run last first: never leave it blocked)

    def hold(self) -> None:
        """The stand-in LLM's ``before``: wait for the test before handing its rewrite over."""
        self.reached.set()
        self.release.wait(WAIT_MS / 1000)

    def test_rule_variants_first_then_the_verified_rewrite_marked(self):
        llm = stand_in_registered(self, StandInLLM(before=self.hold))
        make_user("boss", staff=True)
        page = self.browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(f"{self.live_server_url}/login/?next=/paraphrase/")
        page.fill("#id_username", "boss")
        page.fill("#id_password", PASSWORD)
        page.click("button[type=submit]")
        page.wait_for_url(f"{self.live_server_url}/paraphrase/")

        page.fill("#paraphrase-text", PROBLEM)
        page.fill("#paraphrase-k", "3")
        page.click("#paraphrase-button")  # the default generators ticked: none named, so the LLM runs after them

        # The rule variants, while the language model is still at work.
        # (or the job's end, so that a job that never asks the model fails here at once, saying why)
        page.wait_for_function("document.getElementById('paraphrase-llm').textContent.includes('Rewording')"
                               " || !document.getElementById('paraphrase-button').disabled", timeout=WAIT_MS)
        self.assertTrue(self.reached.is_set(), "the job ended without asking the language model: "
                        + page.inner_text("#paraphrase-status") + " / " + page.inner_text("#paraphrase-llm"))
        job = Job.objects.get(kind=Job.Kind.PARAPHRASE)
        self.assertEqual(job.status, Job.Status.RUNNING)
        self.assertEqual(job.params["generators"], [])
        self.assertEqual(page.inner_text("#paraphrase-llm"), "Rewording with the language model… 0 verified so far.")
        self.assertIn("so far", page.inner_text("#paraphrase-status"))
        variants = page.locator("#variants article.variant")
        rule_count = variants.count()
        self.assertGreaterEqual(rule_count, 1)
        generators = page.eval_on_selector_all("#variants article.variant", "vs => vs.map(v => v.dataset.generator)")
        self.assertNotIn("instruct_llm", generators)
        self.assertEqual(page.locator("#variants .variant-llm:visible").count(), 0)
        self.assertEqual(page.locator("#variants .variant-text").first.inner_text().strip(),
                         job.partial["variants"][0]["text"])
        self.assertEqual(variants.first.locator(".variant-checks").get_attribute("data-ok"), "1")
        self.assertTrue(page.locator("#paraphrase-button").is_disabled())
        shot(page, "paraphrase-streaming")

        # The verified rewrite arrives: drawn first, marked with both answers.
        self.release.set()
        page.wait_for_selector('#variants article.variant[data-generator="instruct_llm"]', timeout=WAIT_MS)
        first = page.locator("#variants article.variant").first
        self.assertEqual(first.get_attribute("data-generator"), "instruct_llm")
        self.assertEqual(first.locator(".variant-rank").inner_text(), "#1")
        self.assertEqual(first.locator(".variant-text").inner_text().strip(), REWRITE)
        mark = first.locator(".variant-llm")
        self.assertTrue(mark.is_visible())
        self.assertIn("Reworded by the language model", mark.inner_text())
        self.assertIn(f"checked by solving: {SOLVED}", mark.inner_text())
        self.assertEqual(page.locator("#variants .variant-llm:visible").count(), 1)  # the rule variants are not marked
        first.locator("details summary").click()
        self.assertIn(f"✓ same answer: {SOLVED}", first.locator(".variant-reasons").inner_text())

        # The job ends: the final answer, the button back, the status line says what the model gave.
        page.wait_for_function("document.getElementById('paraphrase-llm').textContent.includes('1 reworded')",
                               timeout=WAIT_MS)
        page.wait_for_function("!document.getElementById('paraphrase-button').disabled", timeout=WAIT_MS)
        self.assertIn("1 reworded by the language model and checked by solving", page.inner_text("#paraphrase-llm"))
        self.assertRegex(page.inner_text("#paraphrase-status"), r"^\d variants? from \d+ candidates")
        job.refresh_from_db()
        self.assertEqual(job.status, Job.Status.SUCCEEDED, job.error)
        shown = page.eval_on_selector_all("#variants article.variant .variant-text", "ts => ts.map(t => t.textContent)")
        self.assertEqual([t.strip() for t in shown], [v["text"] for v in job.result["variants"]])
        self.assertEqual(len(llm.calls), 1)
        shot(page, "paraphrase-streaming-done")
        page.close()
