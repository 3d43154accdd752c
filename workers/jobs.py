"""Housekeeping tasks: jobs, and the dashboard's summaries of large datasets."""
from __future__ import annotations

from celery import shared_task

from jobs import tasks
from jobs.services import jobs_reap_stale
from paralab.dashboard import dashboard_summaries_refresh


@shared_task(name=tasks.REAP_STALE, ignore_result=True)
def reap_stale() -> dict[str, int]:
    """Re-queue running jobs whose worker died without a trace, send again queued jobs whose
    message was lost (run by beat; ``jobs.services.jobs_reap_stale``)."""
    return jobs_reap_stale()


@shared_task(name=tasks.DASHBOARD_REFRESH, ignore_result=True)
def refresh_dashboard() -> int:
    """Recompute the dashboard summaries of every large dataset into the shared cache (run by beat
    every half ``PARALAB_DASHBOARD_CACHE_S``, so staff never wait for them;
    ``paralab.dashboard.dashboard_summaries_refresh``)."""
    return dashboard_summaries_refresh()
