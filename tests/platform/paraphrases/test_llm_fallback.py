"""With the instruct LLM configured, ``paraphrase`` with its defaults asks it for more candidates
only where the default rules give fewer than k likely-useful variants, and its rewrites pass the
same judge as every other candidate.

The rules and the shipped judge run for real; only the LLM is a stand-in registered under its
name (the GGUF model and llama-cpp-python are an optional install that CI does not have), whose
rewrites are fixed texts."""
from __future__ import annotations

from django.test import TestCase, override_settings

from ml.generation import GENERATORS, GeneratedCandidate, register
from modelhub.judging import decision_version
from paraphrases.handout import LLM_GENERATOR, paraphrase_variants

from ..modelhub.test_shipped_judge import PROBLEM, ShippedJudgeOn

GOOD = ("What is the rate of interest if a sum of money put at simple interest grows to $600 in 2 years "
        "and to $700 in 4 years?")
WRONG_NUMBER = ("What is the rate of interest if a sum of money put at simple interest grows to $600 in 2 years "
                "and to $800 in 4 years?")


class StandInLLM:
    """The instruct LLM's interface with fixed rewrites; counts its calls."""

    name, kind, description = LLM_GENERATOR, "neural", "stand-in instruct LLM"

    def __init__(self, rewrites: list[str]) -> None:
        self.rewrites, self.calls = rewrites, 0

    def unavailable_reason(self, resources):
        return None

    def generate(self, text, rng, resources):
        self.calls += 1
        return [GeneratedCandidate(t, self.name, "", {}) for t in self.rewrites]


class LLMFallbackTests(ShippedJudgeOn, TestCase):
    def setUp(self):
        super().setUp()
        self.real = GENERATORS[LLM_GENERATOR]
        self.addCleanup(register, self.real, replace=True, default=False)
        override = override_settings(PARALAB_LLM_FALLBACK=True)  # off by default; these tests switch it on
        override.enable()
        self.addCleanup(override.disable)

    def stand_in(self, rewrites: list[str]) -> StandInLLM:
        llm = StandInLLM(rewrites)
        register(llm, replace=True, default=False)
        return llm

    def test_too_few_useful_rule_variants_ask_the_llm_and_its_rewrites_are_judged(self):
        llm = self.stand_in([GOOD, WRONG_NUMBER])
        result = paraphrase_variants(text=PROBLEM, k=5)
        self.assertTrue(result["llm_asked"])
        self.assertEqual(llm.calls, 1)
        texts = {v["text"]: v for v in result["variants"]}
        self.assertIn(GOOD, texts)  # a faithful rewrite passes the judge and is handed out
        self.assertEqual(texts[GOOD]["generator"], LLM_GENERATOR)
        self.assertGreater(texts[GOOD]["valid_probability"], result["judge"]["floor"])
        self.assertNotIn(WRONG_NUMBER, texts)  # a changed number is rejected like any candidate's
        self.assertGreaterEqual(result["rejected"], 1)

    def test_the_llm_is_not_asked_when_the_rules_give_enough(self):
        llm = self.stand_in([GOOD])
        without = paraphrase_variants(text=PROBLEM, k=1)
        # k = 1: the rules' reordered question is likely useful on this problem, so no LLM call.
        self.assertFalse(without["llm_asked"])
        self.assertEqual(llm.calls, 0)
        self.assertNotIn(GOOD, [v["text"] for v in without["variants"]])

    def test_switched_off_or_named_generators_never_ask_it(self):
        llm = self.stand_in([GOOD])
        with override_settings(PARALAB_LLM_FALLBACK=False):
            off = paraphrase_variants(text=PROBLEM, k=5)
        named = paraphrase_variants(text=PROBLEM, k=5, generators=["reorder"])
        self.assertFalse(off["llm_asked"] or named["llm_asked"])
        self.assertEqual(llm.calls, 0)
        self.assertNotIn(GOOD, [v["text"] for v in off["variants"] + named["variants"]])

    def test_without_an_installed_llm_the_answer_is_the_rules_alone(self):
        self.assertIsNotNone(decision_version())
        with override_settings(PARALAB_LLM_DIR="", PARALAB_LLM_FILE=""):
            result = paraphrase_variants(text=PROBLEM, k=5)
        self.assertFalse(result["llm_asked"])
        self.assertNotIn(LLM_GENERATOR, result["refused"])
        self.assertTrue(all(v["generator"] != LLM_GENERATOR for v in result["variants"]))

    def test_a_neural_candidate_must_also_clear_the_neural_floor(self):
        self.stand_in([GOOD])
        with override_settings(PARALAB_NEURAL_FLOOR=0.0):
            plain = paraphrase_variants(text=PROBLEM, k=5)
        probability = {v["text"]: v["valid_probability"] for v in plain["variants"]}[GOOD]
        with override_settings(PARALAB_NEURAL_FLOOR=probability + 0.001):
            strict = paraphrase_variants(text=PROBLEM, k=5)
        self.assertNotIn(GOOD, [v["text"] for v in strict["variants"]])
        self.assertEqual(strict["rejected"], plain["rejected"] + 1)
        # the rules' candidates keep the judge's own floor: what they handed out still is (one more may fill the slot)
        self.assertLessEqual({v["text"] for v in plain["variants"] if v["generator"] != LLM_GENERATOR},
                             {v["text"] for v in strict["variants"]})
