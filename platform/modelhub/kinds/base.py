"""What a model kind is: the protocol that lets ``retrain``, the retrain API, beat and
``/models/`` stay generic (DESIGN.md, "Generation and model kinds").

A kind knows how to train a version from a :class:`TrainRequest`, how to retrain a candidate
from the annotators' gold split, how to measure a version (or the reference when none is active)
on the held-out part of that split, which of those numbers the promotion gate compares (higher
is better), what follows a promotion, and how much new human evidence arrived since its last
version. The generic code (``modelhub.retraining``, ``modelhub.services``) does the rest:
locking, the job, the gate, activation.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from core.errors import UserError
from jobs.progress import Progress
from modelhub.verdicts import Verdict, verdict_from_score

if TYPE_CHECKING:
    from django.db.models import QuerySet

    from jobs.models import Job
    from modelhub.gold import GoldSplit
    from modelhub.models import ModelVersion

# (name in the gate report, path in the nested metrics dict, label for people); higher is better
GateMetric = tuple[str, tuple[str, ...], str]


@dataclass(frozen=True)
class TrainRequest:
    """One training run of any kind (replaces the long keyword signatures)."""

    dataset_names: Sequence[str] = ()
    preset: str | None = None
    epochs: int | None = None
    max_problems: int | None = None
    base: str | None = None
    activate: bool = False
    user: Any = None
    job: Any = None
    progress: Progress | None = None
    exclude_candidate_ids: Sequence[int] = ()
    options: dict[str, Any] = field(default_factory=dict)


@runtime_checkable
class ModelKind(Protocol):
    """Everything the generic loop (``modelhub.retraining``, ``services``, ``calibration``, the
    pages) reads from a kind; :class:`KindDefaults` gives the optional members their defaults."""

    name: str
    label: str
    queue: str
    retrainable: bool
    # False: with no active version there is nothing to gate against, and the first is promoted.
    has_reference: bool
    gate_metrics: tuple[GateMetric, ...]
    # What ``retrain`` says for a kind that does not learn from labels.
    not_retrained_reason: str
    # A judge answers "is this pair valid?" with a score that is calibrated (``raw_scores``);
    # its decisions compare ``Score.<decision_column>`` with its threshold.
    is_judge: bool
    decision_column: str | None
    # A judge that decides on its raw score (ParaQD's cosine) rather than a calibrated probability.
    decides_on_raw_score: bool
    # Refitted (seconds) and recalibrated by beat when enough new human gold labels arrived.
    refits_from_gold: bool

    def train(self, request: TrainRequest) -> "ModelVersion":
        """Train (and register) a version."""
        ...

    def retrain_candidate(self, *, split: "GoldSplit", job: "Job", progress: Progress | None) -> "ModelVersion":
        """Train a candidate version from the training part of the gold split."""
        ...

    def heldout_metrics(self, *, version: "ModelVersion | None", split: "GoldSplit") -> dict[str, Any]:
        """Nested metrics of ``version`` (None: the kind's reference when nothing is active) on the
        held-out part of the split."""
        ...

    def reference_label(self, version: "ModelVersion | None") -> str:
        ...

    def gate_extras(self) -> dict[str, Any]:
        """What the gate report adds for this kind (ParaQD: the threshold it decided at)."""
        ...

    def promotion_blocker(self, version: "ModelVersion") -> str | None:
        """Why ``version`` must not be promoted whatever the gold gate says, or None."""
        ...

    def after_promotion(self, *, version: "ModelVersion", user: Any) -> list[int]:
        """Work queued after a promotion (job ids)."""
        ...

    def new_evidence(self, *, since: datetime | None) -> dict[str, int]:
        """``{"new_gold_labels", "human_model_disagreements"}`` since the last version."""
        ...

    def learns_from(self, labels: "QuerySet") -> "QuerySet":
        """The gold labels (a ``GoldLabel`` queryset) this kind can learn from."""
        ...

    def raw_scores(self, *, version: "ModelVersion", questions: list[str], paraphrases: list[str]) -> list[float]:
        """A judge's uncalibrated score per pair (what calibration is fitted on)."""
        ...

    def decision_scores(self, *, version: "ModelVersion", questions: list[str],
                        paraphrases: list[str]) -> tuple[list[float], list[float]]:
        """A judge's (raw score, score it decides on) per pair."""
        ...

    def refit_from_gold(self, *, version: "ModelVersion", user: Any) -> dict[str, Any]:
        """Refit ``version`` on the human gold labels (seconds; ``refits_from_gold`` kinds), promoted
        only when it ranks the held-out gold no worse."""
        ...

    def verdicts(self, *, version: "ModelVersion | None", questions: list[str], paraphrases: list[str],
                 threshold: float) -> list[Verdict]:
        """A judge's :class:`~modelhub.verdicts.Verdict` per pair (the judging port's answer)."""
        ...

    def store_verdicts(self, *, version: "ModelVersion", candidate_ids: list[int], verdicts: list[Verdict]) -> None:
        """Keep verdicts computed for stored candidates (``Score`` rows the queue and exports read)."""
        ...

    def score_candidates(self, *, version: "ModelVersion", candidate_ids: list[int]) -> int:
        """Judge stored candidates and keep the verdicts; how many were scored."""
        ...

    def reference_version(self, *, user: Any, activate: bool = True) -> "ModelVersion | None":
        """A version of this kind that needs no training (ParaQD: the packaged encoder), registered
        once and activated when none is; None for a kind that has none."""
        ...


class NotAJudge(UserError):
    """Raised by ``raw_scores`` of a kind that does not judge pairs."""


class KindDefaults:
    """Defaults of the optional :class:`ModelKind` members; a kind overrides what it has."""

    has_reference = True
    is_judge = False
    decision_column: str | None = None
    decides_on_raw_score = False
    refits_from_gold = False
    gate_metrics: tuple[GateMetric, ...] = ()

    @property
    def not_retrained_reason(self) -> str:
        return f"{self.name} is not retrained from labels"

    def reference_label(self, version) -> str:
        return f"v{version.pk}" if version is not None else "none"

    def gate_extras(self) -> dict[str, Any]:
        return {}

    def promotion_blocker(self, version) -> str | None:
        return None

    def after_promotion(self, *, version, user) -> list[int]:
        return []

    def learns_from(self, labels):
        return labels

    def raw_scores(self, *, version, questions, paraphrases) -> list[float]:
        raise NotAJudge(f"{self.name} versions are not judges; only judges are calibrated")

    def decision_scores(self, *, version, questions, paraphrases) -> tuple[list[float], list[float]]:
        raise NotAJudge(f"{self.name} versions are not judges")

    def refit_from_gold(self, *, version, user) -> dict[str, Any]:
        raise NotAJudge(f"{self.name} versions are not refitted from gold labels")

    def verdicts(self, *, version, questions, paraphrases, threshold: float) -> list[Verdict]:
        """From :meth:`decision_scores`: the score the kind decides on is its probability."""
        raw, decided = self.decision_scores(version=version, questions=questions, paraphrases=paraphrases)
        return [verdict_from_score(d, threshold=threshold, raw=r, label=self.label) for r, d in zip(raw, decided)]

    def store_verdicts(self, *, version, candidate_ids, verdicts) -> None:
        """Nothing kept by default: the kind's scores are recomputed where read."""

    def score_candidates(self, *, version, candidate_ids) -> int:
        return 0

    def reference_version(self, *, user, activate: bool = True):
        return None


class NotRetrainedFromLabels(KindDefaults):
    """The retraining half of :class:`ModelKind` for a kind the retrain loop never runs (STEAD
    learns from problems alone; the numeracy-aware judge is refitted by ``train_judge``)."""

    retrainable = False
    has_reference = False

    def retrain_candidate(self, *, split, job, progress):
        raise NotImplementedError(f"{self.name} is not retrained from labels")

    def heldout_metrics(self, *, version, split) -> dict[str, Any]:
        return {}

    def new_evidence(self, *, since: datetime | None) -> dict[str, int]:
        return {"new_gold_labels": 0, "human_model_disagreements": 0}
