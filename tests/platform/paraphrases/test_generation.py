"""The generate job, the paraphrase service and the PQI summary, through the real generators,
metrics and selectors, with the tiny encoder standing in for ParaQD (scorer ``paraqd:pretrained``)."""
from __future__ import annotations

import json
from io import StringIO
from unittest import mock

from django.core.management import CommandError, call_command
from django.test import TestCase

from annotation.models import AnnotationItem
from jobs.models import Job
from ml.generation import GeneratedCandidate
from modelhub.kinds.paraqd import paraqd_default_model
from paraphrases.candidates import GENERATED_PURPOSE, candidates_store
from paraphrases.generation import GenerationError, generation_run, generation_start
from paraphrases.handout import paraphrase_variants
from paraphrases.models import Candidate, Score
from paraphrases.selection import candidates_score
from paraphrases.selectors import pqi_by_generator
from workers.generation import generate_job

from ..corpus.factories import make_gold
from .helpers import ParaQDSettingsMixin, make_algebra

GENERATORS = ["reorder", "pp_permutation", "passive"]
MAYA = ("Maya bought 12 apples for $3.50 at the market on Monday. She gave 4 apples to Tom. "
        "How many apples does Maya have now?")


class GenerateJobTests(ParaQDSettingsMixin, TestCase):
    def setUp(self):
        super().setUp()
        self.dataset, self.problems = make_algebra()
        self.dataset.labels_per_item = 3
        self.dataset.save()

    def _run(self, **kwargs):
        job = generation_start(dataset=self.dataset, generators=GENERATORS, per_problem=2, enqueue=False, **kwargs)
        generate_job.apply(args=[job.pk])
        job.refresh_from_db()
        self.assertEqual(job.status, Job.Status.SUCCEEDED, job.error)
        return job

    def test_every_candidate_is_scored_once_selected_and_queued(self):
        job = self._run()
        result = job.result
        candidates = Candidate.objects.filter(problem__dataset=self.dataset)
        self.assertEqual(result["candidates"], candidates.count())
        self.assertGreater(result["candidates"], len(self.problems))
        self.assertEqual(set(candidates.values_list("generator", flat=True)) - set(GENERATORS), set())
        # One score row per candidate and scorer, with every metric filled in.
        scores = Score.objects.filter(candidate__in=candidates)
        self.assertEqual(scores.count(), candidates.count())
        self.assertEqual(set(scores.values_list("scorer_version", flat=True)), {"paraqd:pretrained"})
        for score in scores:
            for field in ("paraqd", "similarity", "numeracy", "bleu_diversity", "wpd", "diversity", "pqi"):
                self.assertIsNotNone(getattr(score, field), field)
            self.assertAlmostEqual(score.similarity, (score.paraqd + 1) / 2, places=5)
            self.assertAlmostEqual(score.diversity, 0.6 * score.bleu_diversity + 0.4 * score.wpd, places=5)
            self.assertAlmostEqual(score.pqi, score.similarity ** 0.5 * score.diversity ** 0.25
                                   * score.numeracy ** 0.25, places=5)
            # The rule-based generators keep every number.
            self.assertEqual(score.numeracy, 1.0)
        # At most per_problem selected per problem, each queued for k = labels_per_item annotators.
        selected = candidates.exclude(selected_by="")
        self.assertEqual(result["selected"], selected.count())
        for problem in self.problems:
            self.assertLessEqual(selected.filter(problem=problem).count(), 2)
        self.assertEqual(set(selected.values_list("selected_by", flat=True)), {"pammr"})
        items = AnnotationItem.objects.filter(dataset=self.dataset, purpose=GENERATED_PURPOSE)
        self.assertEqual(set(items.values_list("candidate_id", flat=True)), set(selected.values_list("pk", flat=True)))
        self.assertEqual(set(items.values_list("required_labels", flat=True)), {3})
        # The JSON names each generator with its means.
        self.assertEqual(set(result["by_generator"]), set(candidates.values_list("generator", flat=True)))
        for summary in result["by_generator"].values():
            self.assertEqual(set(summary) >= {"n", "S", "D", "N", "PQI"}, True)
            self.assertGreater(summary["PQI"], 0.0)

    def test_redelivery_and_a_second_run_write_nothing_new(self):
        job = self._run()
        counts = (Candidate.objects.count(), Score.objects.count(), AnnotationItem.objects.count())
        selected = set(Candidate.objects.exclude(selected_by="").values_list("pk", flat=True))
        # The same message delivered again: the finished job is a no-op.
        generate_job.apply(args=[job.pk])
        self.assertEqual((Candidate.objects.count(), Score.objects.count(), AnnotationItem.objects.count()), counts)
        # A new job over the same dataset regenerates the same candidates and rewrites the same rows.
        Job.objects.filter(pk=job.pk).update(status=Job.Status.QUEUED)  # a stale claim, run again
        generate_job.apply(args=[job.pk])
        job.refresh_from_db()
        self.assertEqual(job.status, Job.Status.SUCCEEDED, job.error)
        self._run()
        self.assertEqual((Candidate.objects.count(), Score.objects.count(), AnnotationItem.objects.count()), counts)
        self.assertEqual(set(Candidate.objects.exclude(selected_by="").values_list("pk", flat=True)), selected)

    def test_no_queue_selects_without_queueing(self):
        result = generation_run(dataset=self.dataset, generators=GENERATORS, per_problem=1, queue=False)
        self.assertGreater(result["selected"], 0)
        self.assertEqual(result["queued"], 0)
        self.assertFalse(AnnotationItem.objects.filter(purpose=GENERATED_PURPOSE).exists())

    def test_a_failing_problem_is_logged_and_the_rest_go_on(self):
        from paraphrases import generation as ml_generation

        real = ml_generation.generate
        bad = self.problems[1].text

        def flaky(names, text, seed, resources, **kwargs):
            if text == bad:
                raise RuntimeError("model crashed")
            return real(names, text, seed, resources, **kwargs)

        with mock.patch.object(ml_generation, "generate", flaky):
            job = self._run()
        self.assertEqual([f["problem"] for f in job.result["failed"]], [self.problems[1].pk])
        self.assertIn("model crashed", job.log)
        self.assertFalse(Candidate.objects.filter(problem=self.problems[1]).exists())
        self.assertTrue(Candidate.objects.filter(problem=self.problems[0]).exists())

    def test_bad_requests_are_refused_before_a_job_exists(self):
        for kwargs, message in (
            ({"generators": ["nope"]}, "unknown generator"),
            ({"generators": ["fill_mask"]}, "cannot run here"),
            ({"select": "best"}, "unknown selector"),
            ({"per_problem": 0}, "per_problem"),
        ):
            with self.subTest(kwargs=kwargs):
                params = {"generators": GENERATORS, "per_problem": 2, **kwargs}
                with self.assertRaisesMessage(GenerationError, message):
                    generation_start(dataset=self.dataset, enqueue=False, **params)
        self.assertFalse(Job.objects.filter(kind=Job.Kind.GENERATE).exists())

    def test_pqi_summary_counts_gold_labels_per_generator(self):
        self._run()
        candidates = list(Candidate.objects.filter(problem__dataset=self.dataset, generator="reorder")[:2])
        self.assertEqual(len(candidates), 2)
        make_gold(candidates[0], valid=True, source="agreement")
        make_gold(candidates[1], valid=False, source="agreement")
        summary = pqi_by_generator(dataset=self.dataset)
        reorder = summary["by_generator"]["reorder"]
        self.assertEqual((reorder["labelled"], reorder["human_valid_share"]), (2, 0.5))
        self.assertEqual(summary["scorers"], ["paraqd:pretrained"])
        stored = Score.objects.filter(candidate__generator="reorder")
        self.assertAlmostEqual(reorder["PQI"], sum(s.pqi for s in stored) / stored.count(), places=3)


