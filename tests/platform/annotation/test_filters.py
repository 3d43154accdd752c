"""Filters on "My labels", the adjudication screen and the annotation API lists: by label,
annotator, disagreement and generator; a bad value is a 400 naming the parameter and what it takes."""
from __future__ import annotations

from django.test import SimpleTestCase, TestCase
from django.urls import reverse

from annotation import services
from annotation.filters import FilterError, LabelFilters, label_filters_parse
from annotation.models import AnnotationItem

from ..corpus.factories import make_candidate, make_dataset, make_label, make_problem, make_user
from .helpers import client_for


def _item(dataset, n: int, generator: str) -> AnnotationItem:
    problem = make_problem(dataset, f"Problem {n}: Tom has {n} apples and buys 3 more. How many does he have?")
    candidate = make_candidate(problem, f"Tom buys 3 more apples than his {n}. How many now? ({generator})",
                               generator=generator)
    return AnnotationItem.objects.create(dataset=dataset, candidate=candidate, required_labels=2)


class FilterSetup(TestCase):
    @classmethod
    def setUpTestData(cls):
        cls.ana, cls.ben = make_user("ana"), make_user("ben")
        cls.boss = make_user("boss", staff=True)
        cls.dataset = make_dataset("filters", annotators=[cls.ana, cls.ben])
        # split: ana valid / ben invalid (stead); agreed: both valid (reorder);
        # split2: ana invalid / ben valid (reorder); agreed_invalid: both invalid (stead).
        cls.split = _item(cls.dataset, 0, "stead")
        cls.agreed = _item(cls.dataset, 1, "reorder")
        cls.split2 = _item(cls.dataset, 2, "reorder")
        cls.agreed_invalid = _item(cls.dataset, 3, "stead")
        cls.unlabelled = _item(cls.dataset, 4, "stead")
        for item, a, b in ((cls.split, True, False), (cls.agreed, True, True), (cls.split2, False, True),
                           (cls.agreed_invalid, False, False)):
            make_label(item, cls.ana, valid=a, solvability=4 if a else 1, diversity=3, fluency=5,
                       comment=f"ana on {item.pk}")
            make_label(item, cls.ben, valid=b, solvability=2, comment="" if b else "drops a number")


class MyLabelsFilterTests(FilterSetup):
    def get(self, **query):
        self.client.force_login(self.ana)
        return self.client.get(reverse("annotate-labels", args=[self.dataset.pk]), query)

    def listed(self, response) -> set[int]:
        return {label.item_id for label in response.context["page"].object_list}

    def test_filter_by_label_and_generator(self):
        self.assertEqual(self.listed(self.get()), {self.split.pk, self.agreed.pk, self.split2.pk, self.agreed_invalid.pk})
        self.assertEqual(self.listed(self.get(label="invalid")), {self.split2.pk, self.agreed_invalid.pk})
        self.assertEqual(self.listed(self.get(label="valid", generator="reorder")), {self.agreed.pk})
        self.assertEqual(self.listed(self.get(generator="stead")), {self.split.pk, self.agreed_invalid.pk})
        page = self.get(label="invalid").content.decode()
        self.assertIn("2 labels matching the filter", page)
        self.assertIn('<option value="invalid" selected>', page)
        self.assertIn('<option value="reorder">reorder</option>', page)  # her generators are offered
        # A well-formed generator nobody used matches nothing, and says so.
        response = self.get(generator="pap")
        self.assertEqual(response.status_code, 200)
        self.assertEqual(self.listed(response), set())
        self.assertContains(response, "None of your labels in filters matches the filter")

    def test_only_own_labels_whatever_the_filter(self):
        page = self.get(label="invalid").content.decode()
        self.assertNotIn("drops a number", page)  # ben's comment on an item she called invalid too

    def test_bad_filter_values_are_400(self):
        for query, parameter, allowed in (
            ({"label": "maybe"}, "label", "allowed: valid, invalid"),
            ({"label": "Valid"}, "label", "allowed: valid, invalid"),
            ({"generator": "two words"}, "generator", "letters, digits and _ . : + -"),
            ({"generator": "x" * 65}, "generator", "1 to 64"),
            ({"generator": "<script>"}, "generator", "is not a generator name"),
            ({"page": "two"}, "page", "a positive whole number"),
            ({"page": "0"}, "page", "a positive whole number"),
        ):
            with self.subTest(query=query):
                response = self.get(**query)
                self.assertEqual(response.status_code, 400)
                page = response.content.decode()
                self.assertIn(f"Bad filter <code>{parameter}</code>", page)
                self.assertIn(allowed, page)
                self.assertIsNone(response.context["page"])  # nothing listed as if unfiltered
        self.client.force_login(self.ana)
        twice = self.client.get(reverse("annotate-labels", args=[self.dataset.pk]) + "?label=valid&label=invalid")
        self.assertEqual(twice.status_code, 400)
        self.assertContains(twice, "given 2 times; give it once", status_code=400)
        self.assertNotIn("<script>", self.get(generator="<script>").content.decode().split("</nav>", 1)[1])


