"""SCANNING tasks (gpu queue): train STEAD or PAP, and the whole chain. A message redelivered
after its worker was killed (``acks_late``; the job's heartbeat went stale) runs the body again:
training resumes from the checkpoints under ``MODEL_DIR/<kind>/.job-<id>/`` and a version the job
already registered is reused, so each job finishes exactly once. The gpu worker runs ``--pool
solo``: a loaded model stays loaded between tasks."""
from __future__ import annotations

from functools import partial

from celery import shared_task

from jobs import tasks
from jobs.services import job_run
from modelhub.kinds.scanning import scanning_run
from modelhub.kinds.seq2seq import scanning_train_run
from paraphrases.generation import generation_run

from .common import COMMON, TRAIN_LIMITS


@shared_task(name=tasks.SCANNING_TRAIN, **COMMON, **TRAIN_LIMITS)
def train_job(self, job_id: int) -> None:
    """Train a STEAD or PAP version (``scanning_train_start``); result: version, status, path, metrics."""
    job_run(job_id=job_id, body=scanning_train_run)


@shared_task(name=tasks.SCANNING_RUN, **COMMON, **TRAIN_LIMITS)
def scanning_job(self, job_id: int) -> None:
    """The chain (``scanning_start``): STEAD → corpus → PAP → generation on the evaluation dataset
    (the generation app's ``generation_run``, handed in here: modelhub does not import it)."""
    job_run(job_id=job_id, body=partial(scanning_run, generate=generation_run))
