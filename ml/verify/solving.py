"""Solving a problem and its rewrite with a model behind a callable, and comparing the answers.

The model is ``complete(messages, *, seed, temperature) -> str``: any runtime (llama.cpp, an HTTP
server, a script in tests) fits behind it. Self-consistency: the first sample is greedy
(temperature 0), the others sampled; the majority is the largest cluster of equal answers
(:func:`~ml.verify.answers.same_answer`), ties going to the cluster found first, the greedy one.
A small model also mis-solves originals, so :func:`compare` trusts the dataset's gold answer
where there is one and says "undecidable" (None) when the solver fails the original too.

>>> scripted = lambda messages, *, seed, temperature: "answer = 5 * 7"
>>> original = solve("Ann has 5 bags of 7 apples. How many apples?", scripted)
>>> original.majority, original.agreement
(35.0, 1.0)
>>> compare(original, original, gold=35).detail
'both solve to 35'
"""
from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from typing import Protocol

from .answers import format_answer, gold_value, same_answer
from .evaluator import evaluate_solution
from .prompts import mask_number, masked_messages, solve_messages

__all__ = ["AnswerCheck", "Complete", "SolveResult", "compare", "majority_answer", "masked_number_check", "solve"]


class Complete(Protocol):
    """A chat model: messages in the OpenAI shape in, the reply's text out."""

    def __call__(self, messages: list[dict], *, seed: int, temperature: float) -> str: ...


@dataclass(frozen=True)
class SolveResult:
    """The answers of ``samples`` solves (None where a program was refused or unreadable), the
    majority answer, the share of samples that agree with it, the programs read, the errors."""

    answers: list[float | None]
    majority: float | None
    agreement: float
    programs: list[str] = field(default_factory=list)
    errors: list[str | None] = field(default_factory=list)


@dataclass(frozen=True)
class AnswerCheck:
    """Whether a rewrite keeps the answer: ``passed`` is None when it cannot be decided, ``detail``
    says why in words, ``signals`` are the numbers a judge combines (nan where unknown)."""

    passed: bool | None
    detail: str
    signals: dict[str, float]


def majority_answer(answers: list[float | None]) -> tuple[float | None, float]:
    """The majority of ``answers`` by tolerant equality and the share of all answers in it.

    >>> majority_answer([35.0, 40.0, 35.00000001, None])
    (35.0, 0.5)
    """
    clusters: list[list[float]] = []
    for answer in answers:
        if answer is None:
            continue
        for cluster in clusters:
            if same_answer(cluster[0], answer):
                cluster.append(answer)
                break
        else:
            clusters.append([answer])
    if not clusters:
        return None, 0.0
    best = max(clusters, key=len)  # max keeps the first of equal lengths: the greedy sample's
    return best[0], len(best) / len(answers)


def solve(problem: str, complete: Complete, samples: int = 3, temperature: float = 0.7,
          seed: int = 0) -> SolveResult:
    """Solve ``problem`` ``samples`` times: the first at temperature 0, the rest at
    ``temperature``, sample ``i`` with seed ``seed + i``. What the model writes never raises;
    an error of ``complete`` itself (the runtime failing) propagates to the caller."""
    if samples < 1:
        raise ValueError("samples must be at least 1")
    messages = solve_messages(problem)
    answers, programs, errors = [], [], []
    for i in range(samples):
        text = complete(messages, seed=seed + i, temperature=0.0 if i == 0 else temperature)
        solution = evaluate_solution(text)
        answers.append(solution.value)
        programs.append(solution.program or (text if isinstance(text, str) else ""))
        errors.append(solution.error)
    majority, agreement = majority_answer(answers)
    return SolveResult(answers, majority, agreement, programs, errors)


def _flag(value: bool | None) -> float:
    return math.nan if value is None else float(value)


def compare(original: SolveResult, rewrite: SolveResult, gold: float | str | None = None) -> AnswerCheck:
    """Does the rewrite solve to the answer of the original (or, where known, the dataset's)?
    ``gold`` may be a number or a dataset's answer string ("$4.50", "#### 72"; see
    :func:`~ml.verify.answers.gold_value`; an AQuA letter must be looked up in its options first).

    >>> one = lambda x: SolveResult([x], x, 1.0)
    >>> compare(one(35.0), one(40.0)).detail
    'the original solves to 35, the rewrite to 40'
    >>> compare(one(35.0), one(40.0), gold=35).detail
    "the rewrite solves to 40, the dataset's answer is 35"
    """
    gold = gold_value(gold)
    o, r = original.majority, rewrite.majority
    same = None if o is None or r is None else same_answer(o, r)
    gold_match = None if gold is None or r is None else same_answer(r, gold)
    original_gold = None if gold is None or o is None else same_answer(o, gold)
    signals = {
        "same_answer": _flag(same),
        "gold_match": _flag(gold_match),
        "original_gold_match": _flag(original_gold),
        "rewrite_agreement": float(rewrite.agreement),
        "original_agreement": float(original.agreement),
    }
    fo, fr, fg = format_answer(o), format_answer(r), format_answer(gold)
    if r is None:
        return AnswerCheck(None, "the rewrite could not be solved", signals)
    if gold is not None:
        if gold_match:
            if original_gold:
                return AnswerCheck(True, f"both solve to {fr}", signals)
            shown = "could not be solved" if o is None else f"solves to {fo}"
            return AnswerCheck(True, f"the rewrite solves to {fr}, the dataset's answer (the original {shown})",
                               signals)
        if original_gold:
            return AnswerCheck(False, f"the rewrite solves to {fr}, the dataset's answer is {fg}", signals)
        # The solver fails the original too: a wrong answer on the rewrite says nothing about it.
        shown = "could not be solved" if o is None else f"solves to {fo}"
        return AnswerCheck(None, f"the rewrite solves to {fr}, the dataset's answer is {fg}, but the "
                                 f"original {shown} too", signals)
    if o is None:
        return AnswerCheck(None, "the original could not be solved", signals)
    if same:
        return AnswerCheck(True, f"both solve to {fr}", signals)
    return AnswerCheck(False, f"the original solves to {fo}, the rewrite to {fr}", signals)


def masked_number_check(rewrite: str, answer: float | str, complete: Complete, rng: random.Random,
                        seed: int = 0) -> dict[str, float]:
    """The backward check (FOBAR): hide one number of ``rewrite``, tell the model the answer, and
    see whether it recovers the number. ``masked_recovered`` is 1.0/0.0, nan when the rewrite has
    no number to hide or the model's program could not be evaluated.

    >>> scripted = lambda messages, *, seed, temperature: "hidden * 7 = 35\\nanswer = hidden"
    >>> masked_number_check("Ann has 5 bags of 7 apples.", 35, scripted, random.Random(1))["masked_recovered"]
    1.0
    """
    try:
        masked = mask_number(rewrite, rng)
    except ValueError:
        return {"masked_recovered": math.nan, "masked_hidden": math.nan, "masked_value": math.nan}
    solution = evaluate_solution(complete(masked_messages(masked.text_with_blank, answer), seed=seed,
                                          temperature=0.0))
    recovered = None if solution.value is None else same_answer(solution.value, masked.hidden_value)
    return {
        "masked_recovered": _flag(recovered),
        "masked_hidden": masked.hidden_value,
        "masked_value": math.nan if solution.value is None else solution.value,
    }
