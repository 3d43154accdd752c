"""Writes to jobs: create, enqueue, claim, progress, finish.

A job moves queued → running → succeeded | failed | cancelled. Tasks claim their job before working, so a
redelivered message (acks_late + a lost worker) either finds the job finished and does nothing,
or finds it stale and runs it again from the start (every job is all-or-nothing or resumable).

Faults (README, "Jobs under faults"). While a job runs, a thread of the worker writes its heartbeat
every ``PARALAB_JOB_HEARTBEAT_S``; a worker killed outright stops it. Beat's reaper
(``jobs_reap_stale``) puts a running job with no heartbeat for ``PARALAB_JOB_STALE_S`` back in the
queue and sends it again (after ``PARALAB_JOB_MAX_ATTEMPTS`` runs it fails instead), and sends
again a queued job whose message never reached the broker or was not picked up for
``PARALAB_JOB_RESEND_S`` (a broker restarted without persistence loses its queues). Delivery is
therefore at least once; execution is at most once per attempt: the claim below admits one
worker, and a superseded attempt cannot record a result.
"""
from __future__ import annotations

import importlib
import logging
import threading
from datetime import timedelta
from typing import Any, Callable

from django.conf import settings
from django.db import connections, transaction
from django.db.models import F, Q, Value
from django.db.models.functions import Concat
from django.utils import timezone

from core.errors import UserError

from .app import celery_app
from .background import run_in_background
from .models import Job

logger = logging.getLogger("paralab.jobs")



def stale_after() -> timedelta:
    """A running job whose heartbeat is older than this has lost its worker."""
    return timedelta(seconds=settings.PARALAB_JOB_STALE_S)


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


def _eager() -> bool:
    return bool(celery_app().conf.task_always_eager)


def task_named(name: str) -> Any:
    """The Celery task registered under ``name`` (the workers' task modules are imported on first
    use, so services name a task without importing ``workers``)."""
    app = celery_app()
    if name not in app.tasks:
        for module in app.conf.imports:
            importlib.import_module(module)
    try:
        return app.tasks[name]
    except KeyError:
        raise JobError(f"no task is registered as {name!r}") from None


def _send(job_id: int, task_name: str, queue: str) -> bool:
    """Send the job's message; True when the broker took it. A broker that cannot be reached is
    logged and noted on the job, never raised: the job stays queued and the reaper sends it again.

    With no broker the task runs in this process: on a background thread when
    ``PARALAB_JOB_RUNNER`` is ``thread`` (the embedded web server, so no page waits for a job),
    else at once in the caller (commands, tests: the job is done when the call returns)."""
    eager = _eager()
    if eager and settings.PARALAB_JOB_RUNNER == "thread":
        run_in_background(task_named(task_name), job_id, recover=jobs_recover_orphans)
        return True
    if not eager:
        # Marked before sending: a worker that picks the message up at once must not find the
        # job looking unsent (the reaper would send it a second time for nothing).
        Job.objects.filter(pk=job_id).update(sent_at=timezone.now())
    try:
        result = task_named(task_name).apply_async(args=[job_id], queue=queue)
    except Exception as exc:  # noqa: BLE001 - kombu raises several types for an unreachable broker
        if eager:
            raise  # in-process: this is the task's own failure
        logger.warning("job %s: the broker did not take its message (%s); the reaper will send it again",
                       job_id, exc)
        Job.objects.filter(pk=job_id, status=Job.Status.QUEUED).update(sent_at=None)
        job_log(job_id=job_id, line=f"the broker could not be reached ({type(exc).__name__}); "
                                    "the job stays queued and is sent again when it is back")
        return False
    if result is not None and result.id:
        Job.objects.filter(pk=job_id, celery_task_id="").update(celery_task_id=result.id)
    return True


