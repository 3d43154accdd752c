"""The comforts of the pages in headless Chromium (issue 27): the labelling screen's decision bar
stays on screen on a desktop and a phone and shows the problem's answer on request; dark mode
follows the system and the header's switch, which survives a reload; the candidates table fits a
1280 px screen and stacks on a phone with plain generator names; the dataset page imports a file
and offers the exports."""
from __future__ import annotations

from annotation.models import AnnotationItem
from corpus.models import Dataset, Problem
from tests.browser.live import BROWSER_MARKS, BrowserTestCase, shot
from tests.platform.corpus.factories import (
    PASSWORD,
    make_candidate,
    make_dataset,
    make_gold,
    make_item,
    make_problem,
    make_score,
    make_user,
)

pytestmark = BROWSER_MARKS

DESKTOP = {"width": 1366, "height": 768}
PHONE = {"width": 390, "height": 844}
LONG_PROBLEM = (
    "A farmer in the valley of the river Ouse planted 12 rows of apple trees and 15 rows of pear trees in "
    "the spring of the year when the rains came late; each row of apple trees holds 24 trees and each row of "
    "pear trees holds 18 trees, and after the storm in October 7 apple trees and 9 pear trees had to be cut "
    "down because their roots had rotted in the wet clay. The farmer then bought 30 young trees from the "
    "nursery at the crossroads. How many trees stand in the orchard now, counting both kinds together?"
)
LONG_PARAPHRASE = (
    "In the spring of a year when the rains came late, a farmer in the valley of the river Ouse planted 12 "
    "rows of apple trees with 24 trees in each row and 15 rows of pear trees with 18 trees in each row. The "
    "October storm meant that 7 apple trees and 9 pear trees had to be cut down, their roots rotted in the "
    "wet clay, and afterwards the farmer bought 30 young trees from the nursery at the crossroads. Counting "
    "both kinds together, how many trees stand in the orchard now?"
)


def background(page, selector: str = "body") -> tuple[int, int, int]:
    rgb = page.eval_on_selector(selector, "e => getComputedStyle(e).backgroundColor")
    return tuple(int(v) for v in rgb[rgb.index("(") + 1:rgb.index(")")].split(",")[:3])


def is_dark(rgb) -> bool:
    return sum(rgb) / 3 < 80


