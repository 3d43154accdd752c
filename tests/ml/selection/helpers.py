"""Fakes with hand-computable values for the selection tests."""
from __future__ import annotations

from ml.selection import SelectionCandidate


def jaccard_words(a: str, b: str) -> float:
    """Jaccard distance of the two texts' word sets: a symmetric stand-in for pair_diversity."""
    x, y = set(a.split()), set(b.split())
    union = x | y
    return 0.0 if not union else 1.0 - len(x & y) / len(union)


def cand(text: str = "x", prompt: str = "", **scores: float) -> SelectionCandidate:
    return SelectionCandidate(text=text, scores=scores, prompt=prompt)