def job_enqueue(*, job: Job, task: str) -> None:
    """Send the task named ``task`` (e.g. ``"paralab.generation.generate"``) for ``job`` once the
    surrounding transaction commits. Services name the task; they never import ``workers``.

    In the embedded default (no broker) the task runs in-process at that moment. The task's name
    is stored with the job so the reaper can send it again.
    """
    if not isinstance(task, str):
        raise TypeError("job_enqueue takes the task's registered name")
    Job.objects.filter(pk=job.pk).update(task=task)
    job.task = task
    transaction.on_commit(lambda: _send(job.pk, task, job.queue))


def job_resend(*, job: Job) -> bool:
    """Send a queued job's stored task again (the embedded runner's recovery, the reaper)."""
    job_log(job_id=job.pk, line="sent again: the process that had it queued stopped")
    return _send(job.pk, job.task, job.queue)


def jobs_recover_orphans(sending: int) -> None:
    """Jobs an earlier server process left behind: its running ones failed, its queued ones sent
    again (``sending``, the job this call is about to send, excepted). The embedded runner
    (``background.run_in_background``) calls it when it starts its thread."""
    try:
        orphans = Job.objects.filter(status=Job.Status.RUNNING).exclude(pk=sending)
        for job in orphans:
            Job.objects.filter(pk=job.pk, status=Job.Status.RUNNING).update(
                status=Job.Status.FAILED, finished_at=timezone.now(),
                error="the server stopped while it ran; start it again")
        for job in Job.objects.filter(status=Job.Status.QUEUED).exclude(pk=sending).exclude(task="").order_by("id"):
            job_resend(job=job)
    except Exception:  # noqa: BLE001 - recovery is best effort; the new job runs regardless
        logger.exception("recovering the jobs of an earlier server failed")
    finally:
        connections.close_all()


def job_cancel(*, job_id: int) -> Job:
    """Ask a job to stop. A queued job is cancelled at once; a running one stops at its next
    progress report (``job_run`` ends it ``cancelled``); a finished job is left as it is."""
    with transaction.atomic():
        job = Job.objects.select_for_update().get(pk=job_id)
        if job.status == Job.Status.QUEUED:
            job.status, job.finished_at = Job.Status.CANCELLED, timezone.now()
            job.cancel_requested = True
            job.save(update_fields=["status", "finished_at", "cancel_requested"])
        elif job.status == Job.Status.RUNNING and not job.cancel_requested:
            job.cancel_requested = True
            job.save(update_fields=["cancel_requested"])
        else:
            return job
    job_log(job_id=job_id, line="cancel requested" if job.status == Job.Status.RUNNING else "cancelled before it ran")
    return job


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
        if job.cancel_requested:  # asked to stop before this (re)delivery: it ends here
            job.status, job.finished_at = Job.Status.CANCELLED, now
            job.save(update_fields=["status", "finished_at"])
            return None
        if job.status == Job.Status.RUNNING and job.heartbeat_at and now - job.heartbeat_at < stale_after():
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


def progress_alias() -> str:
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
    """Record a running job's progress; raises :class:`JobCancelled` when someone asked it to stop."""
    progress = min(1.0, max(0.0, float(progress)))
    fields: dict[str, Any] = {"progress": progress, "heartbeat_at": timezone.now()}
    alias = progress_alias()
    written = Job.objects.using(alias).filter(pk=job_id, status=Job.Status.RUNNING,
                                              cancel_requested=False).update(**fields)
    if not written and Job.objects.using(alias).filter(pk=job_id, cancel_requested=True).exists():
        raise JobCancelled("cancelled on request")
    if note:
        job_log(job_id=job_id, line=note, using=alias)


def job_log(*, job_id: int, line: str, using: str = "default") -> None:
    """Append a line to the job's log in one UPDATE (a cancel on another thread and the job's own
    notes never overwrite each other)."""
    stamp = timezone.now().strftime("%H:%M:%S")
    Job.objects.using(using).filter(pk=job_id).update(log=Concat(F("log"), Value(f"[{stamp}] {line}\n")))