class ParaphraseServiceTests(ParaQDSettingsMixin, TestCase):
    def test_variants_keep_the_numbers_and_come_best_first(self):
        result = paraphrase_variants(text=MAYA, k=3, generators=GENERATORS)
        variants = result["variants"]
        self.assertTrue(1 <= len(variants) <= 3)
        self.assertEqual([v["PQI"] for v in variants], sorted((v["PQI"] for v in variants), reverse=True))
        for variant in variants:
            self.assertNotEqual(variant["text"], MAYA)
            self.assertTrue(variant["numbers_kept"])
            for number in ("12", "3.50", "4"):
                self.assertIn(number, variant["text"])
            self.assertTrue(any(s["kind"] == "number" for s in variant["spans"]))
        self.assertEqual(result["scorer"], "paraqd:pretrained")
        self.assertFalse(Candidate.objects.exists())  # nothing stored

    def test_the_same_text_gives_the_same_variants(self):
        first = paraphrase_variants(text=MAYA, k=2, generators=GENERATORS)
        second = paraphrase_variants(text=MAYA, k=2, generators=GENERATORS)
        self.assertEqual([v["text"] for v in first["variants"]], [v["text"] for v in second["variants"]])

    def test_empty_and_over_long_text_are_refused(self):
        with self.assertRaisesMessage(GenerationError, "empty"):
            paraphrase_variants(text="   ")
        with self.settings(PARALAB_PARAPHRASE_MAX_CHARS=50):
            with self.assertRaisesMessage(GenerationError, "over the limit of 50"):
                paraphrase_variants(text=MAYA)


