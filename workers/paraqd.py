"""ParaQD tasks: training and scoring (gpu queue), evaluation and test-pair synthesis (cpu queue),
each running the job's ``modelhub.kinds.paraqd`` body. The gpu worker runs with ``--pool solo
--concurrency 1``: the scorer stays loaded between tasks (``ml.paraqd.get_scorer``)."""
from __future__ import annotations

from celery import shared_task

from jobs import tasks
from jobs.services import job_run
from modelhub.kinds.paraqd import paraqd_evaluate_run, paraqd_score_run, paraqd_synthesize_run, paraqd_train_run

from .common import COMMON, SHORT_LIMITS, TRAIN_LIMITS


@shared_task(name=tasks.PARAQD_TRAIN, **COMMON, **TRAIN_LIMITS)
def train_job(self, job_id: int) -> None:
    """Train a ParaQD version (``paraqd_train_start`` queues it); the job's result holds
    ``{"version", "status", "path", "metrics", "training_data"}``."""
    job_run(job_id=job_id, body=paraqd_train_run)


@shared_task(name=tasks.PARAQD_SCORE, **COMMON, **SHORT_LIMITS)
def score_job(self, job_id: int) -> None:
    """Score candidates with a version (default: the active one, else the pretrained encoder).
    Scores are upserted, so a rerun after a lost worker updates the same rows."""
    job_run(job_id=job_id, body=paraqd_score_run)


@shared_task(name=tasks.PARAQD_EVALUATE, **COMMON, **SHORT_LIMITS)
def evaluate_job(self, job_id: int) -> None:
    """Evaluate a model on the job's dataset; the result is the contract's metrics JSON."""
    job_run(job_id=job_id, body=paraqd_evaluate_run)


@shared_task(name=tasks.PARAQD_SYNTHESIZE, **COMMON, **SHORT_LIMITS)
def synthesize_job(self, job_id: int) -> None:
    """Synthesize ParaQD test pairs for the job's dataset (idempotent: a rerun adds nothing)."""
    job_run(job_id=job_id, body=paraqd_synthesize_run)
