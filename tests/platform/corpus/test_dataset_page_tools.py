"""The dataset page's tools (staff): an Import form posting to the import API with every format
the importers take, an Export menu with every download the export API offers, a link to the
candidates, and on an empty dataset a hint on what to do first. Annotators see none of it."""
from __future__ import annotations

from django.test import TestCase
from django.urls import reverse

from corpus.exporters import FORMATS, WHATS
from corpus.importers import PAIR_FORMATS, PROBLEM_FORMATS

from .factories import make_dataset, make_problems, make_user


class DatasetPageToolsTests(TestCase):
    @classmethod
    def setUpTestData(cls):
        cls.boss = make_user("boss", staff=True)
        cls.ann = make_user("ann")
        cls.empty = make_dataset("empty-one", annotators=[cls.ann])
        cls.full = make_dataset("full-one", annotators=[cls.ann])
        make_problems(cls.full, 3)

    def page(self, user, dataset, **query) -> str:
        self.client.force_login(user)
        response = self.client.get(reverse("dataset-detail", args=[dataset.pk]), query)
        self.assertEqual(response.status_code, 200)
        return response.content.decode()

    def test_staff_get_the_import_form_for_every_format(self):
        html = self.page(self.boss, self.full)
        self.assertIn(f'id="import-form" data-url="{reverse("api-dataset-import", args=[self.full.pk])}"', html)
        for fmt in PROBLEM_FORMATS:
            self.assertIn(f'<option value="{fmt}" data-kind="problems">', html)
        for fmt in PAIR_FORMATS:
            self.assertIn(f'<option value="{fmt}" data-kind="pairs">', html)
        self.assertIn('type="file" id="import-file" name="file"', html)
        self.assertIn("paralab/dataset.js", html)
        self.assertIn('data-count="problems">3<', html)

    def test_staff_get_every_export_and_the_candidates_link(self):
        html = self.page(self.boss, self.full)
        export = reverse("api-dataset-export", args=[self.full.pk])
        for what in WHATS:
            for fmt in FORMATS:
                self.assertIn(f'download href="{export}?what={what}&amp;format={fmt}"', html)
        self.assertIn(f'id="candidates-link" href="{reverse("dataset-candidates", args=[self.full.pk])}"', html)
        self.assertNotIn('id="empty-hint"', html)

    def test_the_export_links_download(self):
        self.client.force_login(self.boss)
        response = self.client.get(reverse("api-dataset-export", args=[self.full.pk]), {"what": "problems", "format": "csv"})
        self.assertEqual(response.status_code, 200)
        self.assertEqual(len(b"".join(response.streaming_content).decode().strip().splitlines()), 4)

    def test_an_empty_dataset_says_what_to_do_first(self):
        html = self.page(self.boss, self.empty)
        self.assertIn('id="empty-hint"', html)
        self.assertIn("Start with the problems", html)
        self.assertIn(reverse("dataset-candidates", args=[self.empty.pk]), html)
        # A filter that finds nothing is not an empty dataset.
        self.assertNotIn('id="empty-hint"', self.page(self.boss, self.full, q="no such words"))

    def test_annotators_see_no_tools(self):
        html = self.page(self.ann, self.empty)
        for tool in ('id="import-form"', 'id="export-menu"', 'id="candidates-link"', "paralab/dataset.js"):
            self.assertNotIn(tool, html)
        self.assertIn("staff have not imported problems", html)
        self.assertNotIn("Start with the problems", self.page(self.ann, self.full))
