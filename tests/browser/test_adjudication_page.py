"""The adjudication screen in headless Chromium: staff settle a disagreement with one click or
from the keyboard, the gold label records who decided, without a reload; the filters narrow it."""
from __future__ import annotations

import re

from annotation import services
from annotation.models import AnnotationItem, GoldLabel
from tests.browser.live import BROWSER_MARKS, BrowserTestCase, shot
from tests.platform.corpus.factories import PASSWORD, make_candidate, make_dataset, make_problem, make_user

pytestmark = BROWSER_MARKS


class AdjudicationPageLiveTests(BrowserTestCase):
    def test_a_decision_becomes_the_gold_label_with_its_author(self):
        ana, ben = make_user("ana"), make_user("ben")
        make_user("boss", staff=True)
        dataset = make_dataset("split", annotators=[ana, ben])
        problem = make_problem(dataset, "A train covers 300 km in 5 hours. What is its speed?")
        candidate = make_candidate(problem, "A train covers 300 km. What is its speed?")
        item = AnnotationItem.objects.create(dataset=dataset, candidate=candidate, required_labels=2)
        for user, valid in ((ana, True), (ben, False)):
            self.assertEqual(services.annotation_next(user=user, dataset=dataset), item)
            services.label_submit(user=user, item=item, valid=valid)
        self.assertFalse(GoldLabel.objects.filter(candidate=candidate).exists())

        page = self.browser.new_page()
        page.goto(f"{self.live_server_url}/login/?next=/adjudicate/{dataset.pk}/")
        page.fill("#id_username", "boss")
        page.fill("#id_password", PASSWORD)
        page.click("button[type=submit]")
        page.wait_for_url(f"{self.live_server_url}/adjudicate/{dataset.pk}/")
        self.assertEqual(page.inner_text('#adjudication-summary [data-field="pending"]'), "1")
        card = f'.adjudication-card[data-item="{item.pk}"]'
        # the server's check: the dropped "5 hours" is a number and a unit lost
        self.assertEqual(page.inner_text(f'{card} [data-check="numbers"]'), "\u26a0 Numbers: 5 only in the original")
        self.assertEqual(page.inner_text(f'{card} [data-check="units"]'), "\u26a0 Units: hour only in the original")
        page.fill(f"{card} input[name=note]", "the distance is kept, the time is lost")
        page.click(f"{card} .decision-invalid")
        page.wait_for_function(f"document.querySelector('{card}').dataset.decided === '1'", timeout=8000)
        self.assertIn("invalid by boss", page.inner_text(f'{card} [data-field="decision"]'))
        self.assertEqual(page.inner_text('#adjudication-summary [data-field="pending"]'), "0")
        gold = GoldLabel.objects.get(candidate=candidate)
        self.assertEqual((gold.valid, gold.source, gold.decided_by.username, gold.note),
                         (False, "adjudication", "boss", "the distance is kept, the time is lost"))


