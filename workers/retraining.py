"""Retraining tasks: the retrain job (gpu queue) and beat's periodic trigger check (cpu queue).

``retrain_job`` takes a job id and runs ``modelhub.retraining.model_retrain_run`` through the job
state machine (a redelivered message for a finished job is a no-op; the training step finds the
version a lost worker already registered instead of training again). ``retrain_check`` is what
beat runs every ``PARALAB_RETRAIN_INTERVAL_S`` seconds: it starts a retrain only when enough new
human evidence arrived and none is queued or running.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from celery import shared_task

from jobs import tasks
from django.conf import settings

TRAIN_LIMITS = {"soft_time_limit": settings.CELERY_TASK_SOFT_TIME_LIMIT, "time_limit": settings.CELERY_TASK_TIME_LIMIT}


@shared_task(name=tasks.RETRAIN, bind=True, acks_late=True, ignore_result=True, **TRAIN_LIMITS)
def retrain_job(self, job_id: int) -> None:
    """Retrain a model from the annotators' labels; the job's result is
    ``{"kind", "version", "status", "promoted", "gate", "heldout", "rescore_jobs", "training_data"}``."""
    from jobs.services import JobError, job_run
    from modelhub.retraining import model_retrain_run
    from modelhub.services import RetrainError
    from modelhub.kinds.paraqd import ParaQDError

    def body(job: Any, report: Callable[..., None]) -> dict[str, Any]:
        try:
            return model_retrain_run(job=job, progress=report)
        except (RetrainError, ParaQDError) as exc:
            raise JobError(str(exc)) from exc

    job_run(job_id=job_id, body=body)


@shared_task(name=tasks.RETRAIN_CHECK, ignore_result=True, soft_time_limit=300, time_limit=360)
def retrain_check(kind: str | None = None) -> dict[str, Any]:
    """Start a retrain of ``kind`` if it is due (beat); without ``kind``, of every retrainable
    kind of the registry (``modelhub.kinds``). Returns what ``model_retrain_check`` says (per kind
    when several were checked)."""
    from modelhub.kinds.registry import retrainable_kinds
    from modelhub.services import model_retrain_check

    if kind is not None:
        return model_retrain_check(kind=kind)
    return {name: model_retrain_check(kind=name) for name in retrainable_kinds()}
