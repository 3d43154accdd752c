"""Writes to jobs: create, enqueue, claim, progress, finish.

A job moves queued → running → succeeded | failed. Tasks claim their job before working, so a
redelivered message (acks_late + a lost worker) either finds the job finished and does nothing,
or finds it stale and runs it again from the start (every job is all-or-nothing or resumable).
"""
from __future__ import annotations

import logging
from datetime import timedelta
from typing import Any, Callable

from django.conf import settings
from django.db import connections, transaction
from django.utils import timezone

from .models import Job

logger = logging.getLogger("paralab.jobs")

# A running job whose heartbeat is older than this is considered abandoned by its worker.
STALE_AFTER = timedelta(minutes=10)


def job_create(
    *,
    kind: str,
    params: dict[str, Any] | None = None,
    dataset=None,
    created_by=None,
    queue: str = "cpu",
) -> Job:
    return Job.objects.create(
        kind=kind,
        params=params or {},
        dataset=dataset,
        created_by=created_by if getattr(created_by, "is_authenticated", False) else None,
        queue=queue,
    )


def job_enqueue(*, job: Job, task: Any) -> None:
    """Send ``task(job.pk)`` once the surrounding transaction commits.

    In the embedded default (no broker) the task runs in-process at that moment.
    """

    def _send() -> None:
        result = task.apply_async(args=[job.pk], queue=job.queue)
        if result is not None and result.id and not job.celery_task_id:
            Job.objects.filter(pk=job.pk, celery_task_id="").update(celery_task_id=result.id)

    transaction.on_commit(_send)


def job_claim(*, job_id: int) -> Job | None:
    """Mark a job running and return it, or return None when it must not run (again).

    None when: the job is gone, already finished, or running with a fresh heartbeat
    (a duplicate delivery while the first worker is alive).
    """
    now = timezone.now()
    with transaction.atomic():
        job = Job.objects.select_for_update().filter(pk=job_id).first()
        if job is None:
            logger.warning("job %s no longer exists; nothing to do", job_id)
            return None
        if job.is_terminal:
            logger.info("job %s is already %s; redelivery ignored", job_id, job.status)
            return None
        if job.status == Job.Status.RUNNING and job.heartbeat_at and now - job.heartbeat_at < STALE_AFTER:
            logger.info("job %s is running elsewhere; duplicate delivery ignored", job_id)
            return None
        job.status = Job.Status.RUNNING
        job.attempts += 1
        job.started_at = now
        job.heartbeat_at = now
        job.progress = 0.0
        job.error = ""
        job.save(update_fields=["status", "attempts", "started_at", "heartbeat_at", "progress", "error"])
    return job


def _progress_alias() -> str:
    """The connection progress is written through.

    Outside a transaction: the task's own connection (the write commits at once). Inside a
    transaction on PostgreSQL: the second connection ``progress``, so pollers see progress while
    a long import still holds its transaction open. SQLite allows one writer at a time, and a
    Django ``TestCase`` wraps each test in a transaction that no other connection can see into,
    so there the task's own connection is used (the progress becomes visible at commit).
    """
    default = connections["default"]
    if not default.in_atomic_block or default.vendor == "sqlite":
        return "default"
    if any(getattr(block, "_from_testcase", False) for block in default.atomic_blocks):
        return "default"
    return "progress"


def job_progress(*, job_id: int, progress: float, note: str | None = None) -> None:
    progress = min(1.0, max(0.0, float(progress)))
    fields: dict[str, Any] = {"progress": progress, "heartbeat_at": timezone.now()}
    alias = _progress_alias()
    Job.objects.using(alias).filter(pk=job_id, status=Job.Status.RUNNING).update(**fields)
    if note:
        job_log(job_id=job_id, line=note, using=alias)


def job_log(*, job_id: int, line: str, using: str = "default") -> None:
    job = Job.objects.using(using).filter(pk=job_id).only("log").first()
    if job is None:
        return
    stamp = timezone.now().strftime("%H:%M:%S")
    Job.objects.using(using).filter(pk=job_id).update(log=f"{job.log}[{stamp}] {line}\n")


def job_succeed(*, job_id: int, result: dict[str, Any] | None = None) -> None:
    Job.objects.filter(pk=job_id).update(
        status=Job.Status.SUCCEEDED,
        progress=1.0,
        result=result or {},
        error="",
        finished_at=timezone.now(),
        heartbeat_at=timezone.now(),
    )


def job_fail(*, job_id: int, error: str) -> None:
    Job.objects.filter(pk=job_id).update(
        status=Job.Status.FAILED, error=error[:10000], finished_at=timezone.now()
    )


def job_run(*, job_id: int, body: Callable[[Job, Callable[[float], None]], dict[str, Any]]) -> Job | None:
    """Claim a job, run ``body(job, report)``, record success or failure.

    ``body`` returns the job's result dict; ``report(fraction, note=None)`` records progress.
    Expected failures (bad input) raise ``JobError`` and end the job ``failed`` with that message;
    anything else is logged with its traceback and also ends the job ``failed``.
    """
    job = job_claim(job_id=job_id)
    if job is None:
        return None

    def report(fraction: float, note: str | None = None) -> None:
        job_progress(job_id=job_id, progress=fraction, note=note)

    try:
        result = body(job, report)
    except JobError as exc:
        job_fail(job_id=job_id, error=str(exc))
    except Exception as exc:  # noqa: BLE001 - the job row must record every failure
        logger.exception("job %s (%s) failed", job_id, job.kind)
        job_fail(job_id=job_id, error=f"{type(exc).__name__}: {exc}")
    else:
        job_succeed(job_id=job_id, result=result)
    job.refresh_from_db()
    return job


def jobs_reap_stale(*, older_than: timedelta | None = None) -> int:
    """Fail running jobs whose worker stopped sending heartbeats beyond the hard time limit."""
    limit = older_than or timedelta(seconds=settings.PARALAB_TASK_HARD_LIMIT_S) + STALE_AFTER
    cutoff = timezone.now() - limit
    return Job.objects.filter(status=Job.Status.RUNNING, heartbeat_at__lt=cutoff).update(
        status=Job.Status.FAILED,
        error="the worker stopped reporting progress (lost or killed); the job was abandoned",
        finished_at=timezone.now(),
    )


class JobError(Exception):
    """A failure the user can act on (bad input); its message is shown as the job's error."""
