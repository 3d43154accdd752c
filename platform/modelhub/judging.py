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

Generation reads the same judge through the port at the end (:func:`deciding_judge`, a
:class:`Judge` answering :class:`Verdict` objects): the handout, the ``generate`` job and the
candidates' writes name no kind.
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ml.verify.gate import PRIOR, GateModel, gate_features

from .kinds.registry import get_kind, kinds
from .models import ModelVersion
from .verdicts import Verdict, verdict_from_score

__all__ = ["Decision", "Judge", "Verdict", "decision", "decision_version", "deciding_judge", "handout_floor",
           "judge_kinds", "verdict_from_score", "verified", "version_threshold"]

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


# --- The judging port -------------------------------------------------------------------------
# What generation asks of whichever judge decides: one verdict per pair, the floor a handed-out
# variant must clear, and whether its probability gates what is handed out at all. Each kind
# answers through the registry (``ModelKind.verdicts``), so a judge kind promoted tomorrow gates
# the handout without generation naming it; the verifier's signals arrive as checks of a verdict.


@dataclass(frozen=True)
class Judge:
    """The judge that decides right now (:func:`deciding_judge`).

    ``kind``: its model kind; ``version``: the active version (None: the packaged encoder's
    cosine, before any judge exists); ``threshold``: where ``valid`` is drawn; ``floor``: the
    probability a handed-out variant must exceed; ``gates``: whether that probability decides
    what is handed out (a calibrated judge) or only ranks (ParaQD's raw cosine: every candidate
    goes to the selector, which sees the paper's scores)."""

    kind: str
    version: ModelVersion | None
    threshold: float
    floor: float
    gates: bool
    calibrated: bool

    @property
    def version_id(self) -> int | None:
        return None if self.version is None else self.version.pk

    @property
    def name(self) -> str:
        return self.version.name if self.version is not None else f"{self.kind} (packaged encoder)"

    def verdicts(self, questions: Sequence[str], paraphrases: Sequence[str],
                 verifications: Sequence[Mapping[str, Any] | None] | None = None) -> list[Verdict]:
        """One :class:`Verdict` per pair, from the kind (``ModelKind.verdicts``). Where a pair
        carries a verification (an LLM rewrite re-solved, ``ml.generation.llm``), its ``same
        answer`` check joins the verdict and the gate combines every signal into its probability."""
        if len(questions) != len(paraphrases):
            raise ValueError("questions and paraphrases differ in length")
        if not questions:
            return []
        verdicts = list(get_kind(self.kind).verdicts(version=self.version, questions=list(questions),
                                                     paraphrases=list(paraphrases), threshold=self.threshold))
        if verifications is None:
            return verdicts
        return [verdict if verification is None else verified(verdict, verification)
                for verdict, verification in zip(verdicts, verifications)]

    def store(self, *, candidate_ids: Sequence[int], verdicts: Sequence[Verdict]) -> None:
        """Keep verdicts already computed for stored candidates (the queue and the exports read them)."""
        if self.version is not None and candidate_ids:
            get_kind(self.kind).store_verdicts(version=self.version, candidate_ids=list(candidate_ids),
                                              verdicts=list(verdicts))

    def score_candidates(self, *, candidate_ids: Sequence[int]) -> int:
        """Judge stored candidates and keep the verdicts; how many were scored."""
        if self.version is None or not candidate_ids:
            return 0
        return int(get_kind(self.kind).score_candidates(version=self.version, candidate_ids=list(candidate_ids)))


# The model kind whose active version combines an LLM rewrite's signals (``kinds/llm_gate.py``).
VERIFIER_GATE_KIND = "llm_gate"


def verification_gate() -> GateModel:
    """The active verification gate's model (retrained from gold labels on LLM rewrites and
    promoted by the gate), else the stated prior."""
    version = (ModelVersion.objects.filter(kind=VERIFIER_GATE_KIND, status=ModelVersion.Status.ACTIVE)
               .order_by("-activated_at", "-id").first())
    if version is None or VERIFIER_GATE_KIND not in {kind.name for kind in kinds()}:
        return PRIOR
    return get_kind(VERIFIER_GATE_KIND).verification_gate(version)


def verified(verdict: Verdict, verification: Mapping[str, Any], gate: GateModel | None = None) -> Verdict:
    """``verdict`` with the verifier's ``same answer`` check (its detail shows both answers) and
    the gate's P(valid) over the judge's probability and the verification's signals (``gate``:
    the active verification gate's by default)."""
    gate = gate or verification_gate()
    passed = verification.get("passed")
    check = {"check": "same answer", "passed": passed is True, "undecided": passed is None,
             "detail": str(verification.get("detail") or ""), "judge_probability": round(verdict.probability, 4),
             "gate": gate.source}
    features = gate_features(verdict.probability, verification, verification.get("reworded"))
    return verdict.with_checks([check], probability=gate.probability(features),
                               objection=None if passed is True else "same answer")


def deciding_judge() -> Judge:
    """The judge that decides (the active judge-kind version activated last; the packaged
    encoder's cosine before any), with its threshold and handout floor."""
    version = decision_version()
    if version is None:
        return Judge(kind=FALLBACK_KIND, version=None, threshold=UNCALIBRATED_COSINE_THRESHOLD,
                     floor=UNCALIBRATED_COSINE_THRESHOLD, gates=False, calibrated=False)
    kind = get_kind(version.kind)
    return Judge(kind=version.kind, version=version, threshold=version_threshold(version),
                 floor=handout_floor(version), gates=not kind.decides_on_raw_score,
                 calibrated=calibration_of(version) is not None)