def _attempt(job_id: int, attempt: int | None):
    """The job's row, restricted to ``attempt`` when given: a run the reaper superseded (its worker
    looked lost, then came back) must not overwrite the outcome of the run that replaced it."""
    rows = Job.objects.filter(pk=job_id)
    return rows if attempt is None else rows.filter(attempts=attempt, status=Job.Status.RUNNING)


def job_succeed(*, job_id: int, result: dict[str, Any] | None = None, attempt: int | None = None) -> bool:
    return bool(_attempt(job_id, attempt).update(
        status=Job.Status.SUCCEEDED,
        progress=1.0,
        result=result or {},
        error="",
        finished_at=timezone.now(),
        heartbeat_at=timezone.now(),
    ))


def job_cancelled(*, job_id: int, attempt: int | None = None) -> bool:
    return bool(_attempt(job_id, attempt).update(
        status=Job.Status.CANCELLED, error="", finished_at=timezone.now()))


def job_fail(*, job_id: int, error: str, attempt: int | None = None) -> bool:
    return bool(_attempt(job_id, attempt).update(
        status=Job.Status.FAILED, error=error[:10000], finished_at=timezone.now()
    ))


class _Heartbeat:
    """A daemon thread that marks a running job alive every ``PARALAB_JOB_HEARTBEAT_S`` through a
    connection of its own (committed at once, whatever transaction the task holds open).

    Only in a worker on PostgreSQL: eager runs happen inside a request or a test's transaction,
    and SQLite allows one writer."""

    def __init__(self, job_id: int, attempt: int):
        self.job_id, self.attempt = job_id, attempt
        self.stop = threading.Event()
        self.thread: threading.Thread | None = None

    def __enter__(self) -> "_Heartbeat":
        interval = settings.PARALAB_JOB_HEARTBEAT_S
        if interval > 0 and not _eager() and connections["default"].vendor == "postgresql":
            self.thread = threading.Thread(target=self._beat, args=(interval,), daemon=True,
                                           name=f"job-{self.job_id}-heartbeat")
            self.thread.start()
        return self

    def _beat(self, interval: float) -> None:
        try:
            while not self.stop.wait(interval):
                try:
                    Job.objects.filter(pk=self.job_id, attempts=self.attempt, status=Job.Status.RUNNING).update(
                        heartbeat_at=timezone.now())
                except Exception:  # noqa: BLE001 - the database may be briefly away; try next beat
                    logger.warning("job %s: heartbeat not written", self.job_id, exc_info=True)
                    connections["default"].close()
        finally:
            connections["default"].close()

    def __exit__(self, *exc) -> None:
        self.stop.set()
        if self.thread is not None:
            self.thread.join(timeout=30)


def job_run(*, job_id: int, body: Callable[..., dict[str, Any]]) -> Job | None:
    """Claim a job, run ``body(job=job, progress=report)`` (a job's ``<entity>_run``), record
    success or failure.

    ``body`` returns the job's result dict; ``report(fraction, note=None)`` records progress.
    Expected failures (bad input: any ``core.errors.UserError``) end the job ``failed`` with
    their message;
    anything else is logged with its traceback and also ends the job ``failed``. A cancel request
    surfaces as ``JobCancelled`` from ``report`` and ends the job ``cancelled``.
    """
    job = job_claim(job_id=job_id)
    if job is None:
        return None
    attempt = job.attempts

    def report(fraction: float, note: str | None = None) -> None:
        job_progress(job_id=job_id, progress=fraction, note=note)

    with _Heartbeat(job_id, attempt):
        try:
            result = body(job=job, progress=report)
        except JobCancelled:
            recorded = job_cancelled(job_id=job_id, attempt=attempt)
        except UserError as exc:
            recorded = job_fail(job_id=job_id, error=str(exc), attempt=attempt)
        except Exception as exc:  # noqa: BLE001 - the job row must record every failure
            logger.exception("job %s (%s) failed", job_id, job.kind)
            recorded = job_fail(job_id=job_id, error=f"{type(exc).__name__}: {exc}", attempt=attempt)
        else:
            recorded = job_succeed(job_id=job_id, result=result, attempt=attempt)
    if not recorded:
        logger.warning("job %s: attempt %s was superseded by a later one; its outcome is not recorded",
                       job_id, attempt)
    job.refresh_from_db()
    return job


