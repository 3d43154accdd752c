"""The "My labels" filters in headless Chromium: the form narrows the list by label and generator,
the pages keep the filter, and a mistyped value is refused with its parameter named."""
from __future__ import annotations

import re

from annotation import services
from annotation.models import AnnotationItem
from tests.browser.live import BROWSER_MARKS, BrowserTestCase
from tests.platform.corpus.factories import PASSWORD, make_candidate, make_dataset, make_problem, make_user

pytestmark = BROWSER_MARKS


class MyLabelsFilterLiveTests(BrowserTestCase):
    def test_filter_form_narrows_the_list_and_bad_values_are_refused(self):
        ana = make_user("ana")
        dataset = make_dataset("mine", annotators=[ana])
        answers = {}
        for n, (generator, valid) in enumerate([("stead", True), ("reorder", False), ("stead", False)]):
            problem = make_problem(dataset, f"Mary has {n + 10} pens and gives 4 to Tom. How many are left?")
            candidate = make_candidate(problem, f"Mary gives Tom 4 of her {n + 10} pens. How many remain?",
                                       generator=generator)
            item = AnnotationItem.objects.create(dataset=dataset, candidate=candidate, required_labels=1)
            self.assertEqual(services.annotation_next(user=ana, dataset=dataset), item)
            services.label_submit(user=ana, item=item, valid=valid)
            answers[item.pk] = (generator, valid)

        page = self.browser.new_page()
        url = f"/annotate/{dataset.pk}/labels/"
        page.goto(f"{self.live_server_url}/login/?next={url}")
        page.fill("#id_username", "ana")
        page.fill("#id_password", PASSWORD)
        page.click("button[type=submit]")
        page.wait_for_url(f"{self.live_server_url}{url}")
        self.assertEqual(page.locator("tr[data-item]").count(), 3)

        page.select_option("#filter-label", "invalid")
        page.select_option("#filter-generator", "stead")
        page.click("#label-filters button[type=submit]")
        page.wait_for_url(re.compile(r".*label=invalid&generator=stead$"))
        shown = [int(pk) for pk in page.eval_on_selector_all("tr[data-item]", "rows => rows.map(r => r.dataset.item)")]
        self.assertEqual(shown, [pk for pk, answer in answers.items() if answer == ("stead", False)])
        self.assertIn("1 label matching the filter", page.inner_text("#label-count"))
        self.assertEqual(page.input_value("#filter-label"), "invalid")

        response = page.goto(f"{self.live_server_url}{url}?label=wrong")
        self.assertEqual(response.status, 400)
        self.assertIn("Bad filter label", page.inner_text("#filter-error"))
        self.assertIn("allowed: valid, invalid", page.inner_text("#filter-error"))
        self.assertEqual(page.locator("tr[data-item]").count(), 0)
        page.click("#label-filters a.button")  # Clear
        page.wait_for_url(f"{self.live_server_url}{url}")
        self.assertEqual(page.locator("tr[data-item]").count(), 3)
