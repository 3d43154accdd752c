"""What every selector takes and returns.

A selector sees the candidates of one problem as :class:`SelectionCandidate` objects (text, the
scores the platform already computed against the original, the SCANNING prompt words and the
generator's name) and returns ``list[int]``: indices into the candidate list, in selection
order, at most ``k`` and without repeats.

>>> c = SelectionCandidate("Ann has 3 pens.", {"S": 0.95, "D": 0.2, "N": 1.0}, prompt="shuffle")
>>> score_of(c, "S"), prompt_words(c.prompt)
(0.95, ('shuffle',))
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Callable

__all__ = ["SCORE_KEYS", "PairDiversity", "SelectionCandidate", "check_k", "prompt_words", "score_of"]

# S = sigma (similarity, (cos + 1) / 2), D = delta (0.6 (1 - BLEU) + 0.4 WPD), N = nu (numeracy),
# PQI, bleu_div = 1 - BLEU, wpd, paraqd = the raw ParaQD cosine in [-1, 1]; all against the original.
SCORE_KEYS = ("S", "D", "N", "PQI", "bleu_div", "wpd", "paraqd")

# pair_diversity(a, b): the diversity of b measured against a as reference (delta_{a,b} in paper 000).
PairDiversity = Callable[[str, str], float]


@dataclass(frozen=True)
class SelectionCandidate:
    """One candidate paraphrase of a problem, with its scores against the original problem."""

    text: str
    scores: Mapping[str, float] = field(default_factory=dict)
    prompt: str = ""
    generator: str = ""


def score_of(candidate: SelectionCandidate, key: str) -> float:
    """``candidate.scores[key]`` as a float; a missing score is an error, never a silent 0.

    >>> score_of(SelectionCandidate("x", {"paraqd": 0.7}), "paraqd")
    0.7
    """
    try:
        value = candidate.scores[key]
    except KeyError:
        raise ValueError(
            f"candidate {candidate.text[:40]!r} has no {key!r} score (has {sorted(candidate.scores)})"
        ) from None
    return float(value)


def prompt_words(prompt: str) -> tuple[str, ...]:
    """The lower-cased words of a SCANNING prompt ("paraphrase replace shuffle :" keeps all).

    >>> prompt_words("Replace  shuffle")
    ('replace', 'shuffle')
    """
    return tuple(w.strip(":").lower() for w in prompt.split() if w.strip(":"))


def check_k(k: int) -> int:
    """Validate a selection budget: a non-negative integer."""
    if isinstance(k, bool) or not isinstance(k, int) or k < 0:
        raise ValueError(f"k must be a non-negative integer, got {k!r}")
    return k

