"""``POST paraphrase/?async=1`` answers 202 ``{"job"}`` at once, and ``GET jobs/{id}/`` carries the
job's ``partial`` while it runs: the rule variants first, then each verified rewrite of the instruct
LLM as it passes; the final ``result`` lists the verified rewrite first with its ``same answer``
check (CONTRACT.md).

The real ``paraphrase`` job runs (``paraphrase_start`` → the task → ``paraphrase_run`` →
``paraphrase_variants``) with the rules and the shipped judge deciding; only the LLM is a stand-in
registered under its name, which reports one verified rewrite and reads the job through the API
just before and just after handing it over."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

from django.test import TestCase, override_settings
from django.urls import reverse
from rest_framework.test import APIClient, APIRequestFactory, force_authenticate

from jobs.apis import JobDetailApi
from jobs.models import Job
from ml.generation import GENERATORS, GeneratedCandidate, register
from ml.generation.llm import RewordOutcome
from paraphrases.handout import LLM_GENERATOR

from ..corpus.factories import make_user
from ..modelhub.test_shipped_judge import PROBLEM, ShippedJudgeOn

# PROBLEM solves to 10 (% a year): $500 grows by $50 a year.
REWRITE = ("A sum of money grows to $600 after 2 years and to $700 after 4 years at simple interest. "
           "What is the rate of interest?")
SOLVED = "both solve to 10"


@dataclass(frozen=True)
class StandInLLM:
    """The instruct LLM's interface (``ml.generation.llm.InstructLLMGenerator``: a frozen dataclass
    with a ``config`` the handout replaces) that hands over one verified rewrite. ``before`` and
    ``after`` run just before and just after the rewrite is handed to ``on_candidate``; ``reason``
    is its ``unavailable_reason``; ``calls`` counts its ``reword`` calls."""

    name: ClassVar[str] = LLM_GENERATOR
    kind: ClassVar[str] = "neural"
    description: ClassVar[str] = "stand-in instruct LLM with one verified rewrite"

    rewrite: str = REWRITE
    before: Callable[[], None] | None = None
    after: Callable[[], None] | None = None
    reason: str | None = None
    config: Any = None
    calls: list[str] = field(default_factory=list)

    def unavailable_reason(self, resources) -> str | None:
        return self.reason

    def generate(self, text, rng, resources):
        return self.reword(text, rng, resources).candidates

    def reword(self, text, rng, resources, *, gold=None, on_candidate=None, deadline=None) -> RewordOutcome:
        self.calls.append(text)
        candidate = GeneratedCandidate(self.rewrite, LLM_GENERATOR, "", {
            "style": "retell", "reworded": 0.6,
            "verification": {"passed": True, "detail": SOLVED, "signals": {"same_answer": 1.0},
                             "original_answer": 10.0, "rewrite_answer": 10.0}})
        if self.before is not None:
            self.before()
        if on_candidate is not None:
            on_candidate(candidate)
        if self.after is not None:
            self.after()
        return RewordOutcome(candidates=[candidate], refusals=[], original=None, first_seconds=0.01, seconds=0.02,
                             stopped=None)


def stand_in_registered(test: TestCase, llm: StandInLLM) -> StandInLLM:
    """Register ``llm`` as the instruct LLM for this test (the real one comes back in cleanup)."""
    real = GENERATORS[LLM_GENERATOR]
    test.addCleanup(register, real, replace=True, default=False)
    register(llm, replace=True, default=False)
    return llm


def in_order(some: list[str], every: list[str]) -> bool:
    """Whether ``some`` is ``every`` with some items left out (the order kept)."""
    rest = iter(every)
    return all(item in rest for item in some)


def same_answer(variant: dict) -> dict | None:
    return next((r for r in variant["reasons"] if r["check"] == "same answer"), None)


class PartialApiTests(ShippedJudgeOn, TestCase):
    def setUp(self):
        super().setUp()
        override = override_settings(PARALAB_LLM=True)  # the suite switches it off (tests/conftest.py)
        override.enable()
        self.addCleanup(override.disable)
        self.staff = make_user("boss", staff=True)
        self.client_ = APIClient()
        self.client_.force_login(self.staff)

    def polled(self) -> dict:
        """``GET jobs/{id}/`` of the paraphrase job, from inside the running job (the view called
        in-process: a nested test-client request would close the test's connection)."""
        job = Job.objects.get(kind=Job.Kind.PARAPHRASE)
        request = APIRequestFactory().get(reverse("api-job-detail", args=[job.pk]))
        force_authenticate(request, user=self.staff)
        response = JobDetailApi.as_view()(request, job_id=job.pk)
        self.assertEqual(response.status_code, 200)
        return response.data

    def start(self, k: int = 3):
        with self.captureOnCommitCallbacks(execute=True):  # the inline runner: the job runs here
            response = self.client_.post(reverse("api-paraphrase") + "?async=1", {"text": PROBLEM, "k": k},
                                         format="json")
        self.assertEqual(response.status_code, 202, response.data)
        self.assertEqual(set(response.data), {"job", "status", "url"})
        polled = self.client_.get(response.data["url"]).data
        self.assertEqual(polled["status"], "succeeded", polled["error"])
        return polled

    def test_the_rule_variants_are_published_before_the_verified_rewrite_which_comes_first_at_the_end(self):
        seen: dict[str, dict] = {}
        llm = stand_in_registered(self, StandInLLM(before=lambda: seen.setdefault("before", self.polled()),
                                                   after=lambda: seen.setdefault("after", self.polled())))
        job = self.start(k=3)
        self.assertEqual(llm.calls, [PROBLEM])
        self.assertEqual(set(seen), {"before", "after"})

        before, after, result = seen["before"], seen["after"], job["result"]
        # While the LLM works: the job is running and its partial has the rule variants already.
        self.assertEqual(before["status"], "running")
        self.assertEqual(before["result"], {})
        rules = before["partial"]["variants"]
        self.assertGreaterEqual(len(rules), 1)
        self.assertTrue(all(v["generator"] != LLM_GENERATOR for v in rules))
        self.assertEqual(before["partial"]["llm"]["state"], "running")
        self.assertEqual(before["partial"]["llm"]["verified"], 0)
        # the same shape as the final answer's variants
        self.assertEqual(set(rules[0]), set(result["variants"][0]))
        self.assertTrue(all(v["checks"]["numbers"]["ok"] for v in rules))

        # The verified rewrite is published at once, first, with its same-answer check.
        self.assertEqual(after["status"], "running")
        streamed = after["partial"]["variants"]
        self.assertEqual((streamed[0]["generator"], streamed[0]["text"]), (LLM_GENERATOR, REWRITE))
        self.assertEqual(after["partial"]["llm"]["verified"], 1)
        self.assertEqual(same_answer(streamed[0])["detail"], SOLVED)
        # then rule variants already shown, in their order (a near copy of one kept may drop out)
        self.assertTrue(in_order([v["text"] for v in streamed[1:]], [v["text"] for v in rules]))

        # The final answer: the rewrite first, its same-answer check passed with both answers, then the rules'.
        first = result["variants"][0]
        self.assertEqual((first["generator"], first["text"]), (LLM_GENERATOR, REWRITE))
        check = same_answer(first)
        self.assertEqual({key: check[key] for key in ("check", "passed", "undecided", "detail")},
                         {"check": "same answer", "passed": True, "undecided": False, "detail": SOLVED})
        self.assertEqual(check["gate"], "prior (not fitted)")  # no llm_gate version promoted here
        self.assertEqual(first["reworded"], 0.6)
        self.assertGreater(first["valid_probability"], result["judge"]["floor"])
        self.assertEqual([v["text"] for v in result["variants"]], [v["text"] for v in streamed])
        self.assertTrue(all(same_answer(v) is None for v in result["variants"][1:]))
        self.assertEqual((result["llm"]["state"], result["llm"]["verified"]), ("done", 1))
        self.assertTrue(result["llm_asked"])

    def test_without_a_runnable_model_the_partial_and_the_result_say_why_and_hold_the_rule_variants(self):
        llm = stand_in_registered(self, StandInLLM(reason="no model file at /models/missing.gguf"))
        job = self.start(k=3)
        self.assertEqual(llm.calls, [])
        for answer in (job["partial"], job["result"]):
            self.assertEqual(answer["llm"]["state"], "off")
            self.assertEqual(answer["llm"]["message"], "No reworded variants: the language model cannot run "
                                                       "(no model file at /models/missing.gguf).")
            self.assertGreaterEqual(len(answer["variants"]), 1)
            self.assertTrue(all(v["generator"] != LLM_GENERATOR for v in answer["variants"]))
        self.assertTrue(in_order([v["text"] for v in job["result"]["variants"]],
                                 [v["text"] for v in job["partial"]["variants"]]))

    def test_named_generators_run_alone(self):
        llm = stand_in_registered(self, StandInLLM())
        with self.captureOnCommitCallbacks(execute=True):
            response = self.client_.post(reverse("api-paraphrase") + "?async=1",
                                         {"text": PROBLEM, "k": 3, "generators": ["reorder"]}, format="json")
        self.assertEqual(response.status_code, 202, response.data)
        job = Job.objects.get(pk=response.data["job"])
        self.assertEqual(job.status, Job.Status.SUCCEEDED, job.error)
        self.assertEqual(llm.calls, [])
        self.assertEqual(job.result["llm"]["state"], "off")
        self.assertEqual({v["generator"] for v in job.result["variants"]}, {"reorder"})
