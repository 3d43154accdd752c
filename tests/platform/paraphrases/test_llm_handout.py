"""The instruct LLM's stage of ``paraphrase`` with its defaults: the rule variants first, then each
verified LLM rewrite judged with its ``same answer`` check (the judging port's verifier), handed
out first when it passes; the rule variants and a plain reason when the model is switched off,
missing, corrupt, failing or over its time budget.

The rules, the shipped judge and the gate run for real. Where a test needs the LLM's rewrites to
be fixed texts, a stand-in generator registered under the LLM's name hands out candidates with a
verification record (the runtime itself is tested in ``tests/ml/generation/test_llm.py`` on the
packaged SmolLM2 GGUF); the missing- and corrupt-file tests run the real generator."""
from __future__ import annotations

import time

from django.test import TestCase, override_settings

from ml.generation import GENERATORS, GeneratedCandidate, register
from ml.generation.llm import RewordOutcome
from ml.llm import packaged_smollm2_gguf
from paraphrases.handout import LLM_GENERATOR, paraphrase_variants

from ..modelhub.test_shipped_judge import PROBLEM, ShippedJudgeOn

GOOD = ("What is the rate of interest if a sum of money put at simple interest grows to $600 in 2 years "
        "and to $700 in 4 years?")
NEAR_COPY = ("What is the rate of interest if a sum of money put at simple interest grows to $600 in 2 years "
             "and to $700 in 4 years ?")
UNDECIDED = ("At simple interest, a sum of money grows to $600 in 2 years and to $700 in 4 years. What rate of "
             "interest is that?")


def verified(text: str, passed: bool | None = True, detail: str = "both solve to 10") -> GeneratedCandidate:
    return GeneratedCandidate(text, LLM_GENERATOR, "", {
        "style": "retell", "reworded": 0.6,
        "verification": {"passed": passed, "detail": detail,
                         "signals": {"same_answer": 1.0 if passed else float("nan"), "rewrite_agreement": 1.0,
                                     "original_agreement": 1.0},
                         "original_answer": 10.0, "rewrite_answer": 10.0 if passed else None}})


class StandInLLM:
    """The LLM generator's interface with fixed verified rewrites; counts its calls."""

    name, kind, description = LLM_GENERATOR, "neural", "stand-in instruct LLM"

    def __init__(self, candidates: list[GeneratedCandidate], *, fail: Exception | None = None,
                 stopped: str | None = None) -> None:
        self.candidates, self.fail, self.stopped, self.calls = candidates, fail, stopped, 0

    def unavailable_reason(self, resources):
        return None

    def generate(self, text, rng, resources):
        return self.reword(text, rng, resources, on_candidate=lambda c: None).candidates

    def reword(self, text, rng, resources, *, gold=None, on_candidate=None, deadline=None):
        self.calls += 1
        if self.fail is not None:
            raise self.fail
        for candidate in self.candidates:
            on_candidate(candidate)
        return RewordOutcome(candidates=list(self.candidates), refusals=["it states the answer (10)"],
                             first_seconds=0.1, seconds=0.2, stopped=self.stopped)


