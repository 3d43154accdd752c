"""Calibration tasks (cpu queue, seconds of work): a staff-triggered recalibration job and beat's
periodic check, which refits the numeracy-aware judge and recalibrates an active judge when human
gold labels arrived since its last calibration (``modelhub.calibration_jobs``)."""
from __future__ import annotations

from typing import Any

from celery import shared_task

from jobs import tasks
from jobs.services import job_run
from modelhub.calibration_jobs import calibrate_run, recalibrate_check

from .common import CHECK_LIMITS, COMMON


@shared_task(name=tasks.CALIBRATE, **COMMON, **CHECK_LIMITS)
def calibrate_job(self, job_id: int) -> None:
    """Recalibrate the active judge of the job's kind; the result is the calibration record."""
    job_run(job_id=job_id, body=calibrate_run)


@shared_task(name=tasks.CALIBRATE_CHECK, ignore_result=True, **CHECK_LIMITS)
def calibrate_check() -> dict[str, Any]:
    """Beat: recalibrate each active judge that has new human gold labels since its calibration."""
    return recalibrate_check()