def jobs_reap_stale(*, now=None) -> dict[str, int]:
    """Beat's housekeeping: put back running jobs that lost their worker, send again queued jobs
    whose message was lost. Returns ``{"requeued", "failed", "resent"}``.

    A running job with no heartbeat for ``PARALAB_JOB_STALE_S`` is queued again and its task sent,
    with a line in its log (the jobs page shows it); after ``PARALAB_JOB_MAX_ATTEMPTS`` runs it
    fails instead. A queued job whose message never reached the broker, or went out more than
    ``PARALAB_JOB_RESEND_S`` ago and was not claimed, is sent again. Rows are locked with
    SKIP LOCKED, so two reapers never handle the same job.
    """
    now = now or timezone.now()
    counts = {"requeued": 0, "failed": 0, "resent": 0}
    to_send: list[tuple[int, str, str]] = []
    with transaction.atomic():
        stale = Job.objects.select_for_update(skip_locked=True).filter(
            status=Job.Status.RUNNING, heartbeat_at__lt=now - stale_after())
        for job in stale:
            seen = job.heartbeat_at.strftime("%H:%M:%S")
            if job.attempts >= settings.PARALAB_JOB_MAX_ATTEMPTS or not job.task:
                why = (f"after {job.attempts} attempts" if job.task else "and it cannot be sent again")
                Job.objects.filter(pk=job.pk).update(
                    status=Job.Status.FAILED, finished_at=now,
                    error=f"the worker was lost (no heartbeat since {seen} UTC) {why}; the job was abandoned")
                counts["failed"] += 1
                continue
            Job.objects.filter(pk=job.pk).update(status=Job.Status.QUEUED, progress=0.0, requeues=job.requeues + 1)
            job_log(job_id=job.pk, line=f"re-queued by the reaper: the worker was lost (no heartbeat since "
                                        f"{seen} UTC) during attempt {job.attempts}")
            to_send.append((job.pk, job.task, job.queue))
            counts["requeued"] += 1
        unsent = Job.objects.select_for_update(skip_locked=True).filter(status=Job.Status.QUEUED).exclude(task="").filter(
            Q(sent_at__isnull=True, created_at__lt=now - timedelta(seconds=5))
            | Q(sent_at__lt=now - timedelta(seconds=settings.PARALAB_JOB_RESEND_S)))
        for job in unsent:
            if job.pk in {pk for pk, _, _ in to_send}:
                continue
            job_log(job_id=job.pk, line="sent again by the reaper: its message "
                    + ("never reached the broker" if job.sent_at is None else "was not picked up"))
            to_send.append((job.pk, job.task, job.queue))
            counts["resent"] += 1
    for job_id, task_name, queue in to_send:
        _send(job_id, task_name, queue)
    if any(counts.values()):
        logger.warning("reaper: %s", counts)
    return counts


class JobError(UserError):
    """A failure the user can act on (bad input); its message is shown as the job's error. Any
    ``UserError`` a service raises ends the job the same way (``job_run``)."""


class JobCancelled(BaseException):
    """Raised by a progress report when the job was asked to stop (``job_cancel``).

    A ``BaseException``, like ``KeyboardInterrupt``: a task's ``except Exception`` (one problem's
    failure must not stop the dataset) does not swallow it, while its ``except BaseException``
    clean-ups (a half-written model folder) still run."""
