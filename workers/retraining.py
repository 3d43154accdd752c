"""Retraining tasks: the retrain job (gpu queue) and beat's periodic trigger check (cpu queue).

``retrain_job`` runs ``modelhub.retraining.model_retrain_run`` through the job state machine (a
redelivered message for a finished job is a no-op; the training step finds the version a lost
worker already registered instead of training again). ``retrain_check`` is what beat runs every
``PARALAB_RETRAIN_INTERVAL_S`` seconds: it starts a retrain only when enough new human evidence
arrived and none is queued or running.
"""
from __future__ import annotations

from typing import Any

from celery import shared_task

from jobs import tasks
from jobs.services import job_run
from modelhub.kinds.registry import retrainable_kinds
from modelhub.retraining import model_retrain_run
from modelhub.services import model_retrain_check

from .common import TRAIN_LIMITS


@shared_task(name=tasks.RETRAIN, bind=True, acks_late=True, ignore_result=True, **TRAIN_LIMITS)
def retrain_job(self, job_id: int) -> None:
    """Retrain a model from the annotators' labels; the job's result is
    ``{"kind", "version", "status", "promoted", "gate", "heldout", "rescore_jobs", "training_data"}``."""
    job_run(job_id=job_id, body=model_retrain_run)


@shared_task(name=tasks.RETRAIN_CHECK, ignore_result=True, soft_time_limit=300, time_limit=360)
def retrain_check(kind: str | None = None) -> dict[str, Any]:
    """Start a retrain of ``kind`` if it is due (beat); without ``kind``, of every retrainable
    kind of the registry. Returns what ``model_retrain_check`` says (per kind when several were
    checked)."""
    if kind is not None:
        return model_retrain_check(kind=kind)
    return {name: model_retrain_check(kind=name) for name in retrainable_kinds()}