class AdjudicationKeyboardLiveTests(BrowserTestCase):
    """j/k move between cards, v/i decide the current one and move on, n writes a note; each
    annotator's ratings and comment stand by their label; the filters narrow the cards."""

    def setUp(self):
        super().setUp()
        self.ana, self.ben = make_user("ana"), make_user("ben")
        make_user("boss", staff=True)
        self.dataset = make_dataset("keys", annotators=[self.ana, self.ben])
        self.items = []
        for n, generator in enumerate(["stead", "reorder", "stead"]):
            problem = make_problem(self.dataset, f"A train covers {300 + n} km in 5 hours. What is its speed?")
            candidate = make_candidate(problem, f"A train covers {300 + n} km. What is its speed?", generator=generator)
            item = AnnotationItem.objects.create(dataset=self.dataset, candidate=candidate, required_labels=2)
            for user, valid in ((self.ana, True), (self.ben, False)):
                self.assertEqual(services.annotation_next(user=user, dataset=self.dataset), item)
                services.label_submit(user=user, item=item, valid=valid, solvability=5 if valid else 1,
                                      fluency=4, comment="" if valid else f"the time is lost ({n})")
            self.items.append(item)

    def open_page(self, query=""):
        page = self.browser.new_page()
        url = f"/adjudicate/{self.dataset.pk}/{query}"
        page.goto(f"{self.live_server_url}/login/?next={url.replace('&', '%26').replace('?', '%3F')}")
        page.fill("#id_username", "boss")
        page.fill("#id_password", PASSWORD)
        page.click("button[type=submit]")
        page.wait_for_url(f"{self.live_server_url}{url}")
        return page

    def card(self, item) -> str:
        return f'.adjudication-card[data-item="{item.pk}"]'

    def wait_decided(self, page, item):
        page.wait_for_function(f"document.querySelector('{self.card(item)}').dataset.decided === '1'", timeout=8000)

    def test_keyboard_decides_card_after_card(self):
        first, second, third = self.items
        page = self.open_page()
        self.assertEqual(page.inner_text('#adjudication-summary [data-field="pending"]'), "3")
        shortcuts = page.inner_text("#adjudication-shortcuts")
        for key in ("j", "k", "v", "i", "n"):
            self.assertIn(key, shortcuts)
        # Ratings and comment beside each label.
        self.assertIn("ana: valid", page.inner_text(f'{self.card(first)} [data-annotator="ana"]'))
        self.assertEqual(" ".join(page.inner_text(f'{self.card(first)} li[data-annotator="ben"] [data-field="ratings"]').split()),
                         "· S 1 · D – · F 4")
        self.assertEqual(page.inner_text(f'{self.card(first)} .label-comments [data-field="comment"]'), "the time is lost (0)")
        # The first undecided card is current from the start: v decides it and moves on.
        self.assertEqual(page.get_attribute(self.card(first), "aria-current"), "true")
        page.keyboard.press("v")
        self.wait_decided(page, first)
        page.wait_for_function(f"document.querySelector('{self.card(second)}').getAttribute('aria-current') === 'true'")
        self.assertEqual(page.inner_text('#adjudication-summary [data-field="pending"]'), "2")
        # k goes back, j forward again; i decides the second card.
        shot(page, "adjudicate-keyboard")
        page.keyboard.press("k")
        self.assertEqual(page.get_attribute(self.card(first), "aria-current"), "true")
        self.assertIsNone(page.get_attribute(self.card(second), "aria-current"))
        page.keyboard.press("j")
        self.assertEqual(page.get_attribute(self.card(second), "aria-current"), "true")
        page.keyboard.press("i")
        self.wait_decided(page, second)
        page.wait_for_function(f"document.querySelector('{self.card(third)}').getAttribute('aria-current') === 'true'")
        # n writes a note: the letters typed there fire nothing; Esc leaves the box, i decides.
        page.keyboard.press("n")
        page.keyboard.type("vijk: the journey time is lost")
        self.assertEqual(page.get_attribute(self.card(third), "data-decided"), "0")
        page.keyboard.press("Escape")
        page.keyboard.press("i")
        self.wait_decided(page, third)
        self.assertEqual(page.inner_text('#adjudication-summary [data-field="pending"]'), "0")
        golds = {g.candidate_id: (g.valid, g.source, g.decided_by.username, g.note) for g in GoldLabel.objects.all()}
        self.assertEqual(golds, {
            first.candidate_id: (True, "adjudication", "boss", ""),
            second.candidate_id: (False, "adjudication", "boss", ""),
            third.candidate_id: (False, "adjudication", "boss", "vijk: the journey time is lost"),
        })
        self.assertIn("invalid by boss", page.inner_text(f'{self.card(third)} [data-field="decision"]'))

    def test_filters_narrow_the_cards_and_a_bad_value_is_refused(self):
        page = self.open_page()
        self.assertEqual(page.locator(".adjudication-card").count(), 3)
        page.select_option("#filter-generator", "reorder")
        page.click("#adjudication-filters button[type=submit]")
        page.wait_for_url(re.compile(r".*generator=reorder.*"))
        self.assertEqual(page.locator(".adjudication-card").count(), 1)
        self.assertEqual(page.get_attribute(".adjudication-card", "data-item"), str(self.items[1].pk))
        page.select_option("#filter-annotator", str(self.ben.pk))
        page.select_option("#filter-label", "valid")
        page.click("#adjudication-filters button[type=submit]")
        page.wait_for_selector("#adjudication-empty")
        self.assertIn("No item of keys matches the filter", page.inner_text("#adjudication-empty"))
        response = page.goto(f"{self.live_server_url}/adjudicate/{self.dataset.pk}/?annotator=ben")
        self.assertEqual(response.status, 400)
        self.assertIn("Bad filter annotator", page.inner_text("#filter-error"))
        self.assertIn("a positive whole number", page.inner_text("#filter-error"))
        self.assertEqual(page.locator(".adjudication-card").count(), 0)
