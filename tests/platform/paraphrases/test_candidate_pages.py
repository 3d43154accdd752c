"""``candidate_pages``: the candidate list a page at a time must be exactly ``candidate_list``'s
rows in its order, for every page size, offset and filter, while reading only a page's problems."""
from __future__ import annotations

from django.core.paginator import Paginator
from django.test import TestCase
from django.test.utils import CaptureQueriesContext
from django.db import connection

from paraphrases.selectors import candidate_list, candidate_pages

from ..corpus.factories import make_candidate, make_dataset, make_gold, make_item, make_problems, make_score


class CandidatePagesTests(TestCase):
    @classmethod
    def setUpTestData(cls):
        cls.dataset = make_dataset("pages")
        problems = make_problems(cls.dataset, 7)
        other = make_problems(make_dataset("pages-other"), 2, prefix="Other")
        n = 0
        # 0 to 4 candidates per problem, PQI ties, missing scores and a score without PQI.
        for i, problem in enumerate(problems):
            for j in range((i * 3) % 5):
                n += 1
                candidate = make_candidate(problem, f"Variant {i}.{j}", generator=["reorder", "eda"][j % 2],
                                           selected_by="pammr" if j == 0 else "")
                if n % 4:
                    make_score(candidate, "metrics:1", pqi=[0.5, 0.7, 0.5, None][n % 4] if n % 7 else 0.9)
                if n % 3 == 0:
                    make_gold(candidate, valid=bool(n % 2))
                elif n % 5 == 0:
                    make_item(cls.dataset, candidate)
        for problem in other:
            make_candidate(problem, "Not this dataset.")

    def _same(self, **filters):
        expected = [c.pk for c in candidate_list(dataset=self.dataset, **filters)]
        pages = candidate_pages(dataset=self.dataset, **filters)
        self.assertEqual(pages.count(), len(expected))
        for start in range(len(expected) + 1):
            for size in (1, 2, 3, 5, 60):
                got = [c.pk for c in pages[start:start + size]]
                self.assertEqual(got, expected[start:start + size], (filters, start, size))
        return expected

    def test_every_slice_equals_the_list(self):
        self.assertGreater(len(self._same()), 10)

    def test_every_filter(self):
        for filters in ({"generator": "eda"}, {"min_pqi": 0.6}, {"selected": True}, {"selected": False},
                        {"label": "valid"}, {"label": "invalid"}, {"label": "unlabelled"}, {"label": "queued"}):
            with self.subTest(**filters):
                self._same(**filters)

    def test_rows_carry_the_annotations(self):
        expected = {c.pk: (c.score_id, c.pqi_value, c.labels_done) for c in candidate_list(dataset=self.dataset)}
        page = Paginator(candidate_pages(dataset=self.dataset), 4).page(2)
        self.assertEqual(len(page.object_list), 4)
        for c in page.object_list:
            self.assertEqual((c.score_id, c.pqi_value, c.labels_done), expected[c.pk])
            self.assertEqual(c.problem.dataset_id, self.dataset.pk)  # selected, no extra query

    def test_a_page_reads_its_problems_only(self):
        pages = candidate_pages(dataset=self.dataset)
        pages.count()
        with CaptureQueriesContext(connection) as queries:
            pages[3:6]
        self.assertEqual(len(queries), 3)
        last = queries.captured_queries[-1]["sql"]
        self.assertIn("problem_id\" >=", last.replace("'", '"'))
        self.assertIn("problem_id\" <=", last.replace("'", '"'))

    def test_out_of_range_and_bad_slices(self):
        pages = candidate_pages(dataset=self.dataset)
        self.assertEqual(pages[10_000:10_060], [])
        with self.assertRaises(IndexError):
            pages[10_000]
        with self.assertRaises(ValueError):
            pages[::2]
