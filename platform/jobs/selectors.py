"""Reads of jobs, scoped by the requesting user's role."""
from __future__ import annotations

from django.db.models import QuerySet

from .models import Job


def job_list(*, user) -> QuerySet[Job]:
    """Staff see every job; anyone else sees only the jobs they started."""
    qs = Job.objects.select_related("dataset", "created_by")
    if user.is_staff:
        return qs
    return qs.filter(created_by=user)
