"""Generation over REST and on the pages: generate, candidates, paraphrase, the variants export,
and what each role may see (the full per-role table is tests/platform/test_api_permissions.py)."""
from __future__ import annotations

import csv
import io
import json

from django.test import TestCase
from django.urls import reverse
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from jobs.models import Job
from paraphrases.models import Candidate

from ..corpus.factories import make_candidate, make_gold, make_score, make_user
from .helpers import ParaQDSettingsMixin, make_algebra

MAYA = ("Maya bought 12 apples for $3.50 at the market on Monday. She gave 4 apples to Tom. "
        "How many apples does Maya have now?")


class GenerationApiTests(ParaQDSettingsMixin, TestCase):
    def setUp(self):
        super().setUp()
        self.staff = make_user("boss", staff=True)
        self.annotator = make_user("ann")
        self.dataset, self.problems = make_algebra()
        self.dataset.annotators.add(self.annotator)
        self.client_ = APIClient()
        self.client_.force_login(self.staff)

    def test_generate_runs_the_job_and_candidates_list_it(self):
        url = reverse("api-dataset-generate", args=[self.dataset.pk])
        with self.captureOnCommitCallbacks(execute=True):
            response = self.client_.post(url, {"generators": ["reorder", "passive"], "per_problem": 1}, format="json")
        self.assertEqual(response.status_code, 202, response.data)
        job = Job.objects.get(pk=response.data["job"])
        self.assertEqual((job.kind, job.status, job.queue), (Job.Kind.GENERATE, Job.Status.SUCCEEDED, "cpu"))
        listing = self.client_.get(reverse("api-dataset-candidates", args=[self.dataset.pk])).data
        self.assertEqual(listing["count"], Candidate.objects.count())
        row = listing["results"][0]
        self.assertEqual(set(row) >= {"problem", "generator", "prompt", "scores", "selected", "gold", "label_status"}, True)
        self.assertEqual(set(row["scores"]) >= {"S", "D", "N", "PQI", "bleu_div", "wpd", "paraqd"}, True)
        # Filters: generator, selected, min_pqi.
        only = self.client_.get(reverse("api-dataset-candidates", args=[self.dataset.pk]), {"generator": "passive"}).data
        self.assertEqual({r["generator"] for r in only["results"]}, {"passive"} if only["count"] else set())
        picked = self.client_.get(reverse("api-dataset-candidates", args=[self.dataset.pk]), {"selected": "true"}).data
        self.assertTrue(picked["count"] >= 1 and all(r["selected"] for r in picked["results"]))
        high = self.client_.get(reverse("api-dataset-candidates", args=[self.dataset.pk]), {"min_pqi": 0.99}).data
        self.assertTrue(all(r["scores"]["PQI"] >= 0.99 for r in high["results"]))
        self.assertLess(high["count"], listing["count"])

    def test_generate_refuses_unknown_generators_with_400(self):
        response = self.client_.post(reverse("api-dataset-generate", args=[self.dataset.pk]),
                                     {"generators": ["bogus"]}, format="json")
        self.assertEqual(response.status_code, 400)
        self.assertIn("unknown generator", response.data["detail"])
        self.assertFalse(Job.objects.exists())

    def test_paraphrase_with_a_token(self):
        token, _ = Token.objects.get_or_create(user=self.staff)
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
        response = client.post(reverse("api-paraphrase"), {"text": MAYA, "k": 2}, format="json")
        self.assertEqual(response.status_code, 200, response.data)
        variants = response.data["variants"]
        self.assertTrue(1 <= len(variants) <= 2)
        self.assertTrue(all(set(v) >= {"text", "generator", "S", "D", "N", "PQI"} for v in variants))
        long_problem = (MAYA + " ") * 200  # about 20,000 characters: refused with the limit, never cut
        for bad, message in (({"text": ""}, "empty"), ({"text": long_problem}, "over the limit of 4000"),
                             ({"text": "Maya tiene 12 manzanas y le da 4 a Tom. ¿Cuántas manzanas le quedan?"},
                              "English only"),
                             ({"text": "玛雅有12个苹果，她给了汤姆4个。她还剩几个苹果？"}, "English only"),
                             ({"text": "Describe the market where Maya buys apples."}, "Not a word problem"),
                             ({"text": "900 + 5 × 12 = ?"}, "no words")):
            with self.subTest(bad=message):
                answer = client.post(reverse("api-paraphrase"), bad, format="json")
                self.assertEqual(answer.status_code, 400)
                self.assertIn(message, answer.data["detail"])
        # a problem with no digits that asks something still goes ahead
        words_only = client.post(reverse("api-paraphrase"), {
            "text": "Maya bought some apples at the market and gave a few to Tom. How many apples does Maya have now?",
            "k": 1}, format="json")
        self.assertEqual(words_only.status_code, 200, words_only.data)
        annotator = APIClient()
        annotator.force_login(self.annotator)
        self.assertEqual(annotator.post(reverse("api-paraphrase"), {"text": MAYA}, format="json").status_code, 403)

    def test_paraphrase_as_a_job_answers_at_once_and_the_job_holds_the_variants(self):
        with self.captureOnCommitCallbacks(execute=True):
            response = self.client_.post(reverse("api-paraphrase") + "?async=1", {"text": MAYA, "k": 2}, format="json")
        self.assertEqual(response.status_code, 202, response.data)
        job = Job.objects.get(pk=response.data["job"])
        self.assertEqual((job.kind, response.data["url"]), (Job.Kind.PARAPHRASE, f"/api/v1/jobs/{job.pk}/"))
        polled = self.client_.get(response.data["url"]).data  # inline runner here: already done
        self.assertEqual(polled["status"], "succeeded", polled["error"])
        variants = polled["result"]["variants"]
        self.assertTrue(1 <= len(variants) <= 2)
        self.assertTrue(all(v["checks"]["numbers"]["ok"] for v in variants))
        # a refused text is refused at once, with no job
        refused = self.client_.post(reverse("api-paraphrase") + "?async=1", {"text": "x" * 5000}, format="json")
        self.assertEqual(refused.status_code, 400)
        self.assertIn("over the limit", refused.data["detail"])
        bad_flag = self.client_.post(reverse("api-paraphrase") + "?async=maybe", {"text": MAYA}, format="json")
        self.assertEqual(bad_flag.status_code, 400)
        self.assertEqual(Job.objects.filter(kind=Job.Kind.PARAPHRASE).count(), 1)

    def test_an_empty_generator_list_is_a_400_with_a_message(self):
        """Unticking every generator is not "run them all": both endpoints refuse it and start nothing."""
        for url, body in ((reverse("api-dataset-generate", args=[self.dataset.pk]), {"generators": []}),
                          (reverse("api-paraphrase"), {"text": MAYA, "generators": []})):
            with self.subTest(url=url):
                answer = self.client_.post(url, body, format="json")
                self.assertEqual(answer.status_code, 400)
                self.assertEqual(answer.data["generators"], ["Name at least one generator, or leave the field "
                                                             "out for the default set."])
        self.assertFalse(Job.objects.exists())

    def test_generators_list_says_what_cannot_run(self):
        rows = {g["name"]: g for g in self.client_.get(reverse("api-generator-list")).data["generators"]}
        self.assertTrue(rows["reorder"]["available"])
        self.assertFalse(rows["fill_mask"]["available"])
        self.assertIn("masked LM", rows["fill_mask"]["reason"])


