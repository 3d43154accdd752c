"""ParaQD tasks: training and scoring (gpu queue), evaluation and test-pair synthesis (cpu queue).

Each takes a job id, claims the job through ``jobs.services.job_run`` (a redelivered message for
a finished job is a no-op; a stale one reruns from the start) and calls ``modelhub.kinds.paraqd``.
Bad input (``ParaQDError``) fails the job with its message. The gpu worker runs with
``--pool solo --concurrency 1``: the scorer stays loaded between tasks (``ml.paraqd.get_scorer``).
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from celery import shared_task

from jobs import tasks
from django.conf import settings

# Training may run for hours: its limits are the platform's longest (PARALAB_TASK_HARD_LIMIT_S).
TRAIN_LIMITS = {"soft_time_limit": settings.CELERY_TASK_SOFT_TIME_LIMIT, "time_limit": settings.CELERY_TASK_TIME_LIMIT}
SHORT_LIMITS = {
    "soft_time_limit": min(3600, settings.CELERY_TASK_SOFT_TIME_LIMIT),
    "time_limit": min(3600 + 120, settings.CELERY_TASK_TIME_LIMIT),
}
COMMON = {"bind": True, "acks_late": True, "ignore_result": True}


def _run(job_id: int, body: Callable[[Any, Callable[..., None]], dict[str, Any]]) -> None:
    from jobs.services import JobError, job_run
    from modelhub.kinds.paraqd import ParaQDError

    def guarded(job: Any, report: Callable[..., None]) -> dict[str, Any]:
        try:
            return body(job, report)
        except ParaQDError as exc:
            raise JobError(str(exc)) from exc

    job_run(job_id=job_id, body=guarded)


# --- training -------------------------------------------------------------------------------------


@shared_task(name=tasks.PARAQD_TRAIN, **COMMON, **TRAIN_LIMITS)
def train_job(self, job_id: int) -> None:
    """Train a ParaQD version (``paraqd_train_start`` queues it); the job's result holds
    ``{"version", "status", "path", "metrics", "training_data"}``."""
    _run(job_id, _train)


def _train(job: Any, report: Callable[..., None]) -> dict[str, Any]:
    from modelhub.kinds.paraqd import paraqd_train

    params = job.params
    version = paraqd_train(
        dataset_names=params["datasets"],
        preset=params.get("preset") or "tiny",
        epochs=params.get("epochs"),
        max_problems=params.get("max_problems"),
        activate=bool(params.get("activate")),
        user=job.created_by,
        job=job,
        progress=report,
        encoder=params.get("encoder") or None,
        time_budget_s=params.get("time_budget_s"),
        config_overrides=params.get("config_overrides") or None,
        balance_datasets=bool(params.get("balance_datasets")),
        include_imported_pairs=bool(params.get("include_imported_pairs")),
        eval_dataset_name=params.get("eval_dataset") or None,
    )
    return {
        "version": version.pk,
        "status": version.status,
        "path": version.artifact_path,
        "metrics": version.metrics,
        "training_data": {k: v for k, v in version.training_data.items() if k != "gold_label_ids"},
    }


# --- scoring --------------------------------------------------------------------------------------


@shared_task(name=tasks.PARAQD_SCORE, **COMMON, **SHORT_LIMITS)
def score_job(self, job_id: int) -> None:
    """Score candidates (``params["candidate_ids"]``, or every candidate of ``params["dataset"]``)
    with ``params["version"]`` (default: the active version, else the pretrained encoder).
    Scores are upserted, so a rerun after a lost worker updates the same rows."""
    _run(job_id, _score)


def _score(job: Any, report: Callable[..., None]) -> dict[str, Any]:
    from modelhub.selectors import modelversion_get
    from paraphrases.models import Candidate
    from modelhub.kinds.paraqd import ParaQDError, paraqd_score_candidates

    params = job.params
    version = None
    if params.get("version"):
        version = modelversion_get(version_id=params["version"])
        if version is None:
            raise ParaQDError(f"model version {params['version']} no longer exists")
    if params.get("dataset") is not None:
        ids = list(Candidate.objects.filter(problem__dataset_id=params["dataset"]).values_list("pk", flat=True))
    else:
        ids = params.get("candidate_ids") or []
    count = paraqd_score_candidates(candidate_ids=ids, version=version, progress=report)
    return {"scored": count, "version": version.pk if version else None}


# --- evaluation and synthesis (cpu) ---------------------------------------------------------------


@shared_task(name=tasks.PARAQD_EVALUATE, **COMMON, **SHORT_LIMITS)
def evaluate_job(self, job_id: int) -> None:
    """Evaluate ``params["model"]`` on the job's dataset; the result is the contract's metrics JSON."""
    _run(job_id, _evaluate)


def _evaluate(job: Any, report: Callable[..., None]) -> dict[str, Any]:
    from modelhub.kinds.paraqd import ParaQDError, paraqd_evaluate

    if job.dataset is None:
        raise ParaQDError("the dataset of this evaluation no longer exists")
    return paraqd_evaluate(
        dataset=job.dataset,
        model=job.params.get("model") or "active",
        threshold=None if job.params.get("threshold") is None else float(job.params["threshold"]),
        include_scores=bool(job.params.get("include_scores")),
        progress=report,
    )


@shared_task(name=tasks.PARAQD_SYNTHESIZE, **COMMON, **SHORT_LIMITS)
def synthesize_job(self, job_id: int) -> None:
    """Synthesize ParaQD test pairs for the job's dataset (idempotent: a rerun adds nothing)."""
    _run(job_id, _synthesize)


def _synthesize(job: Any, report: Callable[..., None]) -> dict[str, Any]:
    from modelhub.kinds.paraqd import ParaQDError, paraqd_synthesize_tests

    if job.dataset is None:
        raise ParaQDError("the dataset of this synthesis no longer exists")
    return paraqd_synthesize_tests(
        dataset=job.dataset,
        per_problem=int(job.params.get("per_problem", 2)),
        seed=int(job.params.get("seed", 3407)),
        positive_fallback=tuple(job.params.get("positive_fallback") or ()),
        prefer_generators=bool(job.params.get("prefer_generators")),
        progress=report,
    )
