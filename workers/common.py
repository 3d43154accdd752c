"""What the task modules share: Celery options and time limits. Every task is thin: it takes a
job id and hands ``jobs.services.job_run`` the job's ``<entity>_run(job=..., progress=...)``; a
redelivered message for a finished job is a no-op, a stale one runs again, and a service's
``UserError`` fails the job with its message."""
from __future__ import annotations

from django.conf import settings

COMMON = {"bind": True, "acks_late": True, "ignore_result": True}
# Training may run for hours: its limits are the platform's longest (PARALAB_TASK_HARD_LIMIT_S).
TRAIN_LIMITS = {"soft_time_limit": settings.CELERY_TASK_SOFT_TIME_LIMIT, "time_limit": settings.CELERY_TASK_TIME_LIMIT}
SHORT_LIMITS = {
    "soft_time_limit": min(3600, settings.CELERY_TASK_SOFT_TIME_LIMIT),
    "time_limit": min(3600 + 120, settings.CELERY_TASK_TIME_LIMIT),
}
# Calibration and beat's checks: seconds of work.
CHECK_LIMITS = {"soft_time_limit": 900, "time_limit": 960}
