"""The adjudication screen in headless Chromium: staff settle a disagreement with one click and
the gold label records who decided, without a reload."""
from __future__ import annotations

from annotation import services
from annotation.models import AnnotationItem, GoldLabel
from tests.browser.live import BROWSER_MARKS, BrowserTestCase
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