class LLMHandoutTests(ShippedJudgeOn, TestCase):
    def setUp(self):
        super().setUp()
        self.real = GENERATORS[LLM_GENERATOR]
        self.addCleanup(register, self.real, replace=True, default=False)
        override = override_settings(PARALAB_LLM=True)  # off for the test session (tests/conftest.py)
        override.enable()
        self.addCleanup(override.disable)

    def stand_in(self, candidates, **kwargs) -> StandInLLM:
        llm = StandInLLM(candidates, **kwargs)
        register(llm, replace=True, default=False)
        return llm

    def test_a_verified_rewrite_is_handed_out_first_with_both_answers_and_the_rules_are_published_before(self):
        llm = self.stand_in([verified(GOOD)])
        published = []
        result = paraphrase_variants(text=PROBLEM, k=3, on_partial=published.append)
        self.assertEqual(llm.calls, 1)
        self.assertTrue(result["llm_asked"])
        first = result["variants"][0]
        self.assertEqual((first["text"], first["generator"]), (GOOD, LLM_GENERATOR))
        same = [r for r in first["reasons"] if r["check"] == "same answer"]
        self.assertEqual([(r["passed"], r["undecided"], r["detail"], r["gate"]) for r in same],
                         [(True, False, "both solve to 10", "prior (not fitted)")])
        self.assertGreater(first["valid_probability"], result["judge"]["floor"])
        self.assertEqual(first["reworded"], 0.6)
        # Published twice: the rule variants alone (the LLM still running), then with the LLM rewrite.
        self.assertEqual(len(published), 2)
        self.assertEqual(published[0]["llm"]["state"], "running")
        self.assertNotIn(LLM_GENERATOR, [v["generator"] for v in published[0]["variants"]])
        self.assertTrue(published[0]["variants"])
        self.assertEqual(published[1]["variants"][0]["text"], GOOD)
        self.assertEqual(result["llm"]["state"], "done")
        self.assertEqual(result["llm"]["verified"], 1)

    def test_an_undecided_rewrite_is_pulled_down_by_the_gate_and_near_copies_are_not_both_handed_out(self):
        self.stand_in([verified(GOOD), verified(NEAR_COPY), verified(UNDECIDED, passed=None,
                                                                      detail="neither could be solved")])
        result = paraphrase_variants(text=PROBLEM, k=5)
        texts = [v["text"] for v in result["variants"]]
        self.assertIn(GOOD, texts)
        self.assertNotIn(NEAR_COPY, texts)  # a near copy of a handed-out variant is never handed out too
        undecided = {v["text"]: v for v in result["variants"]}.get(UNDECIDED)
        good = {v["text"]: v for v in result["variants"]}[GOOD]
        if undecided is not None:
            self.assertLess(undecided["valid_probability"], good["valid_probability"])
            check = [r for r in undecided["reasons"] if r["check"] == "same answer"][0]
            self.assertTrue(check["undecided"])

    def test_switched_off_or_named_generators_never_ask_it(self):
        llm = self.stand_in([verified(GOOD)])
        with override_settings(PARALAB_LLM=False):
            off = paraphrase_variants(text=PROBLEM, k=3)
        named = paraphrase_variants(text=PROBLEM, k=3, generators=["reorder"])
        self.assertEqual(llm.calls, 0)
        self.assertFalse(off["llm_asked"] or named["llm_asked"])
        self.assertIn("switched off", off["llm"]["message"])
        self.assertNotIn(GOOD, [v["text"] for v in off["variants"] + named["variants"]])

    def test_a_failing_runtime_or_a_spent_budget_leaves_the_rule_variants_and_says_why(self):
        self.stand_in([], fail=RuntimeError("llama.cpp aborted"))
        failed = paraphrase_variants(text=PROBLEM, k=3)
        self.assertTrue(failed["variants"])
        self.assertIn("failed (RuntimeError: llama.cpp aborted)", failed["llm"]["message"])
        self.stand_in([], fail=MemoryError())
        self.assertIn("out of memory", paraphrase_variants(text=PROBLEM, k=3)["llm"]["message"])
        self.stand_in([verified(GOOD)], stopped="stopped after 1 of 4 rewrites: the time budget ran out")
        budget = paraphrase_variants(text=PROBLEM, k=3)
        self.assertIn("time budget", budget["llm"]["message"])
        self.assertEqual(budget["variants"][0]["text"], GOOD)

    def test_a_neural_rewrite_must_also_clear_the_neural_floor(self):
        self.stand_in([verified(GOOD)])
        plain = paraphrase_variants(text=PROBLEM, k=5)
        probability = {v["text"]: v["valid_probability"] for v in plain["variants"]}[GOOD]
        with override_settings(PARALAB_NEURAL_FLOOR=probability + 0.001):
            strict = paraphrase_variants(text=PROBLEM, k=5)
        self.assertNotIn(GOOD, [v["text"] for v in strict["variants"]])
        self.assertEqual(strict["rejected"], plain["rejected"] + 1)


class MissingOrCorruptModelTests(ShippedJudgeOn, TestCase):
    """The real generator: no stand-in."""

    def test_a_missing_model_file_gives_the_rule_variants_and_the_reason(self):
        with override_settings(PARALAB_LLM=True, PARALAB_LLM_DIR="/nonexistent", PARALAB_LLM_FILE="model.gguf"):
            result = paraphrase_variants(text=PROBLEM, k=3)
        self.assertTrue(result["variants"])
        self.assertFalse(result["llm_asked"])
        self.assertIn("does not exist", result["llm"]["message"])
        self.assertTrue(all(v["generator"] != LLM_GENERATOR for v in result["variants"]))

    def test_a_corrupt_model_file_gives_the_rule_variants_and_the_reason(self):
        import tempfile
        from pathlib import Path

        with tempfile.TemporaryDirectory() as folder:
            source = packaged_smollm2_gguf()
            self.assertTrue(source, "the packaged SmolLM2 GGUF is installed by make install")
            corrupt = Path(folder) / "broken.gguf"
            with open(source, "rb") as whole:
                corrupt.write_bytes(whole.read(4096))  # the header of a real file, nothing after it
            started = time.monotonic()
            with override_settings(PARALAB_LLM=True, PARALAB_LLM_DIR=folder, PARALAB_LLM_FILE="broken.gguf"):
                result = paraphrase_variants(text=PROBLEM, k=3)
        self.assertTrue(result["variants"])
        self.assertIn("could not be loaded", result["llm"]["message"])
        self.assertLess(time.monotonic() - started, 600)  # a hang guard, not a speed target
