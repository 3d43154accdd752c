"""PAMMR: paraphrase-adapted maximal marginal relevance (paper 000, section 3.8.3, appendix E.3).

Greedy: each step adds the candidate p of C \\ S maximising

    alpha * (w_sigma * sigma(q, p) + w_delta * delta(q, p) + w_nu * nu(q, p))
        + (1 - alpha) * min over s in S of delta(p, s)

with alpha = 0.65, weights (0.5, 0.25, 0.25) and k = 2. The relevance part reads the
candidate's precomputed ``S``, ``D`` and ``N`` scores; the inter-sample part calls
``pair_diversity(p.text, s.text)``, the paper's delta_{p_i, s_j} (first argument the reference).

The paper starts from S = {} and leaves the minimum over an empty S undefined. As in MMR
(Carbonell and Goldstein 1998), which PAMMR adapts, the first pick is made on relevance alone:
the second term counts 0 while S is empty.
"""
from __future__ import annotations

import math
from collections.abc import Sequence

from .base import PairDiversity, SelectionCandidate, check_k, score_of

__all__ = ["DEFAULT_ALPHA", "DEFAULT_WEIGHTS", "pammr", "relevance"]

DEFAULT_ALPHA = 0.65
DEFAULT_WEIGHTS = (0.5, 0.25, 0.25)


def relevance(candidate: SelectionCandidate, weights: Sequence[float] = DEFAULT_WEIGHTS) -> float:
    """w_sigma * S + w_delta * D + w_nu * N of one candidate.

    >>> relevance(SelectionCandidate("x", {"S": 1.0, "D": 0.2, "N": 1.0}))
    0.8
    """
    w_sigma, w_delta, w_nu = weights
    return w_sigma * score_of(candidate, "S") + w_delta * score_of(candidate, "D") + w_nu * score_of(candidate, "N")


def _check(alpha: float, weights: Sequence[float]) -> None:
    if not 0.0 <= alpha <= 1.0:
        raise ValueError(f"alpha must lie in [0, 1], got {alpha}")
    if len(weights) != 3 or any(w < 0 for w in weights) or not math.isclose(sum(weights), 1.0, abs_tol=1e-9):
        raise ValueError(f"weights must be three non-negative numbers summing to 1, got {tuple(weights)}")


def pammr(
    candidates: Sequence[SelectionCandidate],
    *,
    k: int = 2,
    alpha: float = DEFAULT_ALPHA,
    weights: Sequence[float] = DEFAULT_WEIGHTS,
    pair_diversity: PairDiversity,
) -> list[int]:
    """Indices of up to ``k`` candidates in PAMMR's greedy order; ties go to the earlier candidate.

    >>> cands = [SelectionCandidate(t, {"S": 1.0, "D": 0.3, "N": 1.0}) for t in ("a b", "a b", "c d")]
    >>> jaccard = lambda a, b: 1 - len(set(a.split()) & set(b.split())) / len(set(a.split()) | set(b.split()))
    >>> pammr(cands, pair_diversity=jaccard)   # equal relevance: the second pick is the diverse one
    [0, 2]
    """
    check_k(k)
    _check(alpha, weights)
    rel = [relevance(c, weights) for c in candidates]
    # min over S of delta(p, s), kept up to date as S grows: one pair_diversity call per
    # (remaining candidate, newly selected) pair, never recomputed.
    nearest = [math.inf] * len(candidates)
    selected: list[int] = []
    remaining = list(range(len(candidates)))
    while remaining and len(selected) < k:
        if selected:
            newest = candidates[selected[-1]].text
            for i in remaining:
                nearest[i] = min(nearest[i], float(pair_diversity(candidates[i].text, newest)))

        def objective(i: int) -> float:
            return alpha * rel[i] + (1.0 - alpha) * (nearest[i] if selected else 0.0)

        best = max(remaining, key=lambda i: (objective(i), -i))
        selected.append(best)
        remaining.remove(best)
    return selected
