"""The annotation pages and the dashboard: login, roles, blind labelling, highlighting,
guidelines, agreement numbers, adjudication and the score histogram."""
from __future__ import annotations

import re

from django.test import SimpleTestCase, TestCase
from django.urls import reverse

from annotation import services
from annotation.guidelines import render_guidelines
from annotation.models import AnnotationItem, GoldLabel
from corpus.models import Dataset
from modelhub.models import ModelVersion
from paralab.dashboard import histogram_svg
from paraphrases.models import Score

from ..corpus.factories import make_candidate, make_dataset, make_label, make_problem, make_user

GUIDELINES = "# Rules\n\nA pair is **valid** when every number stays.\n\n<script>alert('x')</script>"
HISTOGRAM = {
    "edges": [round(-1 + 0.1 * i, 2) for i in range(21)],
    "valid": [0] * 14 + [1, 2, 3, 2, 1, 0],
    "invalid": [0, 1, 2, 3, 1, 1] + [0] * 14,
}


def _pairs(dataset, n, *, prefix="Pair"):
    items = []
    for i in range(n):
        problem = make_problem(dataset, f"{prefix} {i}: John drives {i + 12} km from Boston in 3 hours. How fast is he?")
        candidate = make_candidate(problem, f"In 3 hours John covers {i + 12} km from Boston. What is his speed? ({prefix} {i})")
        items.append(AnnotationItem.objects.create(dataset=dataset, candidate=candidate, required_labels=2))
    return items


class AnnotationPageSetup(TestCase):
    @classmethod
    def setUpTestData(cls):
        cls.ana = make_user("ana")
        cls.ben = make_user("ben")
        cls.boss = make_user("boss", staff=True)
        cls.dataset = make_dataset("loop", annotators=[cls.ana, cls.ben], description="Speed problems")
        Dataset.objects.filter(pk=cls.dataset.pk).update(guidelines=GUIDELINES)
        cls.dataset.refresh_from_db()
        cls.other = make_dataset("elsewhere")
        _pairs(cls.other, 1, prefix="Other")
        cls.items = _pairs(cls.dataset, 4)


class LoginAndRoleTests(AnnotationPageSetup):
    def urls(self):
        return [
            reverse("annotate"),
            reverse("annotate-dataset", args=[self.dataset.pk]),
            reverse("annotate-labels", args=[self.dataset.pk]),
            reverse("adjudicate", args=[self.dataset.pk]),
            reverse("dashboard"),
        ]

    def test_every_page_needs_a_login(self):
        for url in self.urls():
            with self.subTest(url=url):
                response = self.client.get(url)
                self.assertEqual(response.status_code, 302)
                self.assertTrue(response["Location"].startswith("/login/?next="))

    def test_annotators_cannot_open_the_dashboard_or_adjudication(self):
        self.client.force_login(self.ana)
        self.assertEqual(self.client.get(reverse("dashboard")).status_code, 403)
        self.assertEqual(self.client.get(reverse("adjudicate", args=[self.dataset.pk])).status_code, 403)

    def test_staff_open_dashboard_and_adjudication_and_missing_datasets_are_404(self):
        self.client.force_login(self.boss)
        self.assertEqual(self.client.get(reverse("dashboard")).status_code, 200)
        self.assertEqual(self.client.get(reverse("adjudicate", args=[self.dataset.pk])).status_code, 200)
        self.assertEqual(self.client.get(reverse("adjudicate", args=[999999])).status_code, 404)

    def test_a_dataset_the_annotator_is_not_a_member_of_is_not_found(self):
        self.client.force_login(self.ana)
        self.assertEqual(self.client.get(reverse("annotate-dataset", args=[self.other.pk])).status_code, 404)
        self.assertEqual(self.client.get(reverse("annotate-labels", args=[self.other.pk])).status_code, 404)
        # Staff are not annotators of a dataset unless they are members either.
        self.client.force_login(self.boss)
        self.assertEqual(self.client.get(reverse("annotate-dataset", args=[self.dataset.pk])).status_code, 404)

    def test_home_sends_annotators_to_their_queues_and_staff_to_the_datasets(self):
        self.client.force_login(self.ana)
        self.assertRedirects(self.client.get("/"), reverse("annotate"))
        self.client.force_login(self.boss)
        self.assertRedirects(self.client.get("/"), reverse("dataset-list"))

    def test_navigation_links_follow_the_role(self):
        self.client.force_login(self.ana)
        page = self.client.get(reverse("annotate")).content.decode()
        self.assertIn(f'href="{reverse("annotate")}"', page)
        self.assertNotIn(f'href="{reverse("dashboard")}"', page)
        self.client.force_login(self.boss)
        page = self.client.get(reverse("annotate")).content.decode()
        self.assertIn(f'href="{reverse("dashboard")}"', page)


