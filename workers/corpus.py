"""Corpus tasks: import and export as jobs."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from celery import shared_task

from jobs import tasks

# --- import -------------------------------------------------------------------------------------


@shared_task(name=tasks.IMPORT, bind=True, acks_late=True, ignore_result=True)
def import_job(self, job_id: int) -> None:
    """Run import job ``job_id`` (``corpus.services.dataset_import_start`` queues it).

    A redelivered message for a finished job is a no-op (``job_run`` refuses to claim it); a bad
    file ends the job ``failed`` with the reader's message (file, line, field).
    """
    from jobs.services import job_run

    job_run(job_id=job_id, body=_run_import)


def _run_import(job: Any, report: Callable[..., None]) -> dict[str, Any]:
    from corpus.importers import ImportFormatError
    from corpus.services import dataset_import, pairs_import
    from jobs.models import Job
    from jobs.services import JobError

    params = job.params
    path = params["path"]
    try:
        if job.dataset_id is None:
            raise JobError("the dataset of this import no longer exists")
        if job.kind == Job.Kind.IMPORT_PAIRS:
            return pairs_import(
                dataset=job.dataset,
                path=path,
                fmt=params.get("format") or "paraqd",
                split=params.get("split", ""),
                progress=report,
                filename=params.get("filename"),
            )
        return dataset_import(
            dataset=job.dataset,
            path=path,
            fmt=params.get("format") or "auto",
            split=params.get("split", ""),
            progress=report,
            filename=params.get("filename"),
        )
    except ImportFormatError as exc:
        raise JobError(str(exc)) from exc
    finally:
        # The job is over either way (it never reruns after succeeding or failing), so an
        # uploaded temporary file is no longer needed. A lost worker skips this, and the
        # redelivered job finds its file still there.
        if params.get("uploaded"):
            Path(path).unlink(missing_ok=True)


# --- export -------------------------------------------------------------------------------------


@shared_task(name=tasks.EXPORT, bind=True, acks_late=True, ignore_result=True)
def export_job(self, job_id: int) -> None:
    """Run export job ``job_id`` (``corpus.exporters.dataset_export_start`` queues it): the file goes
    to MEDIA_ROOT/exports and the job's result holds its ``path`` and ``rows``. A rerun rewrites
    the same file atomically, so a redelivered message is harmless."""
    from corpus.exporters import dataset_export_run
    from jobs.services import job_run

    job_run(job_id=job_id, body=lambda job, report: dataset_export_run(job=job, progress=report))
