"""Calibration tasks (cpu queue, seconds of work): a staff-triggered recalibration job and beat's
periodic check, which recalibrates an active judge when human gold labels arrived since its last
calibration (``modelhub.calibration``)."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from celery import shared_task

from jobs import tasks

COMMON = {"bind": True, "acks_late": True, "ignore_result": True, "soft_time_limit": 900, "time_limit": 960}


@shared_task(name=tasks.CALIBRATE, **COMMON)
def calibrate_job(self, job_id: int) -> None:
    """Recalibrate the active judge of ``job.params["model"]``; the result is the calibration record."""
    from jobs.services import JobError, job_run
    from modelhub.calibration import CalibrationError
    from modelhub.calibration_jobs import calibrate_run
    from modelhub.kinds.paraqd import ParaQDError

    def body(job: Any, report: Callable[..., None]) -> dict[str, Any]:
        try:
            return calibrate_run(job=job, progress=report)
        except (CalibrationError, ParaQDError) as exc:
            raise JobError(str(exc)) from exc

    job_run(job_id=job_id, body=body)


@shared_task(name=tasks.CALIBRATE_CHECK, ignore_result=True, soft_time_limit=900, time_limit=960)
def calibrate_check() -> dict[str, Any]:
    """Beat: recalibrate each active judge that has new human gold labels since its calibration."""
    from modelhub.calibration_jobs import recalibrate_check

    return recalibrate_check()