class VariantExportTests(ParaQDSettingsMixin, TestCase):
    def setUp(self):
        super().setUp()
        self.staff = make_user("boss", staff=True)
        self.dataset, self.problems = make_algebra(texts=["Tom has 3 apples and buys 2 more. How many now?"])
        problem = self.problems[0]

        def scored(text, *, numeracy=1.0, paraqd=0.9, diversity=0.3, gold=None):
            candidate = make_candidate(problem, text, generator="reorder")
            make_score(candidate, "paraqd:pretrained", paraqd=paraqd, similarity=(paraqd + 1) / 2, numeracy=numeracy,
                       bleu_diversity=0.4, wpd=0.15, diversity=diversity, pqi=0.7)
            if gold is not None:
                make_gold(candidate, valid=gold, source="agreement")
            return candidate

        self.gold_valid = scored("Given that Tom has 3 apples and buys 2 more, how many now?", paraqd=0.2, gold=True)
        self.unreviewed = scored("If Tom has 3 apples and buys 2 more, how many does he have now?")
        scored("Tom has some apples and buys 2 more. How many now?", numeracy=0.3)      # a number lost
        scored("Tom owns 3 apples and buys 2 more. How many now?", paraqd=0.2)         # below the threshold
        scored("Tom has 3 apples and buys 2 more. How many now?", diversity=0.0)       # a copy of the problem
        scored("Tom has 3 apples and buys 2 more. How many then?", gold=False)          # humans said invalid
        make_candidate(problem, "unscored text 3 2", generator="reorder")               # never scored

    def _export(self, fmt: str) -> str:
        client = APIClient()
        client.force_login(self.staff)
        response = client.get(reverse("api-dataset-export", args=[self.dataset.pk]), {"what": "variants", "format": fmt})
        self.assertEqual(response.status_code, 200)
        return b"".join(response.streaming_content).decode()

    def test_jsonl_lists_gold_and_unreviewed_variants(self):
        rows = [json.loads(line) for line in self._export("jsonl").splitlines()]
        self.assertEqual([(r["candidate_id"], r["status"]) for r in sorted(rows, key=lambda r: r["candidate_id"])],
                         [(self.gold_valid.pk, "gold"), (self.unreviewed.pk, "unreviewed")])
        self.assertEqual({r["problem_id"] for r in rows}, {self.problems[0].pk})
        self.assertEqual(sorted(r["rank"] for r in rows), [1, 2])

    def test_csv_has_a_header_and_the_same_rows(self):
        reader = list(csv.DictReader(io.StringIO(self._export("csv"))))
        self.assertEqual(len(reader), 2)
        self.assertEqual({r["status"] for r in reader}, {"gold", "unreviewed"})
        self.assertIn("PQI", reader[0])


