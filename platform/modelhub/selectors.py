"""Reads of model versions (staff only over the API; the services and tasks read them freely)."""
from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db.models import Q, QuerySet
from django.utils import timezone

from annotation.models import GoldLabel
from jobs.models import Job

from .kinds.registry import get_kind
from .models import ModelVersion

# Gold labels that come from the platform's own annotators (imported ones are evaluation data).
HUMAN_GOLD_SOURCES = (GoldLabel.Source.AGREEMENT, GoldLabel.Source.ADJUDICATION)


def modelversion_active(*, kind: str) -> ModelVersion | None:
    """The active version of ``kind``, or None when none was activated yet."""
    return ModelVersion.objects.filter(kind=kind, status=ModelVersion.Status.ACTIVE).first()


def modelversion_list(*, kind: str | None = None) -> QuerySet[ModelVersion]:
    """Every version, newest first, optionally of one ``kind``."""
    qs = ModelVersion.objects.select_related("created_by")
    if kind:
        qs = qs.filter(kind=kind)
    return qs.order_by("-created_at", "-id")


def modelversion_get(*, version_id: int, kind: str | None = None) -> ModelVersion | None:
    """The version with this id (and kind, when given), or None."""
    qs = ModelVersion.objects.filter(pk=version_id)
    if kind:
        qs = qs.filter(kind=kind)
    return qs.first()


# --- retraining ----------------------------------------------------------------------------------
def modelversion_latest(*, kind: str) -> ModelVersion | None:
    """The newest version of ``kind`` whatever its status (a retrain's "last version")."""
    return ModelVersion.objects.filter(kind=kind).order_by("-created_at", "-id").first()


def human_gold_labels(*, since: datetime | None = None) -> QuerySet[GoldLabel]:
    """Gold labels that came from the platform's annotators (agreement or staff adjudication),
    created after ``since`` when given. Imported gold labels are evaluation data, not new evidence."""
    qs = GoldLabel.objects.filter(source__in=HUMAN_GOLD_SOURCES)
    if since is not None:
        qs = qs.filter(created_at__gt=since)
    return qs


def retrain_job_in_progress(*, kind: str) -> Job | None:
    """The queued or running retrain job of ``kind``, if any (at most one runs at a time).

    A queued job older than the broker's visibility timeout lost its message and never ran: it
    does not block a new retrain (a running one that stopped reporting is failed by the reaper).
    """
    lost_before = timezone.now() - timedelta(seconds=settings.PARALAB_TASK_HARD_LIMIT_S + 3600)
    return (
        Job.objects.filter(kind=Job.Kind.RETRAIN, params__model=kind)
        .filter(Q(status=Job.Status.RUNNING) | Q(status=Job.Status.QUEUED, created_at__gte=lost_before))
        .order_by("created_at", "id")
        .first()
    )


def retrain_trigger(*, kind: str) -> dict[str, Any]:
    """Whether enough new human evidence arrived since the last version of ``kind`` to retrain:
    ``{"kind", "last_version", "since", "new_gold_labels", "human_model_disagreements", "new",
    "threshold", "due"}``. ``new`` = gold labels from annotators created after the last version
    (any status) plus those of them the active ParaQD version disagrees with (so a model mistake
    counts twice); due when ``new >= threshold`` (``PARALAB_RETRAIN_MIN_NEW``)."""
    last = modelversion_latest(kind=kind)
    since = last.created_at if last is not None else None
    evidence = get_kind(kind).new_evidence(since=since)
    gold, disagreements = evidence["new_gold_labels"], evidence["human_model_disagreements"]
    threshold = int(settings.PARALAB_RETRAIN_MIN_NEW)
    return {
        "kind": kind,
        "last_version": last.pk if last is not None else None,
        "since": since.isoformat() if since is not None else None,
        "new_gold_labels": gold,
        "human_model_disagreements": disagreements,
        "new": gold + disagreements,
        "threshold": threshold,
        "due": gold + disagreements >= threshold,
    }


def model_warnings(version: ModelVersion | None) -> list[str]:
    """What a staff member must know before trusting ``version``: every ranking it was measured by
    (evaluations, calibration, the promotion gate's held-out metrics, training validation) that is
    below chance (ROC AUC < 0.5: it prefers invalid pairs to valid ones) or below its base model."""
    if version is None:
        return []
    metrics = version.metrics if isinstance(version.metrics, dict) else {}
    warnings: list[str] = []

    def below_chance(auc: Any, where: str) -> None:
        if isinstance(auc, (int, float)) and auc < 0.5:
            warnings.append(f"below chance on {where}: ROC AUC {auc:.3f} (it ranks invalid pairs above valid ones)")

    for name, result in (metrics.get("eval") or {}).items():
        if isinstance(result, dict):
            below_chance(result.get("auc"), f"the {name} evaluation")
    calibration = metrics.get("calibration")
    if isinstance(calibration, dict):
        below_chance(calibration.get("auc"), "its calibration pairs")
    gate = metrics.get("gate") if isinstance(metrics.get("gate"), dict) else {}
    side = gate.get("candidate") if isinstance(gate.get("candidate"), dict) else {}
    held = side.get("metrics") if isinstance(side.get("metrics"), dict) else {}
    below_chance(held.get("auc"), "the held-out gold of its promotion gate")
    training = metrics.get("training") if isinstance(metrics.get("training"), dict) else {}
    auc, base = training.get("best_validation_auc"), training.get("base_validation_auc")
    below_chance(auc, "its training validation pairs")
    if isinstance(auc, (int, float)) and isinstance(base, (int, float)) and auc < base:
        warnings.append(f"below its base model on validation: ROC AUC {auc:.3f} against {base:.3f}")
    return warnings
