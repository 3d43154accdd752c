"""What STEAD and PAP (paper 000's two seq2seq kinds) share in the platform: presets and bases,
the problems they may train on, the training-noise resources, loading a version's model, and the
job that trains one of them (``scanning_train_start`` / ``scanning_train_run``).

Training runs write checkpoints under ``MODEL_DIR/<kind>/.job-<job id>/`` (``modelhub.artifacts``);
a job redelivered after its worker was killed resumes from there, and a version this job already
registered is reused. A failure raised in Python removes the work folder and leaves the active
versions as they were.
"""
from __future__ import annotations

import logging
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from django.conf import settings

from core.errors import UserError
from corpus.models import Dataset, Problem
from corpus.selectors import datasets_found
from jobs import tasks
from jobs.models import Job
from jobs.progress import Progress
from jobs.requests import JobRequest
from jobs.services import job_create, job_enqueue, task_named
from ml.generation import GeneratorUnavailable, synonym_lookup
from ml.noise import noise_resources
from ml.seq2seq import load_text_model
from ml.stead import preset as stead_preset
from modelhub.artifacts import model_device
from modelhub.models import ModelVersion
from modelhub.resources import generation_resources
from modelhub.selectors import modelversion_active

from .base import TrainRequest
from .paraqd import training_problems
from .registry import get_kind

if TYPE_CHECKING:
    from django.contrib.auth.models import AbstractBaseUser

logger = logging.getLogger("paralab.scanning")

STEAD, PAP = "stead", "pap"
NEURAL_GENERATORS = (STEAD, PAP)
PRESETS = ("tiny", "paper")


class ScanningError(UserError):
    """Bad input or nothing to train on; the message is for the user."""


# --- settings ------------------------------------------------------------------------------------


def scanning_base(base: str | None = None, preset: str | None = None) -> str:
    """The STEAD/PAP base: the argument, else ``PARALAB_SEQ2SEQ_BASE`` when set, else the tiny
    scratch BART for the ``tiny`` preset (it must finish in minutes on a CPU; SmolLM2 took over
    40 minutes for 200 problems) and SmolLM2 for the others."""
    named = (base or settings.PARALAB_SEQ2SEQ_BASE or "").strip()
    if named:
        return named
    return "scratch" if preset == "tiny" else "smollm2"


def scanning_preset(name: str | None = None, **overrides: Any):
    """The ``ml.stead`` preset called ``name`` (``PARALAB_SCANNING_PRESET`` when None)."""
    try:
        return stead_preset(name or settings.PARALAB_SCANNING_PRESET, **overrides)
    except ValueError as exc:
        raise ScanningError(str(exc)) from exc


def check_preset(preset: str | None) -> None:
    if preset is not None and preset not in PRESETS:
        raise ScanningError(f"unknown preset {preset!r}: choose tiny or paper")


# --- problems and noise --------------------------------------------------------------------------


def datasets_named(names: Sequence[str]) -> list[Dataset]:
    if not names:
        raise ScanningError("name at least one dataset to train on")
    found = datasets_found(names)
    missing = [n for n in names if n not in found]
    if missing:
        raise ScanningError(f"unknown dataset(s): {', '.join(missing)}")
    return [found[n] for n in names]


def training_problem_rows(
    datasets: Sequence[Dataset], *, max_problems: int | None = None, exclude: Sequence[Dataset] = (), seed: int = 3407
) -> list[tuple[int, str]]:
    """(id, text) of the problems STEAD/PAP may train on: ParaQD's rule (no test split, no copy of a
    test or imported-pair question) and no problem whose text is in an ``exclude`` dataset (the
    evaluation set); a seeded sample of ``max_problems`` when given, one per distinct text."""
    allowed, _ = training_problems(datasets=datasets)
    if exclude:
        allowed = allowed.exclude(text_hash__in=Problem.objects.filter(dataset__in=exclude).values("text_hash"))
    rows, seen = [], set()
    for pk, text, digest in allowed.order_by("id").values_list("id", "text", "text_hash"):
        if digest not in seen and text.strip():
            seen.add(digest)
            rows.append((pk, text))
    if max_problems is not None and len(rows) > max_problems:
        rows = random.Random(seed).sample(rows, max_problems)
        rows.sort()
    return rows


@lru_cache(maxsize=2)
def _noise_resources(corpus_key: tuple[str, ...], fluency: str) -> Any:
    try:
        synonyms = synonym_lookup(generation_resources())
    except GeneratorUnavailable as exc:
        logger.warning("SCANNING noise without synonyms: %s", exc.reason)
        synonyms = None
    return noise_resources(list(corpus_key), fluency=fluency, synonyms=synonyms)


