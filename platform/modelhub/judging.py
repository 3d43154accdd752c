"""Which judge decides, and where it draws the line.

Every valid/invalid decision the platform makes about a candidate (the labelling queue's
uncertainty order, "Gold vs the active judge", the hard examples retraining weights up, the
variants export's unreviewed rows, QF filtering) reads :func:`decision`: the judge that decides
(the active ``paraqd`` or numeracy-aware ``judge`` version, the one activated last), the ``Score``
column it writes and the threshold on that column. A ParaQD version decides on its cosine
(``Score.paraqd``), a numeracy-aware judge on its calibrated probability (``Score.probability``).

The threshold is the version's calibration (``metrics["calibration"]``, fitted on validation pairs
and human gold labels by ``calibrate``) when it has one, else ParaQD's fixed 0.5 on the cosine.
The paper's σ = (cos + 1) / 2 is not touched: it stays the similarity in PQI.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from .kinds.registry import get_kind, kinds
from .models import ModelVersion

UNCALIBRATED_COSINE_THRESHOLD = 0.5
# Before any judge is active the platform reads the packaged encoder's cosine (``Score.paraqd``).
FALLBACK_KIND, FALLBACK_COLUMN = "paraqd", "paraqd"


def judge_kinds() -> tuple[str, ...]:
    """The registered kinds that judge pairs (``ModelKind.is_judge``)."""
    return tuple(kind.name for kind in kinds() if kind.is_judge)


def decision_column(kind: str) -> str:
    """What a decision of ``kind`` compares (``ModelKind.decision_column``): ParaQD its cosine,
    the numeracy-aware judge its calibrated probability."""
    return get_kind(kind).decision_column or "probability"


@dataclass(frozen=True)
class Decision:
    """How the platform decides valid/invalid right now: ``Score.<column>`` of version
    ``version_id`` strictly above ``threshold`` is valid."""

    version_id: int | None
    kind: str
    column: str
    threshold: float
    calibrated: bool

    def valid(self, score: float | None) -> bool | None:
        return None if score is None else score > self.threshold


def decision_version() -> ModelVersion | None:
    """The judge that decides: the active judge-kind version activated last (None before any)."""
    return (
        ModelVersion.objects.filter(kind__in=judge_kinds(), status=ModelVersion.Status.ACTIVE)
        .order_by("-activated_at", "-id")
        .first()
    )


def calibration_of(version: ModelVersion | None) -> dict[str, Any] | None:
    """The calibration stored with ``version`` (see ``modelhub.calibration``), or None."""
    if version is None:
        return None
    calibration = (version.metrics or {}).get("calibration")
    return calibration if isinstance(calibration, dict) and calibration.get("threshold") is not None else None


def version_threshold(version: ModelVersion | None) -> float:
    """The threshold ``version`` decides at, on its decision column."""
    calibration = calibration_of(version)
    if version is not None and get_kind(version.kind).decides_on_raw_score:  # a raw cosine
        if calibration and _finite(calibration.get("cosine_threshold")):
            return float(calibration["cosine_threshold"])
        return UNCALIBRATED_COSINE_THRESHOLD
    if calibration and _finite(calibration.get("threshold")):
        return float(calibration["threshold"])
    return 0.5


def decision() -> Decision:
    version = decision_version()
    if version is None:
        return Decision(version_id=None, kind=FALLBACK_KIND, column=FALLBACK_COLUMN,
                        threshold=UNCALIBRATED_COSINE_THRESHOLD, calibrated=False)
    return Decision(version_id=version.pk, kind=version.kind, column=decision_column(version.kind),
                    threshold=version_threshold(version), calibrated=calibration_of(version) is not None)


def _finite(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def handout_floor(version: ModelVersion | None) -> float:
    """The probability a variant must exceed to be handed out: the version's handout floor (chosen on
    validation labels for a target valid share, ``scripts/build_judge.py``), else its threshold."""
    calibration = calibration_of(version)
    if calibration and _finite(calibration.get("handout_floor")):
        return float(calibration["handout_floor"])
    return version_threshold(version)
