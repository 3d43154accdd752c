"""One entry point for every selector: ``select(name, source, candidates, k=..., **options)``.

=========  ===============================================================================
name       what it does
=========  ===============================================================================
pammr      SCANNING's pipeline: QF-PCF, then PAMMR over the survivors when at least k
           candidates survive, else PAMMR over the whole pool (a strict filter must not leave
           a problem with fewer than k paraphrases when the pool has k); ``apply_qf_pcf=False``
           skips the filter. ``pair_diversity`` defaults to ``ml.metrics.pair_diversity``
           (delta of paper 000), imported on first use.
dips       DiPS' lazy greedy over F(X) (options: ``config``, ``word_similarity``, ``word_vectors``)
tree       paper 004's tree ranking (options: ``prune_jaccard``, ``content_lemmas``, ...)
mwp        paper 002's selection with the number filter (options: ``threshold``,
           ``equation_numbers``)
qf_pcf     QF-PCF alone: the survivors ranked by PQI (highest first; a missing PQI ranks last),
           ties in input order, at most k
none       no automatic selection: returns ``[]``; every candidate stays unselected for a person
           to pick
=========  ===============================================================================

>>> select("none", "Tom has 3 apples.", [SelectionCandidate("3 apples are Tom's.")], k=2)
[]
>>> select("best", "x", [], k=1)
Traceback (most recent call last):
...
ValueError: unknown selector 'best' (known: pammr, dips, tree, mwp, qf_pcf, none)
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..metrics.pqi import pair_diversity
from .base import PairDiversity, SelectionCandidate, check_k
from .dips import dips
from .mwp import mwp_select
from .pammr import pammr
from .qf_pcf import QFThresholds, qf_pcf
from .tree_rank import tree_rank

__all__ = ["SELECTORS", "default_pair_diversity", "select"]

SELECTORS = ("pammr", "dips", "tree", "mwp", "qf_pcf", "none")


def default_pair_diversity() -> PairDiversity:
    """``ml.metrics.pair_diversity`` (0.6 (1 - BLEU) + 0.4 WPD, spaCy lemmas)."""
    return pair_diversity


def _pammr_pipeline(
    candidates: Sequence[SelectionCandidate],
    *,
    k: int,
    apply_qf_pcf: bool = True,
    thresholds: QFThresholds = QFThresholds(),
    pair_diversity: PairDiversity | None = None,
    **options: Any,
) -> list[int]:
    pool = list(range(len(candidates)))
    if apply_qf_pcf:
        passing = qf_pcf(candidates, thresholds)
        if len(passing) >= k:
            pool = passing
    picks = pammr(
        [candidates[i] for i in pool], k=k, pair_diversity=pair_diversity or default_pair_diversity(), **options
    )
    return [pool[p] for p in picks]


def _qf_pcf_ranked(
    candidates: Sequence[SelectionCandidate], *, k: int, thresholds: QFThresholds = QFThresholds()
) -> list[int]:
    passing = qf_pcf(candidates, thresholds)
    passing.sort(key=lambda i: -float(candidates[i].scores.get("PQI", float("-inf"))))
    return passing[:k]


def select(name: str, source: str, candidates: Sequence[SelectionCandidate], *, k: int, **options: Any) -> list[int]:
    """Indices of the candidates selector ``name`` picks, in selection order (``tree``: sorted
    v1..vk by Jaccard distance, as the paper orders its variants), at most ``k``, no repeats."""
    if name not in SELECTORS:
        raise ValueError(f"unknown selector {name!r} (known: {', '.join(SELECTORS)})")
    check_k(k)
    if name == "none" or k == 0 or not candidates:
        return []
    if name == "pammr":
        return _pammr_pipeline(candidates, k=k, **options)
    if name == "dips":
        return dips(source, candidates, k=k, **options)
    if name == "tree":
        return tree_rank(source, candidates, k=k, **options)
    if name == "mwp":
        return mwp_select(source, candidates, k=k, **options)
    return _qf_pcf_ranked(candidates, k=k, **options)
