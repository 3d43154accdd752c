"""The LLM rewrite gate (``llm_gate``): retrained by the generic loop from gold labels on the
instruct LLM's rewrites, promoted only when it ranks the held-out gold no worse than what decides
(the stated prior at first), and then what the judging port combines an LLM rewrite's signals with."""
from __future__ import annotations

from unittest import mock

from django.test import TestCase

from annotation.models import GoldLabel
from jobs.models import Job
from ml.verify.gate import PRIOR, GateModel
from modelhub.judging import verification_gate
from modelhub.kinds.llm_gate import KIND
from modelhub.selectors import modelversion_active
from modelhub.services import RetrainError

from ..corpus.factories import make_candidate, make_gold
from .retrain_helpers import RetrainSetUpMixin


def verification(passed: bool | None, agreement: float) -> dict:
    return {"passed": passed, "detail": "both solve to 5" if passed else "neither could be solved",
            "signals": {"same_answer": 1.0 if passed else None, "rewrite_agreement": agreement,
                        "original_agreement": 1.0},
            "original_answer": 5.0, "rewrite_answer": 5.0 if passed else None}


class LLMGateRetrainTests(RetrainSetUpMixin, TestCase):
    def setUp(self):
        super().setUp()
        # 24 LLM rewrites with annotators' gold: the verified ones valid, the undecided ones not.
        for n in range(24):
            problem = self.problems[n % len(self.problems)]
            valid = n % 2 == 0
            candidate = make_candidate(problem, f"{problem.text} (rewording {n})", generator="instruct_llm",
                                       metadata={"verification": verification(True if valid else None,
                                                                              1.0 if valid else 0.34),
                                                 "reworded": 0.5})
            make_gold(candidate, valid=valid, source=GoldLabel.Source.AGREEMENT)

    def retrain(self) -> Job:
        return self.run_retrain(kind=KIND)

    def test_a_refit_that_ranks_held_out_gold_no_worse_is_promoted_and_gates_the_rewrites(self):
        self.assertIs(verification_gate(), PRIOR)
        job = self.retrain()
        self.assertEqual(job.status, Job.Status.SUCCEEDED, job.error)
        self.assertTrue(job.result["promoted"], job.result["gate"]["reason"])
        self.assertEqual(job.result["gate"]["checks"][0]["metric"], "auc")
        active = modelversion_active(kind=KIND)
        self.assertEqual(active.pk, job.result["version"])
        gate = verification_gate()
        self.assertTrue(gate.source.startswith("fitted on"), gate.source)
        self.assertGreater(gate.weights["same_answer"], 0)

    def test_a_refit_that_ranks_held_out_gold_worse_is_not_promoted(self):
        backwards = GateModel(weights={"same_answer": -4.0, "undecided": 4.0}, source="fitted backwards")
        with mock.patch("modelhub.kinds.llm_gate.fit_gate", return_value=backwards):
            job = self.retrain()
        self.assertEqual(job.status, Job.Status.SUCCEEDED, job.error)
        self.assertFalse(job.result["promoted"])
        self.assertIsNone(modelversion_active(kind=KIND))
        self.assertIs(verification_gate(), PRIOR)  # what decides is untouched

    def test_too_little_gold_on_llm_rewrites_is_said_plainly_and_beat_is_not_asked(self):
        from modelhub.kinds.registry import get_kind

        keep = list(GoldLabel.objects.filter(candidate__generator="instruct_llm").values_list("pk", flat=True)[:4])
        GoldLabel.objects.filter(candidate__generator="instruct_llm").exclude(pk__in=keep).delete()
        self.assertEqual(get_kind(KIND).new_evidence(since=None)["new_gold_labels"], 0)
        job = self.retrain()
        self.assertEqual(job.status, Job.Status.FAILED)
        self.assertIn("needs at least", job.error)
        with self.assertRaises(RetrainError):  # nothing at all to learn from: refused before any job
            GoldLabel.objects.all().delete()
            self.retrain()