class QueueAndLabellingPageTests(AnnotationPageSetup):
    def test_queue_lists_member_datasets_with_progress(self):
        item = services.annotation_next(user=self.ana, dataset=self.dataset)
        services.label_submit(user=self.ana, item=item, valid=True)
        self.client.force_login(self.ana)
        response = self.client.get(reverse("annotate"))
        self.assertContains(response, reverse("annotate-dataset", args=[self.dataset.pk]))
        self.assertNotContains(response, "elsewhere")
        self.assertContains(response, "<strong>1</strong> / 4 done")
        self.assertContains(response, 'aria-valuenow="1"')
        self.assertContains(response, "width: 25%")

    def test_labelling_screen_has_guidelines_ratings_shortcuts_and_no_external_assets(self):
        self.client.force_login(self.ana)
        response = self.client.get(reverse("annotate-dataset", args=[self.dataset.pk]))
        page = response.content.decode()
        # Guidelines rendered from Markdown, raw HTML shown as text, never run.
        self.assertIn("<strong>valid</strong>", page)
        self.assertIn("&lt;script&gt;alert", page)
        self.assertNotIn("<script>alert", page)
        for key in ("solvability", "diversity", "fluency"):
            self.assertIn(f'name="{key}"', page)
            self.assertEqual(len(re.findall(rf'name="{key}" id="{key}-\d"', page)), 6)
        self.assertIn('id="help-dialog"', page)
        self.assertIn('aria-keyshortcuts="v"', page)
        self.assertIn('data-done="0" data-total="4"', page)
        for asset in ("paralab/annotate.js", "paralab/textview.js", "paralab/annotate.css"):
            self.assertIn(asset, page)
        self.assertIsNone(re.search(r'(src|href)="(https?:)?//', page), "no asset may come from another host")

    def test_labelling_is_blind_to_model_scores_and_other_labels(self):
        version = ModelVersion.objects.create(kind="paraqd", base_model="tiny", status="active")
        Score.objects.create(candidate=self.items[0].candidate, scorer_version="paraqd:v1", model_version=version,
                             paraqd=0.123456)
        make_label(self.items[0], self.ben, valid=False, comment="ben-secret-comment")
        self.client.force_login(self.ana)
        for url in (reverse("annotate-dataset", args=[self.dataset.pk]), reverse("annotate-labels", args=[self.dataset.pk])):
            page = self.client.get(url).content.decode()
            self.assertNotIn("0.123", page)
            self.assertNotIn("ben-secret-comment", page)

    def test_my_labels_shows_own_labels_highlighted_with_history_and_an_edit_link(self):
        item = services.annotation_next(user=self.ana, dataset=self.dataset)
        services.label_submit(user=self.ana, item=item, valid=True, solvability=4, comment="first")
        services.label_submit(user=self.ana, item=item, valid=False, solvability=2, comment="second thoughts")
        self.client.force_login(self.ana)
        response = self.client.get(reverse("annotate-labels", args=[self.dataset.pk]))
        self.assertContains(response, "second thoughts")
        self.assertContains(response, 'class="verdict verdict-invalid"')
        self.assertContains(response, f'?item={item.pk}"')
        self.assertContains(response, "2 versions")
        page = response.content.decode()
        # Numbers, units and names of both texts are highlighted.
        self.assertRegex(page, r'<mark class="hl hl-number" title="number: integer">1\d</mark>')
        self.assertIn('<mark class="hl hl-unit" title="unit: length">km</mark>', page)
        self.assertIn('<mark class="hl hl-entity" title="name: person">John</mark>', page)
        self.assertIn('<mark class="hl hl-entity" title="name: gpe">Boston</mark>', page)
        self.assertEqual(page.count('class="verdict'), 1, "only ana's one label is listed")