class PageComfortsLiveTests(BrowserTestCase):
    def setUp(self):
        super().setUp()
        self.ana = make_user("ana")
        self.boss = make_user("boss", staff=True)
        self.dataset = make_dataset("orchard", annotators=[self.ana])
        self.problem = make_problem(self.dataset, LONG_PROBLEM, answer="574", equation="12*24+15*18-7-9+30")
        for n in range(3):
            candidate = make_candidate(self.problem, LONG_PARAPHRASE.replace("30 young", f"30 young ({n})"),
                                       generator="stead")
            AnnotationItem.objects.create(dataset=self.dataset, candidate=candidate, required_labels=1)

    def open(self, username: str, url: str, *, viewport=DESKTOP, color_scheme="light"):
        context = self.browser.new_context(viewport=viewport, color_scheme=color_scheme)
        self.addCleanup(context.close)
        page = context.new_page()
        page.goto(f"{self.live_server_url}/login/?next={url}")
        page.fill("#id_username", username)
        page.fill("#id_password", PASSWORD)
        page.press("#id_password", "Enter")
        page.wait_for_url(f"{self.live_server_url}{url}")
        return page

    def assert_in_viewport(self, page, selector: str, viewport) -> None:
        box = page.locator(selector).bounding_box()
        self.assertIsNotNone(box, f"{selector} is not displayed")
        self.assertGreaterEqual(box["y"], 0, selector)
        self.assertLessEqual(box["y"] + box["height"], viewport["height"], f"{selector} below the fold: {box}")
        self.assertGreaterEqual(box["x"], 0, selector)
        self.assertLessEqual(box["x"] + box["width"], viewport["width"], f"{selector} off the right edge: {box}")

    # --- labelling screen --------------------------------------------------------------------

    def test_the_decision_bar_stays_on_screen_and_the_answer_is_a_click_away(self):
        for name, viewport in (("label-desktop", DESKTOP), ("label-phone", PHONE)):
            with self.subTest(viewport=name):
                page = self.open("ana", f"/annotate/{self.dataset.pk}/", viewport=viewport)
                page.wait_for_selector("#item-view:not([hidden])")
                self.assertEqual(page.evaluate("window.scrollY"), 0)
                # The page is taller than the screen, yet the verdict and every rating key are on it.
                self.assertGreater(page.evaluate("document.documentElement.scrollHeight"), viewport["height"])
                for selector in ("#valid-button", "#invalid-button", "#skip-button", "#undo-button",
                                 'label[for="solvability-5"]', 'label[for="fluency-0"]', 'label[for="diversity-none"]'):
                    self.assert_in_viewport(page, selector, viewport)
                self.assertLessEqual(page.evaluate("document.documentElement.scrollWidth"), viewport["width"])
                # The imported answer and equation: in the page, collapsed until asked for.
                self.assertFalse(page.eval_on_selector("#problem-solution", "e => e.open"))
                self.assertFalse(page.is_visible("#problem-answer"))
                self.assertEqual(page.text_content("#problem-answer"), "574")
                self.assertEqual(page.text_content("#problem-equation"), "12*24+15*18-7-9+30")
                shot(page, name, full_page=False)
                page.click("#problem-solution summary")
                self.assertTrue(page.is_visible("#problem-answer"))
                # The bar still works: a click on a rating key and on Valid saves the label.
                page.click('label[for="solvability-4"]')
                first = page.get_attribute("#annotator", "data-item")
                page.click("#valid-button")
                page.wait_for_function(
                    f"document.getElementById('annotator').dataset.item !== '{first}'", timeout=15000)
                label = AnnotationItem.objects.get(pk=first).labels.get()
                self.assertEqual((label.valid, label.solvability), (True, 4))
                # Scrolled to the end, the bar sits in its place under the comment box.
                page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
                self.assert_in_viewport(page, "#valid-button", viewport)
                self.assertGreater(page.locator("#decision-bar").bounding_box()["y"],
                                   page.locator("#comment").bounding_box()["y"])

    def test_a_problem_without_an_answer_shows_no_answer_box(self):
        Problem.objects.filter(pk=self.problem.pk).update(answer="", equation="")
        page = self.open("ana", f"/annotate/{self.dataset.pk}/")
        page.wait_for_selector("#item-view:not([hidden])")
        self.assertFalse(page.is_visible("#problem-solution"))

    def test_the_disabled_guidelines_button_looks_disabled(self):
        page = self.open("ana", f"/annotate/{self.dataset.pk}/")
        self.assertTrue(page.is_disabled("#guidelines-button"))
        disabled = page.eval_on_selector("#guidelines-button", "e => [getComputedStyle(e).opacity, getComputedStyle(e).cursor]")
        enabled = page.eval_on_selector("#help-button", "e => [getComputedStyle(e).opacity, getComputedStyle(e).cursor]")
        self.assertLess(float(disabled[0]), 0.8)
        self.assertEqual(disabled[1], "not-allowed")
        self.assertEqual(enabled, ["1", "pointer"])

    # --- dark mode ---------------------------------------------------------------------------

    def test_dark_mode_follows_the_system_and_the_switch_survives_a_reload(self):
        page = self.open("ana", f"/annotate/{self.dataset.pk}/", color_scheme="dark")
        page.wait_for_selector("#item-view:not([hidden])")
        self.assertEqual(page.get_attribute("html", "data-theme"), "auto")
        self.assertEqual(page.input_value("#theme-select"), "auto")
        self.assertTrue(is_dark(background(page)), background(page))
        self.assertTrue(is_dark(background(page, ".pair-side")))
        self.assertTrue(is_dark(background(page, "#decision-bar")))
        text = page.eval_on_selector(".pair-text", "e => getComputedStyle(e).color")
        self.assertGreater(sum(int(v) for v in text[text.index("(") + 1:text.index(")")].split(",")[:3]) / 3, 170)
        shot(page, "label-dark", full_page=False)

        page.select_option("#theme-select", "light")
        self.assertEqual(page.get_attribute("html", "data-theme"), "light")
        self.assertFalse(is_dark(background(page)))
        page.reload()
        page.wait_for_selector("#item-view:not([hidden])")
        self.assertEqual(page.get_attribute("html", "data-theme"), "light")
        self.assertEqual(page.input_value("#theme-select"), "light")
        self.assertFalse(is_dark(background(page)))
        self.assertEqual(page.evaluate("localStorage.getItem('paralab-theme')"), "light")

        # Dark by choice on a light system, on every page (the login page too, logged out).
        light = self.open("boss", f"/datasets/{self.dataset.pk}/")
        self.assertFalse(is_dark(background(light)))
        light.select_option("#theme-select", "dark")
        self.assertTrue(is_dark(background(light)))
        light.goto(f"{self.live_server_url}/datasets/{self.dataset.pk}/candidates/")
        self.assertTrue(is_dark(background(light)))
        self.assertTrue(is_dark(background(light, ".table-wrap")))
        light.click("text=Log out")
        light.wait_for_selector("#id_username")
        self.assertTrue(is_dark(background(light)))
        light.select_option("#theme-select", "auto")
        self.assertFalse(is_dark(background(light)))

    # --- candidates table --------------------------------------------------------------------

    def _candidates(self):
        # A pasted formula with no space to break at, in a problem and in a candidate.
        formula = "total=12×24+15×18−(7+9)+30=" + "+".join(str(n) for n in range(40))
        other = make_problem(self.dataset, LONG_PROBLEM.replace("apple", "plum") + " " + formula)
        for problem in (self.problem, other):
            for n, generator in enumerate(("pp_permutation+reorder+synonym", "passive+reorder", "entity_substitution")):
                text = LONG_PARAPHRASE.replace("nursery", f"nursery no. {n}") + (f" {formula}" if n == 2 else "")
                candidate = make_candidate(problem, text,
                                           generator=generator, prompt="<len_60><bleu_40><wpd_20>" if n == 1 else "",
                                           selected_by="pammr" if n == 0 else "")
                make_score(candidate, "metrics:1", similarity=0.912, diversity=0.456, numeracy=1.0, pqi=0.834,
                           bleu_diversity=0.5, wpd=0.3)
                if n == 1:
                    make_gold(candidate, valid=True)
                elif n == 2:
                    make_item(self.dataset, candidate)

    def test_the_candidates_table_fits_the_screen_and_names_generators_plainly(self):
        self._candidates()
        page = self.open("boss", f"/datasets/{self.dataset.pk}/candidates/", viewport={"width": 1280, "height": 800})
        self.assertLessEqual(page.evaluate("document.documentElement.scrollWidth"), 1280)
        # No sideways scrolling inside the table either: every column is on screen.
        self.assertLessEqual(*page.eval_on_selector(".table-wrap", "e => [e.scrollWidth, e.clientWidth]"))
        table = page.locator("#candidates-table").bounding_box()
        self.assertLessEqual(table["x"] + table["width"], 1280)
        pqi = page.locator("tr.candidate-row .pqi-cell").first.bounding_box()
        self.assertLessEqual(pqi["x"] + pqi["width"], 1280, "the scores are on screen")
        # Plain names for teachers, the technical one on hover.
        name = page.locator('tr.candidate-row[data-generator="pp_permutation+reorder+synonym"] .generator-name').first
        self.assertEqual(name.inner_text(), "Moved phrases + reordered sentences + synonyms")
        self.assertEqual(name.get_attribute("title"), "pp_permutation+reorder+synonym")
        self.assertIn("Passive voice + reordered sentences",
                      page.inner_text('#filter-generator option[value="passive+reorder"]'))
        import torch

        here = "GPU" if torch.cuda.is_available() else "CPU"  # no broker in tests: this server's device
        self.assertIn(f"runs here, on the {here}", page.text_content("#generate-device"))
        shot(page, "candidates-desktop")

        page.set_viewport_size(PHONE)
        self.assertLessEqual(page.evaluate("document.documentElement.scrollWidth"), PHONE["width"])
        cells = page.locator("tr.candidate-row").first.locator("td")
        self.assertEqual(cells.first.evaluate("e => getComputedStyle(e).display"), "block")
        first, second = cells.nth(0).bounding_box(), cells.nth(1).bounding_box()
        self.assertGreaterEqual(second["y"], first["y"] + first["height"] - 1, "cells stack on a phone")
        shot(page, "candidates-phone")

    # --- dataset page ------------------------------------------------------------------------

    def test_import_a_file_then_export_from_the_dataset_page(self):
        empty = Dataset.objects.create(name="fresh")
        page = self.open("boss", f"/datasets/{empty.pk}/", viewport={"width": 1280, "height": 900})
        self.assertIn("Import", page.inner_text("#dataset-tools"))
        self.assertTrue(page.is_visible("#empty-hint"))
        self.assertEqual(page.inner_text('[data-count="problems"]'), "0")
        self.assertFalse(page.is_visible("#import-form"))

        # A bad file: the server's message, naming the line, and nothing imported.
        page.click("#import-toggle")
        page.select_option("#import-format", "jsonl")
        page.set_input_files("#import-file", files=[{
            "name": "bad.jsonl", "mimeType": "application/x-ndjson", "buffer": b'{"text": "ok 1"}\n{"nope": 1}\n'}])
        page.click("#import-submit")
        page.wait_for_selector("#import-status.status-error")
        self.assertIn("line 2", page.inner_text("#import-status"))
        self.assertIn("bad.jsonl", page.inner_text("#import-status"))
        self.assertEqual(Problem.objects.filter(dataset=empty).count(), 0)

        lines = [
            '{"text": "Tom has 3 apples and buys 2 more. How many apples does he have?", "answer": "5"}',
            '{"text": "A bus drives 80 km in 2 hours. What is its speed?", "answer": "40"}',
            '{"text": "Mia reads 12 pages a day. How many pages in 5 days?", "answer": "60"}',
        ]
        page.set_input_files("#import-file", files=[{
            "name": "three.jsonl", "mimeType": "application/x-ndjson", "buffer": "\n".join(lines).encode()}])
        page.click("#import-submit")
        page.wait_for_function("document.querySelector('[data-count=problems]').textContent.trim() === '3'",
                               timeout=15000)
        self.assertIn("Imported 3 problems.", page.inner_text("#import-status"))
        self.assertEqual(Problem.objects.filter(dataset=empty).count(), 3)
        self.assertFalse(page.is_visible("#empty-hint"))
        self.assertEqual(page.locator(".problems-table tbody tr").count(), 3)

        # The export menu: each format the export API offers, as a download.
        page.click("#import-toggle")
        page.click("#export-menu summary")
        links = page.eval_on_selector_all("#export-menu a[download]", "as => as.map(a => a.getAttribute('href'))")
        self.assertIn(f"/api/v1/datasets/{empty.pk}/export/?what=problems&format=csv", links)
        self.assertIn(f"/api/v1/datasets/{empty.pk}/export/?what=labels&format=jsonl", links)
        self.assertEqual(len(links), 8)
        self.assertEqual(page.get_attribute("#candidates-link", "href"), f"/datasets/{empty.pk}/candidates/")
        shot(page, "dataset-import-export")
        with page.expect_download() as download:
            page.click(f'#export-menu a[href="/api/v1/datasets/{empty.pk}/export/?what=problems&format=jsonl"]')
        with open(download.value.path()) as exported:
            self.assertEqual(len(exported.read().splitlines()), 3)
