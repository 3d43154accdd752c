"""Plain generator names for teachers (``paralab_generators``): one per registered generator and
composition, the technical name on hover, the API untouched; and where a generation job runs."""
from __future__ import annotations

from django.template import Context, Template
from django.test import TestCase, override_settings
from django.urls import reverse

from ml.generation import GENERATORS
from paralab.templatetags.paralab_generators import PLAIN_NAMES, generator_label, generator_name

from ..corpus.factories import make_candidate, make_dataset, make_problem, make_score, make_user


class GeneratorLabelTests(TestCase):
    def test_every_registered_generator_reads_as_plain_words(self):
        for name in GENERATORS:
            with self.subTest(name=name):
                label = generator_label(name)
                self.assertNotEqual(label, name)
                self.assertNotIn("_", label)
                self.assertEqual(label.count(" + "), name.count("+"))

    def test_no_plain_name_for_a_generator_that_is_not_registered(self):
        parts = {part for name in GENERATORS for part in name.split("+")}
        self.assertEqual(set(PLAIN_NAMES) - parts, set())

    def test_compositions_join_their_parts(self):
        self.assertEqual(generator_label("pp_permutation+reorder"), "Moved phrases + reordered sentences")
        self.assertEqual(generator_label("passive+reorder+synonym"), "Passive voice + reordered sentences + synonyms")

    def test_other_candidates_and_unknown_names(self):
        self.assertEqual(generator_label("import:paraqd"), "Imported pair (paraqd file)")
        self.assertEqual(generator_label("test:fa"), "ParaQD test operator fa")
        for name in ("paraqd:f5", "reorder+unknown", "", "import:", None):
            self.assertEqual(generator_label(name), name or "")

    def test_the_technical_name_is_the_title_and_both_are_escaped(self):
        self.assertEqual(generator_name("reorder"), '<span class="generator-name" title="reorder">Reordered sentences</span>')
        html = Template("{% load paralab_generators %}{{ name|generator_name }}").render(Context({"name": '<b x="1">'}))
        self.assertEqual(html, '<span class="generator-name" title="&lt;b x=&quot;1&quot;&gt;">&lt;b x=&quot;1&quot;&gt;</span>')


class GenerationDeviceTests(TestCase):
    def render(self) -> str:
        return Template("{% load paralab_generators %}{% generation_device %}").render(Context({}))

    @override_settings(CELERY_BROKER_URL=None, PARALAB_DEVICE="cpu")
    def test_no_broker_runs_here_on_the_cpu(self):
        self.assertEqual(self.render(), "here, on the CPU")

    @override_settings(CELERY_BROKER_URL=None, PARALAB_DEVICE="cuda")
    def test_no_broker_with_a_gpu_runs_here_on_the_gpu(self):
        self.assertEqual(self.render(), "here, on the GPU")

    @override_settings(CELERY_BROKER_URL="redis://localhost:6379/0", PARALAB_DEVICE="cpu")
    def test_a_broker_with_a_gpu_queue_names_the_gpu_worker(self):
        self.assertIn("on the GPU worker when a neural generator is ticked", self.render())


class CandidatesPageNamesTests(TestCase):
    @classmethod
    def setUpTestData(cls):
        cls.boss = make_user("boss", staff=True)
        cls.dataset = make_dataset("names")
        problem = make_problem(cls.dataset, "Tom has 3 apples and buys 2 more. How many apples?")
        candidate = make_candidate(problem, "Tom buys 2 more apples; he had 3. How many apples?",
                                   generator="pp_permutation+reorder")
        make_score(candidate, "metrics:1", similarity=0.9, diversity=0.5, numeracy=1.0, pqi=0.8)

    def test_the_page_shows_plain_names_and_the_api_keeps_the_technical_ones(self):
        self.client.force_login(self.boss)
        page = self.client.get(reverse("dataset-candidates", args=[self.dataset.pk])).content.decode()
        self.assertIn('<span class="generator-name" title="pp_permutation+reorder">Moved phrases + reordered sentences</span>', page)
        self.assertIn('<option value="pp_permutation+reorder" title="pp_permutation+reorder">Moved phrases + reordered sentences</option>', page)
        # The generate form: each generator by its plain name, the technical one in the title.
        self.assertIn('title="pp_permutation+reorder: ', page)
        self.assertIn("The job runs here, on the CPU", page)
        api = self.client.get(reverse("api-dataset-candidates", args=[self.dataset.pk])).json()
        self.assertEqual([row["generator"] for row in api["results"]], ["pp_permutation+reorder"])