class GenerationPageTests(ParaQDSettingsMixin, TestCase):
    def setUp(self):
        super().setUp()
        self.staff = make_user("boss", staff=True)
        self.annotator = make_user("ann")
        self.dataset, self.problems = make_algebra()
        self.dataset.annotators.add(self.annotator)

    def test_staff_generate_from_the_page_and_see_scores(self):
        self.client.force_login(self.staff)
        page = self.client.get(reverse("dataset-candidates", args=[self.dataset.pk]))
        self.assertContains(page, "Generate variants")
        with self.captureOnCommitCallbacks(execute=True):
            response = self.client.post(reverse("dataset-generate", args=[self.dataset.pk]),
                                        {"generators": ["reorder"], "select": "pammr", "per_problem": "1", "queue": "1"})
        self.assertRedirects(response, reverse("dataset-candidates", args=[self.dataset.pk]))
        page = self.client.get(reverse("dataset-candidates", args=[self.dataset.pk]))
        self.assertContains(page, "Given that")
        self.assertContains(page, "selected · pammr")
        self.assertContains(page, 'class="num-col pqi-cell"')
        dashboard = self.client.get(reverse("dashboard"), {"dataset": self.dataset.pk})
        self.assertContains(dashboard, 'id="pqi-plot"')
        self.assertContains(dashboard, "<title id=\"pqi-title\">Mean PQI per generator</title>", html=False)

    def test_the_generate_form_ticks_the_default_set_and_refuses_no_generator(self):
        self.client.force_login(self.staff)
        page = self.client.get(reverse("dataset-candidates", args=[self.dataset.pk])).content.decode()
        self.assertIn('value="reorder" checked', page)
        self.assertNotIn('value="synonym" checked', page)  # optional: listed, not ticked
        self.assertIn('value="synonym"', page)
        jobs = Job.objects.count()
        response = self.client.post(reverse("dataset-generate", args=[self.dataset.pk]),
                                    {"select": "pammr", "per_problem": "1"}, follow=True)
        self.assertContains(response, "tick at least one generator")
        self.assertEqual(Job.objects.count(), jobs)  # nothing ran (it used to run every generator)

    def test_annotators_may_not_see_generation_pages(self):
        self.client.force_login(self.annotator)
        for url in (reverse("dataset-candidates", args=[self.dataset.pk]), reverse("paraphrase")):
            with self.subTest(url=url):
                self.assertEqual(self.client.get(url).status_code, 403)
        response = self.client.post(reverse("dataset-generate", args=[self.dataset.pk]), {"generators": ["reorder"]})
        self.assertEqual(response.status_code, 403)
        self.assertFalse(Job.objects.exists())

    def test_paraphrase_page_lists_generators(self):
        self.client.force_login(self.staff)
        page = self.client.get(reverse("paraphrase"))
        self.assertContains(page, 'id="paraphrase-form"')
        self.assertContains(page, 'value="reorder"')
        # fill_mask without a masked LM: said plainly, the technical reason (a setting) on hover only
        self.assertContains(page, "— not installed on this server")
        self.assertContains(page, 'title="no masked LM configured (set PARALAB_MASKED_LM')
        self.assertNotContains(page, "— cannot run here")
