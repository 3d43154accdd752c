"""The ``generate`` task: generators over a dataset's problems, scored, selected and queued.

Thin: it claims the job through ``jobs.services.job_run`` (a redelivered message for a finished
job is a no-op; a stale one runs again, and every row it writes is keyed by what it is, so the
rerun rewrites the same rows) and calls ``paraphrases.generation.generation_run``. Bad input
(``GenerationError``) fails the job with its message. Rule-based generation runs on the cpu queue;
a neural generator's job is routed to the gpu queue by ``generation_start``.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from celery import shared_task

from jobs import tasks
from celery.signals import worker_init, worker_process_init

from .paraqd import COMMON, SHORT_LIMITS


@shared_task(name=tasks.GENERATE, **COMMON, **SHORT_LIMITS)
def generate_job(self, job_id: int) -> None:
    """Run ``generation_run`` with the job's params; the job's result is the ``generate`` JSON."""
    from jobs.services import JobError, job_log, job_run
    from paraphrases.generation import GenerationError

    def body(job: Any, report: Callable[..., None]) -> dict[str, Any]:
        from paraphrases.generation import generation_run

        if job.dataset is None:
            raise JobError("the dataset of this generation job no longer exists")
        params = job.params
        try:
            result = generation_run(
                dataset=job.dataset,
                generators=params.get("generators") or None,
                select=params.get("select"),
                per_problem=int(params.get("per_problem", 2)),
                queue=bool(params.get("queue", True)),
                seed=int(params.get("seed", 3407)),
                progress=report,
                log=lambda line: job_log(job_id=job.pk, line=line),
                max_problems=params.get("max_problems"),
            )
        except GenerationError as exc:
            raise JobError(str(exc)) from exc
        return {"job": job.pk, **result}

    job_run(job_id=job_id, body=body)


@shared_task(name=tasks.PARAPHRASE, **COMMON, **SHORT_LIMITS)
def paraphrase_job(self, job_id: int) -> None:
    """Run ``paraphrase_variants`` for one pasted problem; the job's result is its answer."""
    from jobs.services import JobError, job_run
    from paraphrases.generation import GenerationError

    def body(job: Any, report: Callable[..., None]) -> dict[str, Any]:
        from modelhub.kinds.judge.service import JudgeError
        from modelhub.kinds.paraqd import ParaQDError
        from paraphrases.handout import paraphrase_variants

        params = job.params
        report(0.05, "generating, scoring and judging the candidates")
        try:
            result = paraphrase_variants(text=params["text"], k=int(params.get("k", 3)),
                                         generators=params.get("generators") or None, select=params.get("select"))
        except (GenerationError, ParaQDError, JudgeError) as exc:
            raise JobError(str(exc)) from exc
        return result

    job_run(job_id=job_id, body=body)


@worker_process_init.connect
@worker_init.connect
def _warm_up(**kwargs: Any) -> None:
    """Load spaCy and the synonym source once when a worker starts (about 7 s on a 2-core CPU),
    not inside the first task. A failure here is logged and the task will try again."""
    import logging

    try:
        from ml.generation import warm_up
        from paraphrases.generation import generation_resources

        loaded = warm_up(generation_resources())
        logging.getLogger("paralab.generation").info("generation resources loaded: %s", ", ".join(loaded))
    except Exception:  # noqa: BLE001 - a worker must start even when a resource is missing
        logging.getLogger("paralab.generation").exception("warming up the generators failed")
