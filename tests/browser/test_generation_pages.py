"""Generation in headless Chromium: staff start the generate job from the candidates page and see
the scored candidates, then paste a problem on /paraphrase/ and get variants drawn beside it
with the numbers/units check of the labelling screen."""
from __future__ import annotations

from jobs.models import Job
from paraphrases.models import Candidate
from tests.browser.live import BROWSER_MARKS, BrowserTestCase
from tests.platform.corpus.factories import PASSWORD, make_user
from tests.platform.paraphrases.helpers import ParaQDSettingsMixin, make_algebra

pytestmark = BROWSER_MARKS

MAYA = ("Maya bought 12 apples for $3.50 at the market on Monday. She gave 4 apples to Tom. "
        "How many apples does Maya have now?")


class GenerationPagesLiveTests(ParaQDSettingsMixin, BrowserTestCase):
    def _login(self, page, next_url: str) -> None:
        page.goto(f"{self.live_server_url}/login/?next={next_url}")
        page.fill("#id_username", "boss")
        page.fill("#id_password", PASSWORD)
        page.click("button[type=submit]")
        page.wait_for_url(f"{self.live_server_url}{next_url}")

    def test_generate_see_scores_then_paraphrase_a_pasted_problem(self):
        make_user("boss", staff=True)
        dataset, problems = make_algebra()
        page = self.browser.new_page()
        url = f"/datasets/{dataset.pk}/candidates/"
        self._login(page, url)
        self.assertIn("No candidates yet", page.inner_text("main"))

        # Only two generators, one selected per problem: uncheck the rest, then generate.
        for box in page.query_selector_all('#generate-form input[name="generators"]:checked'):
            if box.get_attribute("value") not in ("reorder", "passive"):
                box.uncheck()
        page.fill("#generate-per-problem", "1")
        page.click("#generate-button")
        page.wait_for_url(f"{self.live_server_url}{url}")
        self.assertIn("Generation started as job", page.inner_text(".messages"))
        job = Job.objects.get(kind=Job.Kind.GENERATE)
        self.assertEqual((job.status, job.params["generators"]), (Job.Status.SUCCEEDED, ["reorder", "passive"]))

        rows = page.locator("#candidates-table tr.candidate-row")
        self.assertEqual(rows.count(), Candidate.objects.filter(problem__dataset=dataset).count())
        self.assertEqual(set(page.eval_on_selector_all("tr.candidate-row", "rs => rs.map(r => r.dataset.generator)")),
                         {"reorder", "passive"})
        first_pqi = float(page.inner_text("tr.candidate-row .pqi-cell"))
        self.assertTrue(0.0 < first_pqi <= 1.0)
        self.assertGreaterEqual(page.locator(".selected-badge").count(), 1)
        # Filter by generator.
        page.select_option("#filter-generator", "passive")
        page.click("form[role=search] button[type=submit]")
        page.wait_for_load_state()
        self.assertEqual(set(page.eval_on_selector_all("tr.candidate-row", "rs => rs.map(r => r.dataset.generator)")),
                         {"passive"})

        # The paraphrase page: paste, submit, see variants with their scores and the numbers check.
        page.click("nav.site-nav >> text=Paraphrase")
        page.wait_for_url(f"{self.live_server_url}/paraphrase/")
        page.fill("#paraphrase-text", MAYA)
        page.fill("#paraphrase-k", "2")
        page.click("#paraphrase-button")
        page.wait_for_selector("#variants article.variant", timeout=60000)
        variants = page.locator("#variants article.variant")
        self.assertTrue(1 <= variants.count() <= 2)
        self.assertIn("PQI", variants.first.locator(".variant-scores").inner_text())
        self.assertRegex(variants.first.locator(".variant-scores").inner_text(), r"reworded enough \d+%")
        self.assertNotEqual(variants.first.locator(".variant-text").inner_text().strip(), MAYA)
        checks = variants.first.locator(".variant-checks")
        self.assertEqual(checks.get_attribute("data-ok"), "1")
        self.assertIn("Numbers: all 3 kept", checks.inner_text())
        self.assertGreaterEqual(variants.first.locator(".variant-text mark.hl-number").count(), 3)

        # An empty problem gets the API's message, not a crash.
        page.fill("#paraphrase-text", "")
        page.click("#paraphrase-button")
        page.wait_for_function("document.getElementById('paraphrase-status').textContent.includes('empty')")
        self.assertEqual(page.locator("#variants article.variant").count(), 0)
        page.close()