class AdjudicationFilterTests(FilterSetup):
    def get(self, **query):
        self.client.force_login(self.boss)
        return self.client.get(reverse("adjudicate", args=[self.dataset.pk]), query)

    def listed(self, response) -> list[int]:
        return [row["item"] for row in response.context["rows"]]

    def test_disagreements_by_default_and_every_labelled_item_on_request(self):
        self.assertEqual(self.listed(self.get()), [self.split.pk, self.split2.pk])
        everything = self.get(disagreement="0")
        self.assertEqual(self.listed(everything), [self.split.pk, self.agreed.pk, self.split2.pk, self.agreed_invalid.pk])
        page = everything.content.decode()
        self.assertIn('<span data-field="pending">2</span> of 2 disagreements waiting for a decision, among the 4 items listed',
                      page)
        self.assertIn("annotators agree", page)

    def test_filter_by_annotator_label_and_generator(self):
        ben = self.ben.pk
        self.assertEqual(self.listed(self.get(annotator=ben, label="invalid")), [self.split.pk])
        self.assertEqual(self.listed(self.get(annotator=ben, label="invalid", disagreement="0")),
                         [self.split.pk, self.agreed_invalid.pk])
        self.assertEqual(self.listed(self.get(label="valid", disagreement="0")),
                         [self.split.pk, self.agreed.pk, self.split2.pk])
        self.assertEqual(self.listed(self.get(generator="reorder")), [self.split2.pk])
        self.assertEqual(self.listed(self.get(generator="reorder", disagreement="no")), [self.agreed.pk, self.split2.pk])
        page = self.get(annotator=ben).content.decode()
        self.assertIn(f'<option value="{ben}" selected>ben</option>', page)

    def test_each_annotators_ratings_and_comment_stand_next_to_their_label(self):
        page = self.get().content.decode()
        card = page[page.index(f'data-item="{self.split.pk}"'):page.index(f'data-item="{self.split2.pk}"')]
        ana_chip = card[card.index('data-annotator="ana"'):card.index("</li>", card.index('data-annotator="ana"'))]
        self.assertIn("ana: valid", ana_chip)
        self.assertRegex(ana_chip, r"S</abbr> 4 · <abbr[^>]*>D</abbr> 3 · <abbr[^>]*>F</abbr> 5")
        ben_chip = card[card.index('data-annotator="ben"'):card.index("</li>", card.index('data-annotator="ben"'))]
        self.assertIn("ben: invalid", ben_chip)
        self.assertRegex(ben_chip, r"S</abbr> 2 · <abbr[^>]*>D</abbr> – · <abbr[^>]*>F</abbr> –")
        self.assertIn(f'<strong>ana</strong>: <q data-field="comment">ana on {self.split.pk}</q>', card)
        self.assertIn('<strong>ben</strong>: <q data-field="comment">drops a number</q>', card)
        self.assertIn('aria-keyshortcuts="v"', card)
        self.assertIn('id="adjudication-shortcuts"', page)
        self.assertIn('data-check="numbers"', card)  # the server's check stays on each card

    def test_bad_filter_values_are_400(self):
        stranger = make_user("stranger")
        for query, parameter, allowed in (
            ({"annotator": "ben"}, "annotator", "a positive whole number"),
            ({"annotator": "1.5"}, "annotator", "a positive whole number"),
            ({"annotator": "-3"}, "annotator", "a positive whole number"),
            ({"annotator": str(stranger.pk)}, "annotator", f"{self.ana.pk} (ana), {self.ben.pk} (ben)"),
            ({"label": "yes"}, "label", "allowed: valid, invalid"),
            ({"disagreement": "maybe"}, "disagreement", "allowed: 1 or 0"),
            ({"generator": "a/b"}, "generator", "letters, digits"),
            ({"page": "last"}, "page", "a positive whole number"),
        ):
            with self.subTest(query=query):
                response = self.get(**query)
                self.assertEqual(response.status_code, 400)
                page = response.content.decode()
                self.assertIn(f"Bad filter <code>{parameter}</code>", page)
                self.assertIn(allowed, page)
                self.assertNotIn('class="card adjudication-card"', page)

    def test_pages_of_cards_keep_the_filters_and_count_over_every_page(self):
        from unittest import mock

        with mock.patch("annotation.views.ADJUDICATION_PER_PAGE", 1):
            first = self.get(disagreement="0")
            second = self.get(disagreement="0", page="2")
        self.assertEqual(self.listed(first), [self.split.pk])
        self.assertEqual(self.listed(second), [self.agreed.pk])
        self.assertIn('href="?disagreement=0&amp;page=2"', first.content.decode())
        self.assertIn('<span data-field="pending">2</span> of 2 disagreements', second.content.decode())


