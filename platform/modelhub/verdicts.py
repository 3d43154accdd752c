"""What a judge answers for one pair (:class:`Verdict`), the currency of the judging port
(``modelhub.judging``). Its own module, importing nothing of the platform, so the kinds' protocol
(``modelhub.kinds.base``) and the port can both name it."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

__all__ = ["Verdict", "verdict_from_score"]


@dataclass(frozen=True)
class Verdict:
    """A judge's answer for one (problem, paraphrase) pair.

    ``probability``: P(valid), calibrated where the kind is (ParaQD without a calibration: σ of
    its cosine); ``valid``: at the judge's threshold; ``objection``: the check that counts most
    against the pair (None when none does); ``checks``: the explanation, one dict per check
    (``{"check", "passed", "detail", ...}``) as the pages show it; ``cosine`` and ``raw``: the
    encoder's cosine and the kind's uncalibrated score where it has them; ``features``: what the
    kind computed, for storage.

    >>> Verdict(probability=0.9, valid=True).objection is None
    True
    """

    probability: float
    valid: bool
    objection: str | None = None
    checks: tuple[dict[str, Any], ...] = ()
    cosine: float | None = None
    raw: float | None = None
    features: dict[str, Any] | None = None

    def with_checks(self, extra: Sequence[dict[str, Any]], *, probability: float | None = None,
                    objection: str | None = None) -> "Verdict":
        """A copy with ``extra`` checks appended (a verifier's), its probability and objection
        replaced where given."""
        return replace(self, checks=(*self.checks, *extra),
                       probability=self.probability if probability is None else float(probability),
                       objection=objection if objection is not None else self.objection)


def verdict_from_score(score: float, *, threshold: float, raw: float | None = None,
                       cosine: float | None = None, label: str = "score") -> Verdict:
    """A verdict for a kind that only has a score to decide on (``ModelKind.decision_scores``)."""
    score = float(score)
    check = {"check": label, "passed": score > threshold, "detail": f"{score:.3f} (line {threshold:.3f})"}
    return Verdict(probability=score, valid=score > threshold, objection=None if score > threshold else label,
                   checks=(check,), cosine=cosine, raw=raw)
