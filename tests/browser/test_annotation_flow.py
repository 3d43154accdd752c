"""The annotation loop in headless Chromium: an annotator labels with the keyboard alone, sees
progress move and undoes a label; staff see agreement on the dashboard and retrain ParaQD from it."""
from __future__ import annotations

import os
import re

from django.test import override_settings

from annotation import selectors, services
from annotation.models import AnnotationItem, Assignment, GoldLabel, Label
from corpus.models import Dataset
from corpus.text import pair_checks
from jobs.models import Job
from modelhub.models import ModelVersion
from tests.browser.live import BROWSER_MARKS, BrowserTestCase, shot
from tests.platform.corpus.factories import PASSWORD, make_candidate, make_dataset, make_problem, make_user
from tests.platform.paraphrases.helpers import ParaQDSettingsMixin

pytestmark = BROWSER_MARKS

PAIRS = [
    ("John bought 5 apples at the market on Monday. He ate 2 apples. How many apples does John have now?",
     "On Monday John bought 5 apples at the market and ate 2 of them. How many apples are left?"),
    ("A train covers 300 km in 5 hours. What is its speed in km/h?",
     "A train covers 300 km. What is its speed in km/h?"),
    ("Mary has 12 pens and gives 4 pens to Tom. How many pens does Mary have left?",
     "Mary gives Tom 4 of her 12 pens. How many pens does she still have?"),
    ("A shop sold 40 books on Monday and 25 books on Tuesday. How many books did the shop sell in total?",
     "How many books did a shop sell in total if it sold 40 on Monday and 25 on Tuesday?"),
    ("Ravi walks 3 km every day. How many km does he walk in 7 days?",
     "Ravi walks 4 km every day. How many km does he walk in 7 days?"),
]
# ben labels first: valid except the pair that drops a number (index 1) and the one that changes it (4).
BEN = [True, False, True, True, False]
KEYS = {True: "v", False: "i"}


