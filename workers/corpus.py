"""Corpus tasks: import and export as jobs."""
from __future__ import annotations

from celery import shared_task

from corpus.exporters import dataset_export_run
from corpus.services import import_run
from jobs import tasks
from jobs.services import job_run


@shared_task(name=tasks.IMPORT, bind=True, acks_late=True, ignore_result=True)
def import_job(self, job_id: int) -> None:
    """Run import job ``job_id`` (``corpus.services.dataset_import_start`` queues it).

    A redelivered message for a finished job is a no-op (``job_run`` refuses to claim it); a bad
    file ends the job ``failed`` with the reader's message (file, line, field).
    """
    job_run(job_id=job_id, body=import_run)


@shared_task(name=tasks.EXPORT, bind=True, acks_late=True, ignore_result=True)
def export_job(self, job_id: int) -> None:
    """Run export job ``job_id`` (``corpus.exporters.dataset_export_start`` queues it): the file goes
    to MEDIA_ROOT/exports and the job's result holds its ``path`` and ``rows``. A rerun rewrites
    the same file atomically, so a redelivered message is harmless."""
    job_run(job_id=job_id, body=dataset_export_run)
