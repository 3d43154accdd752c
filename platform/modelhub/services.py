"""Writes to model versions: register a trained version, activate it, record its metrics.

A version starts as a ``candidate``. Activating one makes it the single ``active`` version of its
kind and retires the previous one, in one transaction: the database constraint
``modelversion_one_active_per_kind`` would refuse a second active row anyway, so the old one is
retired first and the rows of that kind are locked while it happens.

Retraining: :func:`model_retrain_start` queues a retrain job (``modelhub.retraining`` is its body:
held-out gold split, candidate, promotion gate, re-scoring); :func:`model_retrain_check` is what
Celery beat runs every ``PARALAB_RETRAIN_INTERVAL_S`` seconds.
"""
from __future__ import annotations

import copy
import zlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from core.errors import Conflict
from jobs import tasks
from jobs.models import Job
from jobs.requests import JobRequest
from jobs.services import job_create, job_enqueue
from paraphrases.models import IMPORTED_PAIR_PREFIX

from .kinds.registry import get_kind
from .models import ModelVersion
from .selectors import human_gold_labels, retrain_job_in_progress, retrain_trigger

if TYPE_CHECKING:
    from django.contrib.auth.models import AbstractBaseUser


def modelversion_create(
    *,
    kind: str,
    base_model: str,
    artifact_path: str = "",
    training_data: Mapping[str, Any] | None = None,
    params: Mapping[str, Any] | None = None,
    metrics: Mapping[str, Any] | None = None,
    job: Job | None = None,
    created_by: AbstractBaseUser | None = None,
    name: str = "",
) -> ModelVersion:
    """A new ``candidate`` version of ``kind`` (a kind of the registry, ``modelhub.kinds``);
    ValueError for an unknown kind."""
    get_kind(kind)
    return ModelVersion.objects.create(
        kind=kind,
        name=name,
        base_model=base_model,
        artifact_path=str(artifact_path),
        training_data=dict(training_data or {}),
        params=dict(params or {}),
        metrics=dict(metrics or {}),
        status=ModelVersion.Status.CANDIDATE,
        job=job,
        created_by=created_by if getattr(created_by, "is_authenticated", False) else None,
    )


def modelversion_activate(*, version: ModelVersion) -> ModelVersion:
    """Make ``version`` the active one of its kind; the previously active version becomes retired.

    Activating the already active version changes nothing. Returns the refreshed version.
    """
    with transaction.atomic():
        # Lock every version of the kind: two concurrent activations serialise here.
        list(ModelVersion.objects.select_for_update().filter(kind=version.kind).values_list("pk", flat=True))
        current = ModelVersion.objects.get(pk=version.pk)
        if current.status == ModelVersion.Status.ACTIVE:
            version.refresh_from_db()
            return version
        ModelVersion.objects.filter(kind=version.kind, status=ModelVersion.Status.ACTIVE).update(
            status=ModelVersion.Status.RETIRED
        )
        ModelVersion.objects.filter(pk=version.pk).update(
            status=ModelVersion.Status.ACTIVE, activated_at=timezone.now()
        )
    version.refresh_from_db()
    return version


def modelversion_set_metrics(
    *, version: ModelVersion, metrics: Mapping[str, Any], path: tuple[str, ...] = ()
) -> ModelVersion:
    """Merge ``metrics`` into ``version.metrics`` at ``path`` (e.g. ``("eval", "aqua-test")``).

    Keys already there and not in ``metrics`` are kept; the row is locked while it is updated,
    so two evaluations finishing together do not lose each other's results.
    """
    with transaction.atomic():
        row = ModelVersion.objects.select_for_update().get(pk=version.pk)
        merged = copy.deepcopy(row.metrics) if isinstance(row.metrics, dict) else {}
        node = merged
        for key in path:
            child = node.get(key)
            if not isinstance(child, dict):
                child = node[key] = {}
            node = child
        node.update(copy.deepcopy(dict(metrics)))
        ModelVersion.objects.filter(pk=version.pk).update(metrics=merged)
    version.metrics = merged
    return version


# --- retraining ----------------------------------------------------------------------------------


class RetrainError(Conflict):
    """A retrain that cannot start or run; the message says why (shown to staff as is)."""


class RetrainUnavailable(RetrainError):
    """The kind has no model to retrain yet (the generator kinds, STEAD and PAP)."""


