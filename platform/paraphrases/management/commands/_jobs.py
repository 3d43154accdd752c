"""Shared by the ParaQD commands: run a job's task here and now, through the job state machine.

The command creates the job without queueing it and runs the task in this process (Celery's
``apply``), whether or not a broker is configured: the job row records progress and the result
like any other job, and the command can print the result when it ends.
"""
from __future__ import annotations

from typing import Any

from django.core.management.base import CommandError

from jobs.models import Job


def run_job_here(job: Job, task: Any) -> Job:
    """Run ``task(job.pk)`` in-process; CommandError with the job's error when it failed."""
    task.apply(args=[job.pk])
    job.refresh_from_db()
    if job.status != Job.Status.SUCCEEDED:
        raise CommandError(job.error or f"job {job.pk} ended {job.status}")
    return job