class AdjudicationPageTests(AnnotationPageSetup):
    def test_lists_human_disagreements_with_each_label_and_records_the_decision(self):
        split, agreed = self.items[0], self.items[1]
        make_label(split, self.ana, valid=True)
        make_label(split, self.ben, valid=False)
        make_label(agreed, self.ana, valid=True)
        make_label(agreed, self.ben, valid=True)
        self.client.force_login(self.boss)
        url = reverse("adjudicate", args=[self.dataset.pk])
        page = self.client.get(url).content.decode()
        self.assertIn(f'data-item="{split.pk}"', page)
        self.assertNotIn(f'data-item="{agreed.pk}"', page)
        self.assertIn("ana: valid", page)
        self.assertIn("ben: invalid", page)
        self.assertIn('<mark class="hl hl-unit"', page)
        self.assertIn('<span data-field="pending">1</span>', page)

        response = self.client.post(
            f"/api/v1/annotation/items/{split.pk}/adjudicate/", {"valid": False, "note": "changes the speed"},
            content_type="application/json",
        )
        self.assertEqual(response.status_code, 200)
        page = self.client.get(url).content.decode()
        self.assertIn("by boss", page)
        self.assertIn('<span data-field="pending">0</span>', page)
        gold = GoldLabel.objects.get(candidate=split.candidate)
        self.assertEqual((gold.valid, gold.source, gold.decided_by), (False, "adjudication", self.boss))


