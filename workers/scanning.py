"""SCANNING tasks (gpu queue): train STEAD or PAP, and the whole chain.

Thin: each claims its job through ``jobs.services.job_run`` and calls
``paraphrases.scanning``. A message redelivered after its worker was killed (``acks_late``; the
job's heartbeat went stale) runs the body again: training resumes from the checkpoints under
``MODEL_DIR/<kind>/.job-<id>/`` and a version the job already registered is reused, so each job
finishes exactly once. Bad input (``ScanningError``) fails the job with its message. The gpu
worker runs ``--pool solo``: a loaded model stays loaded between tasks.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from celery import shared_task

from jobs import tasks

from .paraqd import COMMON, TRAIN_LIMITS


def _run(job_id: int, body: Callable[[Any, Callable[..., None]], dict[str, Any]]) -> None:
    from jobs.services import JobError, job_run
    from modelhub.kinds.seq2seq import ScanningError

    def guarded(job: Any, report: Callable[..., None]) -> dict[str, Any]:
        try:
            return body(job, report)
        except ScanningError as exc:
            raise JobError(str(exc)) from exc

    job_run(job_id=job_id, body=guarded)


@shared_task(name=tasks.SCANNING_TRAIN, **COMMON, **TRAIN_LIMITS)
def train_job(self, job_id: int) -> None:
    """Train a STEAD or PAP version (``scanning_train_start``); result: version, status, path, metrics."""

    def body(job: Any, report: Callable[..., None]) -> dict[str, Any]:
        from modelhub.kinds.seq2seq import scanning_train_run

        return scanning_train_run(job=job, progress=report)

    _run(job_id, body)


@shared_task(name=tasks.SCANNING_RUN, **COMMON, **TRAIN_LIMITS)
def scanning_job(self, job_id: int) -> None:
    """The chain (``scanning_start``): STEAD → corpus → PAP → generation on the evaluation dataset."""

    def body(job: Any, report: Callable[..., None]) -> dict[str, Any]:
        from paraphrases.scanning import scanning_run

        return scanning_run(job=job, progress=report)

    _run(job_id, body)
