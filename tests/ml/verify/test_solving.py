"""Solving with a scripted ``complete`` callable, comparing answers, and the masked-number check."""
from __future__ import annotations

import math
import random

from ml.verify import SolveResult, compare, masked_number_check, solve


class Scripted:
    """A fake chat model: replies from a list in turn; records every call's seed and temperature."""

    def __init__(self, *replies: str) -> None:
        self.replies = list(replies)
        self.calls: list[dict] = []

    def __call__(self, messages, *, seed, temperature):
        self.calls.append({"messages": messages, "seed": seed, "temperature": temperature})
        return self.replies[(len(self.calls) - 1) % len(self.replies)]


PROBLEM = "Ann has 5 bags with 7 apples in each. How many apples does she have?"


def test_solve_samples_greedy_first_then_sampled_with_seeds():
    model = Scripted("answer = 5 * 7")
    result = solve(PROBLEM, model, samples=3, temperature=0.7, seed=10)
    assert [c["temperature"] for c in model.calls] == [0.0, 0.7, 0.7]
    assert [c["seed"] for c in model.calls] == [10, 11, 12]
    assert model.calls[0]["messages"][-1]["content"] == PROBLEM
    assert result.answers == [35.0, 35.0, 35.0]
    assert (result.majority, result.agreement) == (35.0, 1.0)
    assert result.programs == ["answer = 5 * 7"] * 3


def test_solve_takes_the_majority_and_counts_refusals_against_agreement():
    model = Scripted("answer = 5 * 7", "```python\nanswer = 5 + 7\n```", "total = 35.0000001\nanswer = total",
                     "import os\nanswer = 1")
    result = solve(PROBLEM, model, samples=4)
    assert result.answers == [35.0, 12.0, 35.0000001, None]
    assert result.majority == 35.0
    assert result.agreement == 0.5
    assert result.errors[3] == "imports are not allowed"


def test_solve_breaks_ties_toward_the_greedy_sample():
    assert solve(PROBLEM, Scripted("answer = 40", "answer = 35"), samples=2).majority == 40.0


def test_solve_without_any_answer():
    result = solve(PROBLEM, Scripted("I don't know."), samples=2)
    assert (result.majority, result.agreement, result.answers) == (None, 0.0, [None, None])


def _result(*answers):
    values = [a for a in answers if a is not None]
    majority = max(set(values), key=values.count) if values else None
    return SolveResult(list(answers), majority, values.count(majority) / len(answers) if values else 0.0)


def test_compare_same_answer():
    check = compare(_result(35.0, 35.0, 35.0), _result(35.0, 35.0, 40.0))
    assert check.passed is True
    assert check.detail == "both solve to 35"
    assert check.signals["same_answer"] == 1.0
    assert check.signals["original_agreement"] == 1.0
    assert math.isclose(check.signals["rewrite_agreement"], 2 / 3)
    assert math.isnan(check.signals["gold_match"])


def test_compare_disagreement():
    check = compare(_result(35.0), _result(40.0))
    assert check.passed is False
    assert check.detail == "the original solves to 35, the rewrite to 40"
    assert check.signals["same_answer"] == 0.0


def test_compare_gold_mismatch():
    check = compare(_result(35.0), _result(40.0), gold=35.0)
    assert check.passed is False
    assert check.detail == "the rewrite solves to 40, the dataset's answer is 35"
    assert check.signals["gold_match"] == 0.0 and check.signals["original_gold_match"] == 1.0


def test_compare_gold_decides_over_a_missolved_original():
    check = compare(_result(30.0), _result(4.5), gold=4.5)
    assert check.passed is True
    assert check.detail == "the rewrite solves to 4.5, the dataset's answer (the original solves to 30)"
    # The solver fails the original too: a wrong rewrite answer is not evidence against the rewrite.
    unsure = compare(_result(30.0), _result(30.0), gold=35.0)
    assert unsure.passed is None
    assert "the original solves to 30 too" in unsure.detail


def test_compare_undecidable_without_answers():
    assert compare(_result(35.0), _result(None, None)).passed is None
    check = compare(_result(None), _result(35.0))
    assert check.passed is None and check.detail == "the original could not be solved"
    assert math.isnan(check.signals["same_answer"])


def test_masked_number_check_recovered_and_not():
    rewrite = "Ann has 5 bags with 7 apples in each. How many apples does she have?"
    rng = random.Random(0)
    backward = Scripted("hidden * 7 = 35\nanswer = hidden", "5 * hidden = 35\nanswer = hidden")
    first = masked_number_check(rewrite, 35, backward, rng)
    second = masked_number_check(rewrite, 35, backward, rng)
    hidden = {first["masked_hidden"], second["masked_hidden"]}
    assert hidden <= {5.0, 7.0}
    for result, value in ((first, 5.0), (second, 7.0)):
        assert result["masked_value"] == value
        assert result["masked_recovered"] == float(result["masked_hidden"] == value)
    # The model is told the answer and shown the blank.
    prompt = backward.calls[0]["messages"][-1]["content"]
    assert "___" in prompt and "The answer to the problem is 35." in prompt


def test_masked_number_check_wrong_unreadable_and_no_number():
    rewrite = "Ann has 5 bags with 7 apples in each. How many apples does she have?"
    wrong = masked_number_check(rewrite, 35, Scripted("answer = 6"), random.Random(0))
    assert wrong["masked_recovered"] == 0.0
    unreadable = masked_number_check(rewrite, 35, Scripted("no idea"), random.Random(0))
    assert math.isnan(unreadable["masked_recovered"]) and math.isnan(unreadable["masked_value"])
    assert math.isnan(masked_number_check("No numbers.", 35, Scripted("answer = 1"), random.Random(0))["masked_recovered"])


def test_compare_reads_a_gold_answer_string():
    check = compare(_result(72.0), _result(70.0), gold="Natalia sold 24 clips.\n#### 72")
    assert check.passed is False and check.detail == "the rewrite solves to 70, the dataset's answer is 72"