class DashboardPageTests(AnnotationPageSetup):
    def _label(self):
        # ana: T T F F, ben: T F F F → observed 3/4, expected 1/2, Cohen's kappa 0.5.
        for item, a, b in zip(self.items, [True, True, False, False], [True, False, False, False]):
            make_label(item, self.ana, valid=a, solvability=5 if a else 1)
            make_label(item, self.ben, valid=b, solvability=5 if b else 1)

    def test_progress_agreement_and_disagreements(self):
        self._label()
        self.client.force_login(self.boss)
        response = self.client.get(reverse("dashboard"), {"dataset": self.dataset.pk})
        self.assertEqual(response.context["dataset"], self.dataset)
        page = response.content.decode()
        self.assertIn('data-annotator="ana"', page)
        self.assertIn("4 / 4", page)
        self.assertRegex(page, r'<td class="num-col">4</td><td class="num-col">75%</td><td class="num-col kappa" data-field="kappa">0.50</td>')
        self.assertIn("quadratic-weighted kappa", page)
        self.assertIn("Fleiss", page)
        self.assertIn(reverse("adjudicate", args=[self.dataset.pk]), page)
        self.assertIn("Adjudicate (1 open)", page)
        self.assertIn("No active ParaQD version yet", page)
        self.assertIn('id="retrain-button"', page)
        self.assertIn('data-url="/api/v1/models/paraqd/retrain/"', page)

    def test_many_annotator_pairs_show_the_busiest_and_say_how_many(self):
        from unittest import mock

        cid = make_user("cid")
        self.dataset.annotators.add(cid)
        self._label()
        make_label(self.items[0], cid, valid=True, solvability=4)  # cid shares one item with each of the two
        self.client.force_login(self.boss)
        with mock.patch("paralab.dashboard.AGREEMENT_PAIRS_SHOWN", 1):
            page = self.client.get(reverse("dashboard"), {"dataset": self.dataset.pk}).content.decode()
        table = page[page.index('id="agreement-table"'):page.index("</table>", page.index('id="agreement-table"'))]
        self.assertEqual(table.count("<tr>"), 2)  # the header and the one pair shown: ana · ben, 4 shared
        self.assertIn("ana · ben", table)
        self.assertIn("The 1 pairs of annotators who share the most items, of 3", page)
        self.assertNotIn('id="agreement-more"', self.client.get(reverse("dashboard"), {"dataset": self.dataset.pk})
                         .content.decode())  # 3 pairs fit the usual 25

    def test_a_large_datasets_summaries_are_cached_and_progress_stays_live(self):
        from unittest import mock

        from django.core.cache import cache

        self.addCleanup(cache.clear)
        self.client.force_login(self.boss)
        url = reverse("dashboard")
        with mock.patch("paralab.dashboard.SUMMARY_CACHE_MIN_PROBLEMS", 1):
            first = self.client.get(url, {"dataset": self.dataset.pk}).content.decode()
            self.assertIn('id="summaries-at"', first)
            self.assertIn("No pair labelled by two annotators yet.", first)
            self._label()
            second = self.client.get(url, {"dataset": self.dataset.pk}).content.decode()
        self.assertIn("No pair labelled by two annotators yet.", second)  # the cached agreement
        self.assertIn("4 / 4", second)  # progress is live
        live = self.client.get(url, {"dataset": self.dataset.pk}).content.decode()  # a small dataset: live
        self.assertNotIn('id="summaries-at"', live)
        self.assertIn("Fleiss", live)

    def test_beat_computes_the_large_datasets_summaries_before_anyone_asks(self):
        from unittest import mock

        from django.conf import settings
        from django.core.cache import cache

        from paralab.dashboard import dashboard_summaries_refresh
        from workers.jobs import refresh_dashboard

        self.addCleanup(cache.clear)
        entry = settings.CELERY_BEAT_SCHEDULE["dashboard-refresh"]
        self.assertEqual(entry["task"], refresh_dashboard.name)
        with mock.patch("paralab.dashboard.SUMMARY_CACHE_MIN_PROBLEMS", 4):  # "loop" has 4 problems, "elsewhere" 1
            self.assertEqual(dashboard_summaries_refresh(), 1)
            self._label()  # after the refresh: the page shows what beat computed
            self.client.force_login(self.boss)
            page = self.client.get(reverse("dashboard"), {"dataset": self.dataset.pk}).content.decode()
            self.assertIn("No pair labelled by two annotators yet.", page)
            self.assertIn('id="summaries-at"', page)
            self.assertEqual(refresh_dashboard.apply().get(), 1)  # the task, run as beat sends it
            page = self.client.get(reverse("dashboard"), {"dataset": self.dataset.pk}).content.decode()
        self.assertIn("Fleiss", page)

    def test_dataset_picker_switches_dataset(self):
        self.client.force_login(self.boss)
        response = self.client.get(reverse("dashboard"), {"dataset": self.other.pk})
        self.assertEqual(response.context["dataset"], self.other)
        self.assertContains(response, f'<option value="{self.other.pk}" selected>')

    def test_model_metrics_gate_histogram_and_human_model_disagreements(self):
        self._label()
        version = ModelVersion.objects.create(
            kind="paraqd", base_model="tiny", status="active",
            metrics={
                "eval": {"loop": {"n": 20, "macro": {"p": 0.8, "r": 0.7, "f1": 0.74, "f1_hm": 0.7467},
                                  "weighted": {"p": 0.81, "r": 0.71, "f1": 0.75, "f1_hm": 0.7567},
                                  "mu_pos": 0.61, "mu_neg": -0.42, "separation": 1.03, "threshold": 0.5,
                                  "histogram": HISTOGRAM}},
                "gate": {"rule": "promote when the candidate does not regress", "promoted": True,
                         "reason": "no regression: weighted_f1_hm 0.7567 >= 0.7000 - 0",
                         "checks": [{"metric": "weighted_f1_hm", "label": "weighted F1", "candidate": 0.7567,
                                     "active": 0.7, "passed": True}]},
            },
        )
        # Gold: the agreed pair items[0] is valid, but the model scores it below the threshold.
        GoldLabel.objects.update_or_create(candidate=self.items[0].candidate,
                                           defaults={"valid": True, "source": "agreement"})
        Score.objects.create(candidate=self.items[0].candidate, scorer_version=f"paraqd:v{version.pk}",
                             model_version=version, paraqd=-0.25)
        self.client.force_login(self.boss)
        page = self.client.get(reverse("dashboard"), {"dataset": self.dataset.pk}).content.decode()
        self.assertIn(f"<strong>v{version.pk}</strong>", page)
        self.assertIn("0.757", page)
        self.assertIn("separation 1.030", page)
        self.assertIn("promote when the candidate does not regress", page)
        self.assertIn("promoted", page)
        self.assertIn("<svg", page)
        self.assertEqual(page.count('class="bar-valid"'), 5)
        self.assertEqual(page.count('class="bar-invalid"'), 5)
        self.assertIn('class="threshold"', page)
        # The human–model table shows both sides: gold valid, model invalid at -0.250.
        section = page[page.index('id="human-model-section"'):page.index('id="model-section"')]
        self.assertIn("-0.250", section)
        self.assertIn("verdict-valid", section)
        self.assertIn("verdict-invalid", section)


    def test_a_retrained_version_without_evaluation_plots_its_held_out_split(self):
        version = ModelVersion.objects.create(
            kind="paraqd", base_model="tiny", status="active",
            metrics={"gate": {"rule": "r", "promoted": True, "reason": "ok", "checks": [],
                              "candidate": {"n": 4, "histogram": HISTOGRAM}}},
        )
        self.client.force_login(self.boss)
        page = self.client.get(reverse("dashboard"), {"dataset": self.dataset.pk}).content.decode()
        self.assertIn(f"v{version.pk} has no evaluation on", page)
        self.assertIn("held-out gold split of its retrain", page)
        self.assertEqual(page.count('class="bar-valid"'), 5)

