"""SCANNING in the platform (paper 000) as one job: train STEAD → inference noise → generate →
score → QF-PCF → PAMMR → train PAP → generate on the evaluation dataset with STEAD, PAP, the
rule-based generators and the baselines (the ``generate`` job's code), and the per-generator mean
S, D, N, PQI. STEAD and PAP themselves are model kinds (``modelhub.kinds.stead``,
``modelhub.kinds.pap``; what they share is ``modelhub.kinds.seq2seq``). The last step is the
generation app's: the task hands ``scanning_run`` that app's ``generation_run`` as ``generate``
(``workers/scanning.py``), so modelhub imports no generation service."""
from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from jobs import tasks
from jobs.models import Job
from jobs.progress import scaled_progress
from jobs.requests import JobRequest
from jobs.services import job_create, job_enqueue
from ml.generation import GENERATORS
from modelhub.resources import generation_resources

from .pap import pap_train_from_corpus
from .seq2seq import Progress, ScanningError, check_preset, datasets_named, version_result
from .stead import stead_train

if TYPE_CHECKING:
    from django.contrib.auth.models import AbstractBaseUser

__all__ = ["ScanningError", "scanning_run", "scanning_start"]


@dataclass(frozen=True)
class ScanningRequest(JobRequest):
    """The whole chain: STEAD and PAP on ``datasets``, generation measured on ``eval_dataset``."""

    model: str = "scanning"
    datasets: list[str] = field(default_factory=list)
    eval_dataset: str = ""
    preset: str | None = None
    base: str | None = None
    max_problems: int | None = None


def scanning_start(
    *,
    dataset_names: Sequence[str],
    eval_dataset: str,
    preset: str | None = None,
    base: str | None = None,
    max_problems: int | None = None,
    user: AbstractBaseUser | None = None,
    enqueue: bool = True,
) -> Job:
    """Queue the whole SCANNING chain as one job (gpu queue)."""
    check_preset(preset)
    datasets = datasets_named(dataset_names)
    evaluation = datasets_named([eval_dataset])[0]
    if evaluation.name in [d.name for d in datasets]:
        raise ScanningError("the evaluation dataset must not be one of the training datasets")
    job = job_create(
        kind=Job.Kind.TRAIN,
        params=ScanningRequest(datasets=[d.name for d in datasets], eval_dataset=evaluation.name, preset=preset,
                               base=base, max_problems=max_problems).to_params(),
        dataset=evaluation, created_by=user, queue="gpu",
    )
    if enqueue:
        job_enqueue(job=job, task=tasks.SCANNING_RUN)
    return job


def scanning_run(
    *, job: Job, generate: Callable[..., dict[str, Any]], progress: Progress | None = None
) -> dict[str, Any]:
    """The chain (module docstring); the result holds both versions and, per generator, the mean
    S, D, N, PQI, 1 − BLEU, WPD of its candidates on the evaluation dataset. ``generate``: the
    generation app's ``generation_run`` (``dataset``, ``generators``, ``progress`` in; its result out)."""
    request = ScanningRequest.from_params(job.params)
    names, evaluation = request.datasets, request.eval_dataset
    started = time.monotonic()
    stead = stead_train(dataset_names=names, preset=request.preset, base=request.base,
                        max_problems=request.max_problems, activate=True, user=job.created_by, job=job,
                        progress=scaled_progress(progress, 0.0, 0.4), exclude_datasets=[evaluation])
    pap = pap_train_from_corpus(dataset_names=names, preset=request.preset, base=request.base,
                                stead_version=stead, max_problems=request.max_problems, activate=True,
                                user=job.created_by, job=job, progress=scaled_progress(progress, 0.4, 0.8),
                                exclude_datasets=[evaluation])
    resources = generation_resources()
    generators = [n for n, g in GENERATORS.items()
                  if n != "instruct_llm" and g.unavailable_reason(resources) is None]
    if progress:
        progress(0.8, f"generating on {evaluation} with {', '.join(generators)}")
    result = generate(dataset=datasets_named([evaluation])[0], generators=generators,
                            progress=scaled_progress(progress, 0.8, 1.0))
    return {
        "stead": version_result(stead), "pap": version_result(pap),
        "eval_dataset": evaluation, "by_generator": result["by_generator"], "refused": result["refused"],
        "candidates": result["candidates"], "queued": result["queued"], "scorer": result["scorer"],
        "seconds": round(time.monotonic() - started, 1),
    }
