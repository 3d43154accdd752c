"""QF-PCF: SCANNING's two-stage filter (paper 000, section 3.8 and appendix E.3).

QF (quality filtering) keeps a candidate when every one of sigma, delta and nu is *strictly*
greater than its threshold (tau_sigma 0.9, tau_delta 0.15, tau_nu 0.6). PCF (prompt consistency
filtering) then asks the diversity that the prompt promised: ``shuffle`` (s-noise) needs
WPD >= 0.1, ``replace`` (c-noise) needs 1 - BLEU >= 0.3, ``fix`` (cs-noise) needs delta >= 0.25;
a prompt combining several words needs all their conditions (the paper's "intersection").
Prompt words without a condition (``passive``, ``paraphrase``) or no prompt add none.

>>> good = SelectionCandidate("a", {"S": 0.95, "D": 0.3, "N": 1.0, "wpd": 0.2}, prompt="shuffle")
>>> flat = SelectionCandidate("b", {"S": 0.95, "D": 0.3, "N": 1.0, "wpd": 0.05}, prompt="shuffle")
>>> qf_pcf([good, flat])
[0]
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .base import SelectionCandidate, prompt_words, score_of

__all__ = ["PCF_CONDITIONS", "QFThresholds", "prompt_conditions_met", "qf_pcf", "quality_filter"]

# prompt word -> (score key, minimum; the score must be >= it): tau_s, tau_c, tau_sc of appendix E.3.
PCF_CONDITIONS: Mapping[str, tuple[str, float]] = {
    "shuffle": ("wpd", 0.1),
    "replace": ("bleu_div", 0.3),
    "fix": ("D", 0.25),
}


@dataclass(frozen=True)
class QFThresholds:
    """tau_sigma, tau_delta, tau_nu of QF (appendix E.3: 0.9, 0.15, 0.6); a score passes when
    strictly greater."""

    sigma: float = 0.9
    delta: float = 0.15
    nu: float = 0.6

    def __post_init__(self) -> None:
        for name in ("sigma", "delta", "nu"):
            value = getattr(self, name)
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"QF threshold {name} must lie in [0, 1], got {value}")


def _passes_quality(candidate: SelectionCandidate, thresholds: QFThresholds) -> bool:
    # NaN compares False, so a candidate with an undefined score never passes.
    return (
        score_of(candidate, "S") > thresholds.sigma
        and score_of(candidate, "D") > thresholds.delta
        and score_of(candidate, "N") > thresholds.nu
    )


def quality_filter(candidates: Sequence[SelectionCandidate], thresholds: QFThresholds = QFThresholds()) -> list[int]:
    """Indices (input order) of the candidates whose S, D and N all exceed the thresholds.

    >>> quality_filter([SelectionCandidate("x", {"S": 0.9, "D": 0.5, "N": 1.0})])  # 0.9 is not > 0.9
    []
    """
    return [i for i, c in enumerate(candidates) if _passes_quality(c, thresholds)]


def prompt_conditions_met(candidate: SelectionCandidate) -> bool:
    """PCF for one candidate: every condition of its prompt words holds (>=, as in the paper).

    >>> prompt_conditions_met(SelectionCandidate("x", {"bleu_div": 0.3}, prompt="replace"))
    True
    >>> prompt_conditions_met(SelectionCandidate("x", {}, prompt="passive"))
    True
    """
    for word in dict.fromkeys(prompt_words(candidate.prompt)):
        condition = PCF_CONDITIONS.get(word)
        if condition is not None:
            key, minimum = condition
            if not score_of(candidate, key) >= minimum:
                return False
    return True


def qf_pcf(candidates: Sequence[SelectionCandidate], thresholds: QFThresholds = QFThresholds()) -> list[int]:
    """Indices (input order) of the candidates passing QF and then PCF."""
    return [i for i in quality_filter(candidates, thresholds) if prompt_conditions_met(candidates[i])]