@override_settings(PARALAB_RETRAIN_PRESET="tiny", PARALAB_RETRAIN_MAX_PROBLEMS=None, PARALAB_RETRAIN_TOLERANCE=0.0)
class AnnotationFlowLiveTests(ParaQDSettingsMixin, BrowserTestCase):
    def setUp(self):
        super().setUp()
        self.ana = make_user("ana")
        self.ben = make_user("ben")
        self.boss = make_user("boss", staff=True)
        self.dataset = make_dataset("loop", annotators=[self.ana, self.ben])
        Dataset.objects.filter(pk=self.dataset.pk).update(
            labels_per_item=2, queue_order=Dataset.QueueOrder.RANDOM,
            guidelines="# Guidelines\n\nA pair is **valid** when every number and unit stays.",
        )
        self.dataset.refresh_from_db()
        self.items = []
        for i, (problem_text, paraphrase) in enumerate(PAIRS):
            problem = make_problem(self.dataset, problem_text)
            candidate = make_candidate(problem, paraphrase, generator="stead")
            self.items.append(AnnotationItem.objects.create(dataset=self.dataset, candidate=candidate, required_labels=2))
        for _ in PAIRS:
            item = services.annotation_next(user=self.ben, dataset=self.dataset)
            services.label_submit(user=self.ben, item=item, valid=BEN[self.items.index(item)])

    def ben_says(self, item_id) -> bool:
        return BEN[[item.pk for item in self.items].index(int(item_id))]

    def login(self, username, next_url):
        context = self.browser.new_context(viewport={"width": 1200, "height": 900})
        page = context.new_page()
        page.goto(f"{self.live_server_url}/login/?next={next_url}")
        page.fill("#id_username", username)
        page.fill("#id_password", PASSWORD)
        page.press("#id_password", "Enter")
        page.wait_for_url(f"{self.live_server_url}{next_url}")
        return context, page

    def wait_progress(self, page, done, total):
        page.wait_for_function(
            f"document.getElementById('progress-text').textContent === '{done} / {total} done'", timeout=15000)

    def wait_new_item(self, page, old_item):
        page.wait_for_function(
            f"(document.getElementById('annotator').dataset.item || '') !== '{old_item}'"
            " && !document.getElementById('annotator').hasAttribute('aria-busy')", timeout=15000)
        return page.get_attribute("#annotator", "data-item")

    def test_keyboard_labelling_undo_dashboard_and_retrain(self):
        context, page = self.login("ana", "/annotate/")
        # The queue shows the dataset with nothing done yet; Enter on the link opens it.
        self.assertIn("0 / 5 done", page.inner_text(f'li[data-dataset-id="{self.dataset.pk}"]').replace("\n", " "))
        shot(page, "queue")
        page.focus(f'a[href="/annotate/{self.dataset.pk}/"]')
        page.keyboard.press("Enter")
        page.wait_for_url(f"{self.live_server_url}/annotate/{self.dataset.pk}/")
        page.wait_for_selector("#item-view:not([hidden])")
        first = page.get_attribute("#annotator", "data-item")
        self.wait_progress(page, 0, 5)

        # The numbers, units and names of the pair are compared at a glance: the server's verdict.
        checks = page.inner_text("#checks")
        self.assertIn("Numbers", checks)
        shown = AnnotationItem.objects.get(pk=first)
        for check in pair_checks(shown.candidate.problem.text, shown.candidate.text, shown.spans).values():
            if check["message"]:
                self.assertIn(check["message"], checks)
        # Both texts are highlighted, and the diff marks what changed; no model score anywhere.
        self.assertGreater(page.locator("#problem-text mark.hl-number").count(), 0)
        self.assertGreater(page.locator("#paraphrase-text mark.hl-number").count(), 0)
        self.assertGreater(page.locator("#paraphrase-text ins.diff-ins").count()
                           + page.locator("#problem-text del.diff-del").count(), 0)
        item = AnnotationItem.objects.get(pk=first)
        self.assertEqual(page.inner_text("#problem-text"), item.candidate.problem.text)
        self.assertEqual(page.inner_text("#paraphrase-text"), item.candidate.text)

        shot(page, "label-desktop")
        # ? opens the shortcut help, Esc closes it; g shows the guidelines.
        page.keyboard.press("?")
        page.wait_for_selector("#help-dialog[open]")
        shot(page, "label-help")
        page.keyboard.press("Escape")
        page.wait_for_selector("#help-dialog:not([open])", state="attached")
        page.keyboard.press("g")
        page.wait_for_selector("#guidelines-dialog[open]")
        self.assertIn("every number and unit stays", page.inner_text("#guidelines"))
        page.keyboard.press("Escape")

        # Item 1: rate solvability 5 and diversity 3 (digits move down the rows), then a comment
        # whose letters (v, i, s, u) must not fire shortcuts, Esc out of the box, v for valid.
        page.keyboard.press("5")
        page.keyboard.press("3")
        page.keyboard.press("c")
        page.keyboard.type("units kept; vis-a-vis fine")
        shot(page, "label-rated")
        self.assertEqual(page.get_attribute("#annotator", "data-item"), first)
        self.wait_progress(page, 0, 5)
        page.keyboard.press("Escape")
        page.keyboard.press("v")
        self.wait_progress(page, 1, 5)
        second = self.wait_new_item(page, first)
        label = Label.objects.get(item_id=first, annotator=self.ana)
        self.assertEqual((label.valid, label.solvability, label.diversity, label.fluency, label.comment),
                         (True, 5, 3, None, "units kept; vis-a-vis fine"))
        # The form starts fresh for the next pair.
        self.assertTrue(page.is_checked("#solvability-none"))
        self.assertEqual(page.input_value("#comment"), "")

        # Item 2: the opposite of ben's answer; item 3: ben's answer (i for invalid, v for valid).
        # Which pairs ana gets depends on the random order's seed, her user id: her answers are
        # chosen so that she disagrees with ben on one pair and agrees on another whatever they are.
        answer_second = not self.ben_says(second)
        page.keyboard.press(KEYS[answer_second])
        self.wait_progress(page, 2, 5)
        third = self.wait_new_item(page, second)
        answer_third = self.ben_says(third)
        page.keyboard.press(KEYS[answer_third])
        self.wait_progress(page, 3, 5)
        self.wait_new_item(page, third)
        self.assertEqual(Label.objects.filter(annotator=self.ana).count(), 3)
        self.assertEqual(Label.objects.get(item_id=second, annotator=self.ana).valid, answer_second)

        # u undoes the last label: that pair is back on screen and progress goes down.
        page.keyboard.press("u")
        self.wait_progress(page, 2, 5)
        page.wait_for_function(f"document.getElementById('annotator').dataset.item === '{third}'", timeout=15000)
        self.assertIn("Undone", page.inner_text("#status"))
        self.assertFalse(Label.objects.filter(item_id=third, annotator=self.ana).exists())
        # ...and it can be labelled again.
        page.keyboard.press(KEYS[answer_third])
        self.wait_progress(page, 3, 5)
        self.assertEqual(Label.objects.get(item_id=third, annotator=self.ana).valid, answer_third)

        # "My labels": re-open the first label, which comes back filled in, and change it with i.
        page.goto(f"{self.live_server_url}/annotate/{self.dataset.pk}/labels/")
        shot(page, "my-labels")
        page.focus(f'tr[data-item="{first}"] a.button')
        page.keyboard.press("Enter")
        page.wait_for_function(f"document.getElementById('annotator').dataset.item === '{first}'", timeout=15000)
        self.assertTrue(page.is_visible("#edit-banner"))
        self.assertTrue(page.is_checked("#solvability-5"))
        self.assertTrue(page.is_checked("#diversity-3"))
        self.assertEqual(page.input_value("#comment"), "units kept; vis-a-vis fine")
        page.keyboard.press("i")
        page.wait_for_function(
            f"document.getElementById('annotator').dataset.item !== '{first}'", timeout=15000)
        self.wait_progress(page, 3, 5)
        label = Label.objects.get(item_id=first, annotator=self.ana)
        self.assertEqual((label.valid, label.solvability, label.comment), (False, 5, "units kept; vis-a-vis fine"))
        self.assertEqual(list(label.history.order_by("id").values_list("action", flat=True)), ["created", "updated"])
        context.close()

        # Staff: the dashboard shows the pair's agreement as the selector computes it.
        agreement = selectors.dataset_agreement(dataset=self.dataset)
        pair = agreement["binary"]["pairs"][0]
        self.assertEqual((pair["a"], pair["b"], pair["n"]), ("ana", "ben", 3))
        agreed = {label.item.candidate_id for label in Label.objects.filter(annotator=self.ana)
                  if label.valid == self.ben_says(label.item_id)}
        self.assertIn(AnnotationItem.objects.get(pk=third).candidate_id, agreed)
        self.assertEqual(set(GoldLabel.objects.filter(source=GoldLabel.Source.AGREEMENT)
                             .values_list("candidate_id", flat=True)), agreed)
        context, page = self.login("boss", f"/dashboard/?dataset={self.dataset.pk}")
        row = page.inner_text("#agreement-table tbody tr")
        self.assertIn("ana · ben", row)
        expected = "n/a" if pair["kappa"] is None else f"{pair['kappa']:.2f}"
        self.assertEqual(page.inner_text('#agreement-table [data-field="kappa"]'), expected)
        self.assertRegex(page.inner_text("#progress-table"), re.compile(r"ana\s+3 / 5"))
        shot(page, "dashboard")

        # Retrain from the button: the job's progress is followed until it succeeds.
        versions_before = ModelVersion.objects.filter(kind="paraqd").count()
        page.focus("#retrain-button")
        page.keyboard.press("Enter")
        page.wait_for_function(
            "['succeeded', 'failed'].includes(document.getElementById('retrain').dataset.status)", timeout=60000)
        job = Job.objects.get(pk=page.get_attribute("#retrain", "data-job"))
        self.assertEqual(job.status, Job.Status.SUCCEEDED, job.error)
        self.assertEqual(page.get_attribute("#retrain", "data-status"), "succeeded")
        self.assertEqual(page.inner_text("#retrain-status"), "succeeded")
        self.assertEqual(ModelVersion.objects.filter(kind="paraqd").count(), versions_before + 1)
        # After a reload the gate's decision for the new version is on the dashboard.
        shot(page, "dashboard-retrained")
        page.reload()
        self.assertIn("Last decision", page.inner_text("#gate-section"))
        shot(page, "dashboard-after-reload")
        page.set_viewport_size({"width": 390, "height": 844})
        self.assertLessEqual(page.evaluate("document.documentElement.scrollWidth"), 390, "no sideways scrolling on a phone")
        page.goto(f"{self.live_server_url}/adjudicate/{self.dataset.pk}/")
        shot(page, "adjudicate")
        self.assertLessEqual(page.evaluate("document.documentElement.scrollWidth"), 390)
        self.assertEqual(page.locator(".adjudication-card").count(),
                         len(selectors.disagreements(dataset=self.dataset, kind="human_human")))
        context.close()

    def test_phone_sized_screen_stacks_the_pair(self):
        context, page = self.login("ana", f"/annotate/{self.dataset.pk}/")
        page.set_viewport_size({"width": 390, "height": 844})
        page.wait_for_selector("#item-view:not([hidden])")
        left = page.locator("#problem-text").bounding_box()
        right = page.locator("#paraphrase-text").bounding_box()
        self.assertGreater(right["y"], left["y"] + left["height"] - 1, "the paraphrase goes below the original")
        self.assertLessEqual(page.evaluate("document.documentElement.scrollWidth"), 390)
        shot(page, "label-phone")
        # s skips: the pair is handed back and another one comes up.
        skipped = page.get_attribute("#annotator", "data-item")
        page.keyboard.press("s")
        self.wait_new_item(page, skipped)
        self.assertIn("Skipped", page.inner_text("#status"))
        self.assertEqual(Assignment.objects.get(item_id=skipped, annotator=self.ana).status, Assignment.Status.SKIPPED)
        self.assertFalse(Label.objects.filter(item_id=skipped, annotator=self.ana).exists())
        # The word diff: an LCS over words marks what the paraphrase dropped and added.
        diff = page.evaluate(
            "(() => { const t = window.ParalabText;"
            " const a = t.tokenize('A train covers 300 km in 5 hours.');"
            " const b = t.tokenize('A train covers 300 km.');"
            " const d = t.diffTokens(a, b);"
            " return [Object.keys(d.a).map(i => a[i].norm), Object.keys(d.b).length]; })()")
        self.assertEqual(diff, [["in", "5", "hours"], 0])
        # A word deleted on one side and inserted on the other is shown as moved, not lost.
        moved = page.evaluate(
            "(() => { const l = document.createElement('div'), r = document.createElement('div');"
            " window.ParalabText.renderPair(l, r, {text: 'Mary has 12 pens and gives 4 to Tom.', spans: []},"
            "   {text: 'Mary gives Tom 4 of her 12 pens.', spans: []});"
            " const texts = (el, sel) => Array.from(el.querySelectorAll(sel)).map(e => e.textContent);"
            " return [texts(l, '.diff-move'), texts(r, '.diff-move'), texts(l, 'del'), texts(r, 'ins')]; })()")
        self.assertIn("12", " ".join(moved[0]))
        self.assertIn("12", " ".join(moved[1]))
        self.assertNotIn("12", " ".join(moved[2] + moved[3]))
        context.close()
