"""Housekeeping tasks for jobs."""
from __future__ import annotations

from celery import shared_task


@shared_task(name="paralab.jobs.reap_stale", ignore_result=True)
def reap_stale() -> int:
    """Fail running jobs whose worker died without a trace (run by beat)."""
    from jobs.services import jobs_reap_stale

    return jobs_reap_stale()