class ApiFilterTests(FilterSetup):
    def test_own_label_list_filters(self):
        client = client_for(self.ana)
        url = reverse("api-annotation-labels")

        def items(**query):
            response = client.get(url, {"dataset": self.dataset.pk, **query})
            self.assertEqual(response.status_code, 200, response.content)
            return {row["item"] for row in response.json()["results"]}

        self.assertEqual(items(label="invalid"), {self.split2.pk, self.agreed_invalid.pk})
        self.assertEqual(items(label="valid", generator="stead"), {self.split.pk})
        self.assertEqual(items(label="", generator=""), {self.split.pk, self.agreed.pk, self.split2.pk, self.agreed_invalid.pk})

    def test_disagreement_list_filters(self):
        client = client_for(self.boss)
        url = reverse("api-disagreement-list")

        def items(**query):
            response = client.get(url, {"dataset": self.dataset.pk, **query})
            self.assertEqual(response.status_code, 200, response.content)
            return [row["item"] for row in response.json()["results"]]

        self.assertEqual(items(), [self.split.pk, self.split2.pk])
        self.assertEqual(items(annotator=self.ana.pk, label="invalid"), [self.split2.pk])
        self.assertEqual(items(generator="stead"), [self.split.pk])

    def test_bad_filter_values_are_400(self):
        annotator, staff = client_for(self.ana), client_for(self.boss)
        labels, disagreements = reverse("api-annotation-labels"), reverse("api-disagreement-list")
        stranger = make_user("stranger")
        cases = [
            (annotator, labels, {"label": "maybe"}, "label", "allowed: valid, invalid"),
            (annotator, labels, {"generator": "no spaces please"}, "generator", "is not a generator name"),
            (annotator, labels, {"page": "two"}, "page", 'a positive whole number or "last"'),
            (annotator, labels, {"dataset": "abc"}, "dataset", "allowed: a whole number"),
            (staff, disagreements, {"annotator": "ben"}, "annotator", "a positive whole number"),
            (staff, disagreements, {"annotator": stranger.pk}, "annotator", "no one with id"),
            (staff, disagreements, {"label": "VALID"}, "label", "allowed: valid, invalid"),
            (staff, disagreements, {"generator": "a b"}, "generator", "is not a generator name"),
            (staff, disagreements, {"kind": "both"}, "kind", "is not a valid choice"),
            (staff, disagreements, {"dataset": "1e3"}, "dataset", "allowed: a whole number"),
            (annotator, reverse("api-annotation-next"), {"dataset": "first"}, "dataset", "allowed: a whole number"),
        ]
        for client, url, query, parameter, message in cases:
            with self.subTest(url=url, query=query):
                response = client.get(url, {"dataset": self.dataset.pk, **query})
                self.assertEqual(response.status_code, 400, response.content)
                body = response.json()
                self.assertIn(parameter, body)
                self.assertIn(message, " ".join(body[parameter]))
        # One past the last page is a 404 (DRF's), not a 400: the value is a page number.
        self.assertEqual(annotator.get(labels, {"dataset": self.dataset.pk, "page": "9"}).status_code, 404)
        self.assertEqual(annotator.get(labels, {"dataset": self.dataset.pk, "page": "last"}).status_code, 200)


class ParseTests(SimpleTestCase):
    def test_values_each_parameter_takes(self):
        self.assertEqual(label_filters_parse({}, parameters=("label", "generator", "annotator", "disagreement")),
                         LabelFilters())
        parsed = label_filters_parse({"label": "valid", "generator": "pp_permutation+synonym", "annotator": "12",
                                      "disagreement": "off"},
                                     parameters=("label", "generator", "annotator", "disagreement"))
        self.assertEqual(parsed, LabelFilters(valid=True, generator="pp_permutation+synonym", annotator=12,
                                              disagreement_only=False))
        for generator in ("import:csv", "paraqd:f1", "test:f3", "stead", "a.b-c"):
            self.assertEqual(label_filters_parse({"generator": generator}, parameters=("generator",)).generator, generator)

    def test_a_parameter_not_asked_for_is_not_read(self):
        self.assertEqual(label_filters_parse({"annotator": "x"}, parameters=("label",)), LabelFilters())
        with self.assertRaises(FilterError) as raised:
            label_filters_parse({"annotator": "x"}, parameters=("annotator",))
        self.assertEqual(raised.exception.parameter, "annotator")