class RetrainBusy(RetrainError):
    """A retrain of the same kind is already queued or running (``job``)."""

    def __init__(self, message: str, *, job: Job) -> None:
        super().__init__(message)
        self.job = job


class RetrainNotDue(RetrainError):
    """Not enough new human evidence since the last version (``trigger``: the counts)."""

    def __init__(self, message: str, *, trigger: dict[str, Any]) -> None:
        super().__init__(message)
        self.trigger = trigger


def _retrain_lock(kind: str) -> None:
    """Serialise retrain starts of one kind until the transaction ends (PostgreSQL advisory lock;
    SQLite admits one writer at a time anyway)."""
    connection = transaction.get_connection()
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [zlib.crc32(f"paralab-retrain-{kind}".encode())])


@dataclass(frozen=True)
class RetrainRequest(JobRequest):
    """A retrain of kind ``model`` from the annotators' gold labels: forced or due (``trigger``:
    the evidence counted), the training preset and problem cap, and the promotion gate's tolerance."""

    model: str = ""
    force: bool = False
    trigger: dict[str, Any] = field(default_factory=dict)
    preset: str | None = None
    max_problems: int | None = None
    tolerance: float | None = None  # None: PARALAB_RETRAIN_TOLERANCE


def model_retrain_start(*, kind: str, user: AbstractBaseUser | None = None, force: bool = False,
                        enqueue: bool = True) -> Job:
    """Queue a retrain of ``kind`` (gpu queue; ``modelhub.retraining`` describes what it does).

    Raises ValueError for an unknown kind; RetrainUnavailable for a kind that does not learn from
    labels (``stead``: "no generator yet"); RetrainBusy when one is already queued or running (never two at once); RetrainNotDue,
    unless ``force``, when fewer than ``PARALAB_RETRAIN_MIN_NEW`` new gold labels plus human–model
    disagreements arrived since the last version; RetrainError when annotators have produced no
    gold label at all. ``enqueue=False`` only creates the job (the command runs it itself).
    """
    model_kind = get_kind(kind)
    if not model_kind.retrainable:
        raise RetrainUnavailable(model_kind.not_retrained_reason)
    with transaction.atomic():
        _retrain_lock(kind)
        running = retrain_job_in_progress(kind=kind)
        if running is not None:
            raise RetrainBusy(f"a {kind} retrain is already {running.status} (job {running.pk})", job=running)
        trigger = retrain_trigger(kind=kind)
        if not force and not trigger["due"]:
            raise RetrainNotDue(
                f"not due: {trigger['new']} new gold labels and human-model disagreements since "
                f"{'version ' + str(trigger['last_version']) if trigger['last_version'] else 'the start'}, "
                f"{trigger['threshold']} needed",
                trigger=trigger,
            )
        evidence = model_kind.learns_from(
            human_gold_labels().exclude(candidate__generator__startswith=IMPORTED_PAIR_PREFIX))
        if not evidence.exists():
            raise RetrainError(
                "nothing to retrain on: annotators have not agreed on (or staff adjudicated) any label yet"
            )
        job = job_create(
            kind=Job.Kind.RETRAIN,
            params=RetrainRequest(
                model=kind, force=force, trigger=trigger, preset=settings.PARALAB_RETRAIN_PRESET,
                max_problems=settings.PARALAB_RETRAIN_MAX_PROBLEMS, tolerance=settings.PARALAB_RETRAIN_TOLERANCE,
            ).to_params(),
            created_by=user,
            queue="gpu",
        )
        if enqueue:
            job_enqueue(job=job, task=tasks.RETRAIN)
    return job


def model_retrain_check(*, kind: str) -> dict[str, Any]:
    """What beat runs: start a retrain of ``kind`` when it is due and none is in progress.
    Returns ``{"started": bool, "job": id | None, "reason": str, "trigger": {...} | None}``."""
    try:
        job = model_retrain_start(kind=kind)
    except RetrainBusy as exc:
        return {"started": False, "job": exc.job.pk, "reason": str(exc), "trigger": None}
    except RetrainNotDue as exc:
        return {"started": False, "job": None, "reason": str(exc), "trigger": exc.trigger}
    except RetrainError as exc:
        return {"started": False, "job": None, "reason": str(exc), "trigger": None}
    return {"started": True, "job": job.pk, "reason": "due", "trigger": job.params["trigger"]}