class GenerationCommandTests(ParaQDSettingsMixin, TestCase):
    def setUp(self):
        super().setUp()
        self.dataset, self.problems = make_algebra()

    def _call(self, *args) -> dict:
        out = StringIO()
        call_command(*args, stdout=out)
        return json.loads(out.getvalue().strip().splitlines()[-1])

    def test_generate_then_pqi(self):
        result = self._call("generate", "--dataset", "algebra", "--generators", ",".join(GENERATORS),
                            "--per-problem", "1", "--no-queue", "--json")
        self.assertEqual(set(result) >= {"job", "problems", "candidates", "selected", "by_generator"}, True)
        self.assertEqual(result["problems"], len(self.problems))
        self.assertEqual(Job.objects.get(pk=result["job"]).status, Job.Status.SUCCEEDED)
        self.assertFalse(AnnotationItem.objects.exists())
        pqi = self._call("pqi", "--dataset", "algebra", "--json")
        self.assertEqual(set(pqi["by_generator"]), set(result["by_generator"]))
        for name, row in pqi["by_generator"].items():
            self.assertEqual(set(row) >= {"n", "S", "D", "N", "PQI", "bleu_div", "wpd"}, True)
            self.assertEqual(row["n"], result["by_generator"][name]["n"])
        only = self._call("pqi", "--dataset", "algebra", "--generator", "reorder", "--json")
        self.assertEqual(list(only["by_generator"]), ["reorder"])

    def test_paraphrase_command(self):
        result = self._call("paraphrase", MAYA, "--k", "2", "--generators", "reorder,passive", "--json")
        self.assertTrue(result["variants"])
        self.assertEqual(set(result["variants"][0]) >= {"text", "generator", "S", "D", "N", "PQI"}, True)

    def test_commands_explain_bad_input(self):
        with self.assertRaisesMessage(CommandError, "unknown generator 'bogus'"):
            call_command("generate", "--dataset", "algebra", "--generators", "bogus", stdout=StringIO())
        with self.assertRaisesMessage(CommandError, "no dataset named 'missing'"):
            call_command("generate", "--dataset", "missing", stdout=StringIO())
        with self.assertRaisesMessage(CommandError, "empty"):
            call_command("paraphrase", " ", stdout=StringIO())
        self.assertFalse(Job.objects.exists())


class CandidateStoreTests(ParaQDSettingsMixin, TestCase):
    def test_one_text_written_twice_is_one_candidate_with_one_score(self):
        """STEAD's prompts and noise draws can write the same text twice in one batch; storing it
        once must not make PostgreSQL's upsert touch one Score row twice."""
        _, problems = make_algebra()
        problem = problems[0]
        text = problem.text.replace("How many", "Find how many").rstrip("?") + "."
        generated = [GeneratedCandidate(text, "stead", "a"), GeneratedCandidate(text, "stead", "b"),
                     GeneratedCandidate(problem.text + " ", "stead", "c")]
        model = paraqd_default_model()
        scored = candidates_score(problem.text, generated, model)
        ids = candidates_store(problem.pk, scored, model)
        self.assertEqual(len(ids), 3)
        self.assertEqual(ids[0], ids[1])
        self.assertEqual(Candidate.objects.filter(problem=problem, generator="stead").count(), 2)
        self.assertEqual(Score.objects.filter(candidate_id__in=ids, scorer_version=model.scorer_version).count(), 2)
        self.assertEqual(candidates_store(problem.pk, scored, model), ids)  # again: reused, nothing new
