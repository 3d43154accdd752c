"""What a running job already has to show (``Job.partial``): a paraphrase job publishes its rule
variants at once and each verified LLM rewrite as it passes; ``GET jobs/{id}/`` and the pages read
it while the job runs, and ``result`` holds the final answer."""
from __future__ import annotations

from typing import Any

from django.utils import timezone

from .models import Job
from .services import JobCancelled, progress_alias

__all__ = ["job_partial"]


def job_partial(*, job_id: int, partial: dict[str, Any]) -> None:
    """Publish ``partial`` on the running job; raises :class:`JobCancelled` when someone asked it to stop."""
    alias = progress_alias()
    written = Job.objects.using(alias).filter(pk=job_id, status=Job.Status.RUNNING,
                                              cancel_requested=False).update(partial=partial,
                                                                             heartbeat_at=timezone.now())
    if not written and Job.objects.using(alias).filter(pk=job_id, cancel_requested=True).exists():
        raise JobCancelled("cancelled on request")