def noise_resources_for(texts: Sequence[str]) -> Any:
    """``ml.noise`` resources for these problems (insertion vocabulary, synonyms, the fluency LM of
    ``PARALAB_FLUENCY_LM``), built once per process and corpus."""
    return _noise_resources(tuple(texts), settings.PARALAB_FLUENCY_LM)


# --- versions ------------------------------------------------------------------------------------


def version_resolve(kind: str, version: ModelVersion | int | None) -> ModelVersion:
    """``version`` (a row or an id) of ``kind``, else the active one; ScanningError when none."""
    if isinstance(version, ModelVersion):
        return version
    if version is not None:
        found = ModelVersion.objects.filter(pk=version, kind=kind).first()
        if found is None:
            raise ScanningError(f"there is no {kind.upper()} version {version}")
        return found
    active = modelversion_active(kind=kind)
    if active is None:
        raise ScanningError(f"no {kind.upper()} version is active: train one first (train_{kind} --activate)")
    return active


@lru_cache(maxsize=4)
def _load_path(path: str, device: str):
    return load_text_model(Path(path), device=device)


def version_model(version: ModelVersion):
    """The loaded seq2seq model of ``version`` (cached per process)."""
    if not version.artifact_path or not Path(version.artifact_path).is_dir():
        raise ScanningError(f"{version.kind} version {version.pk} has no model folder at {version.artifact_path!r}")
    return _load_path(version.artifact_path, model_device())


def version_result(version: ModelVersion) -> dict[str, Any]:
    """A trained version as a job's result (its loss history left out)."""
    return {"version": version.pk, "kind": version.kind, "status": version.status, "path": version.artifact_path,
            "metrics": {k: v for k, v in version.metrics.items() if k != "training"} | {
                "training": {k: v for k, v in (version.metrics.get("training") or {}).items()
                             if k != "loss_history"}}}


def summary_params(summary: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The ``params`` and ``metrics`` of a version row from a seq2seq training summary."""
    params = {"preset": summary.get("preset"), "architecture": summary.get("architecture"),
              "parameters": summary.get("parameters"), "device": summary.get("device")}
    metrics = {"training": summary.get("training"), "noise": summary.get("noise"), "seconds": summary.get("seconds")}
    return params, metrics


# --- the training job ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Seq2SeqTrainRequest(JobRequest):
    """One STEAD or PAP training run (``model``): the datasets, preset, base, problem cap, whether to
    activate it, and a time budget."""

    model: str = PAP
    datasets: list[str] = field(default_factory=list)
    preset: str | None = None
    base: str | None = None
    max_problems: int | None = None
    activate: bool = False
    max_seconds: float | None = None


def scanning_train_start(
    *,
    kind: str,
    dataset_names: Sequence[str],
    preset: str | None = None,
    base: str | None = None,
    max_problems: int | None = None,
    activate: bool = False,
    user: AbstractBaseUser | None = None,
    max_seconds: float | None = None,
    enqueue: bool = True,
) -> Job:
    """Queue a STEAD or PAP training job (gpu queue) once the transaction commits."""
    if kind not in NEURAL_GENERATORS:
        raise ScanningError(f"unknown generator kind {kind!r}")
    check_preset(preset)
    datasets = datasets_named(dataset_names)
    if max_problems is not None and max_problems < 1:
        raise ScanningError("--max-problems must be at least 1")
    job = job_create(
        kind=Job.Kind.TRAIN,
        params=Seq2SeqTrainRequest(model=kind, datasets=[d.name for d in datasets], preset=preset, base=base,
                                   max_problems=max_problems, activate=activate, max_seconds=max_seconds).to_params(),
        dataset=datasets[0], created_by=user, queue="gpu",
    )
    if enqueue:
        job_enqueue(job=job, task=tasks.SCANNING_TRAIN)
    return job


def scanning_train_run(*, job: Job, progress: Progress | None = None) -> dict[str, Any]:
    """The body of a STEAD/PAP training job: the kind trains (``TrainRequest``); an activated
    version then meets the handout gate (``paraphrases.neural_gate``), run here and now through its
    task's name (``jobs.tasks.NEURAL_GATE``): the gate is the generation app's, which modelhub
    does not import."""

    stored = Seq2SeqTrainRequest.from_params(job.params)
    request = TrainRequest(dataset_names=stored.datasets, preset=stored.preset, base=stored.base,
                           max_problems=stored.max_problems, activate=bool(stored.activate), user=job.created_by,
                           job=job, progress=progress, options={"max_seconds": stored.max_seconds})
    version = get_kind(stored.model or PAP).train(request)
    if version.status == "active":
        if progress:
            progress(0.97, "handout gate: the judge reads what the new version writes")
        task_named(tasks.NEURAL_GATE).apply(kwargs={"kind": version.kind}, throw=True)
        version.refresh_from_db()
    return version_result(version)