class HistogramSvgTests(SimpleTestCase):
    def test_bars_for_nonzero_bins_scaled_per_class_with_threshold(self):
        svg = str(histogram_svg(HISTOGRAM, threshold=0.5))
        self.assertTrue(svg.startswith("<svg") and svg.endswith("</svg>"))
        self.assertEqual(svg.count('class="bar-valid"'), 5)
        self.assertEqual(svg.count('class="bar-invalid"'), 5)
        self.assertIn("valid: 3 of 9 pairs with a score in [0.60, 0.70)", svg)
        self.assertIn("threshold 0.5", svg)
        self.assertIn("9 valid and 8 invalid gold pairs", svg)

    def test_missing_or_malformed_histograms_draw_nothing(self):
        for bad in (None, {}, {"edges": [0, 1], "valid": [1, 2], "invalid": [1]},
                    {"edges": [0, "x", 1], "valid": [1, 1], "invalid": [1, 1]}, "<svg>"):
            with self.subTest(bad=bad):
                self.assertEqual(str(histogram_svg(bad)), "")

    def test_title_is_escaped(self):
        self.assertIn("&lt;b&gt;", str(histogram_svg(HISTOGRAM, title="<b>")))


class GuidelinesRenderingTests(SimpleTestCase):
    def test_markdown_renders_and_html_is_escaped(self):
        html = str(render_guidelines("## Numbers\n\n- keep *all* numbers\n- <img src=x onerror=alert(1)>"))
        self.assertIn("<h2>Numbers</h2>", html)
        self.assertIn("<em>all</em>", html)
        self.assertIn("&lt;img", html)
        self.assertNotIn("<img", html)

    def test_only_safe_link_schemes_survive(self):
        html = str(render_guidelines("[bad](javascript:alert(1)) and [good](https://example.org/guide)"))
        self.assertNotIn("javascript:", html)
        self.assertIn('href="https://example.org/guide"', html)

    def test_empty_guidelines_render_empty(self):
        self.assertEqual(str(render_guidelines("   ")), "")
