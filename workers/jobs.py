"""Housekeeping tasks for jobs."""
from __future__ import annotations

from celery import shared_task


@shared_task(name="paralab.jobs.reap_stale", ignore_result=True)
def reap_stale() -> dict[str, int]:
    """Re-queue running jobs whose worker died without a trace, send again queued jobs whose
    message was lost (run by beat; ``jobs.services.jobs_reap_stale``)."""
    from jobs.services import jobs_reap_stale

    return jobs_reap_stale()
