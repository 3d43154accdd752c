"""A job in the foreground: every job-running management command (``generate``, ``train_paraqd``,
``retrain``, ``calibrate``, ``scanning``...) runs its job's task here and now, through the job state
machine (the embedded default's server runs them on a thread instead: ``background``).

The command creates the job without queueing it and runs the task in this process (Celery's
``apply``), whether or not a broker is configured: the job row records progress and the result
like any other job, and the command can print the result when it ends.
"""
from __future__ import annotations

import sys
import threading
from typing import TextIO

from django.core.management.base import CommandError
from django.db import connections

from .models import Job
from .services import task_named


def run_job_here(job: Job, task: str, *, stream: TextIO | None = None, every_s: float = 10.0) -> Job:
    """Run the task named ``task`` on ``job.pk`` in-process; CommandError with the job's error when it failed.

    Meanwhile a thread prints the job's progress, the time left at the pace so far and its latest
    log line to ``stream`` (stderr by default) every ``every_s`` seconds when they changed, so a
    long command is never silent."""
    stop = threading.Event()
    watcher = threading.Thread(target=_watch, args=(job.pk, stream or sys.stderr, every_s, stop), daemon=True)
    watcher.start()
    try:
        task_named(task).apply(args=[job.pk])
    finally:
        stop.set()
        watcher.join(timeout=5)
    job.refresh_from_db()
    if job.status != Job.Status.SUCCEEDED:
        raise CommandError(job.error or f"job {job.pk} ended {job.status}")
    return job


def _watch(job_id: int, stream: TextIO, every_s: float, stop: threading.Event) -> None:
    last = None
    try:
        while not stop.wait(every_s):
            job = Job.objects.filter(pk=job_id).only("status", "progress", "log", "started_at").first()
            if job is None:
                return
            eta = job.eta_seconds
            line = (job.log.strip().splitlines() or [""])[-1]
            said = (f"job {job_id}: {job.status} {100 * job.progress:.0f} %"
                    + (f", about {eta / 60:.1f} min left" if eta is not None else "") + (f" — {line}" if line else ""))
            if said != last:
                stream.write(said + "\n")
                stream.flush()
                last = said
    except Exception:  # noqa: BLE001 - progress lines are a courtesy; the job itself decides the outcome
        return
    finally:
        connections.close_all()
