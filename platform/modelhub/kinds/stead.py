"""STEAD, SCANNING's denoiser (paper 000), as a model kind. It learns from the problems alone (no
human label says how to denoise), so it is trained on demand and never retrained from labels; PAP
is the kind that learns from the annotators.

``stead_train``: STEAD on the problems of some datasets (test split and evaluation problems left
out, as for ParaQD), Table 6 noise drawn afresh every epoch, 20 % passive targets.
"""
from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ml.noise import apply_training_noise
from ml.serialization import json_safe
from ml.stead import train_stead
from modelhub.artifacts import discard_work, model_device, version_already_trained, version_register, work_dir
from modelhub.models import ModelVersion

from .base import NotRetrainedFromLabels, TrainRequest
from .seq2seq import (
    STEAD,
    Progress,
    ScanningError,
    datasets_named,
    noise_resources_for,
    scanning_base,
    scanning_preset,
    summary_params,
    training_problem_rows,
)

if TYPE_CHECKING:
    from django.contrib.auth.models import AbstractBaseUser

    from jobs.models import Job

logger = logging.getLogger("paralab.scanning")


def stead_train(
    *,
    dataset_names: Sequence[str],
    preset: str | None = None,
    base: str | None = None,
    max_problems: int | None = None,
    activate: bool = False,
    user: AbstractBaseUser | None = None,
    job: Job | None = None,
    progress: Progress | None = None,
    max_seconds: float | None = None,
    exclude_datasets: Sequence[str] = (),
) -> ModelVersion:
    """Train a STEAD version on the datasets' problems; a ``candidate`` (or active) version."""
    done = version_already_trained(STEAD, job, activate=activate, progress=progress, label="STEAD")
    if done is not None:
        return done
    config = scanning_preset(preset, max_problems=max_problems)
    base = scanning_base(base, config.name)
    datasets = datasets_named(dataset_names)
    rows = training_problem_rows(datasets, max_problems=config.max_problems, seed=config.seed,
                                 exclude=datasets_named(exclude_datasets) if exclude_datasets else ())
    if not rows:
        raise ScanningError(f"no problem of {', '.join(dataset_names)} may be trained on")
    texts = [text for _, text in rows]
    resources = noise_resources_for(texts)
    description = resources.describe()
    if progress:
        progress(0.0, f"STEAD on {len(texts)} problems, base {base}, preset {config.name}; noise: {description}")
    work = work_dir(STEAD, job)
    try:
        trained = train_stead(
            texts, preset=config, base=base, out_dir=work,
            noise=lambda text, rng: apply_training_noise(text, rng, resources).text,
            device=model_device(), progress=progress, max_seconds=max_seconds, noise_description=description,
        )
        params, metrics = summary_params(json_safe(trained.summary))
        version = version_register(
            kind=STEAD, folder=trained.model_dir, base_model=base, activate=activate, user=user, job=job,
            name=f"stead {config.name} on {', '.join(d.name for d in datasets)}", params=params, metrics=metrics,
            training_data=json_safe({"datasets": [d.name for d in datasets], "problems": len(texts),
                                     "problem_ids": [pk for pk, _ in rows][:20000],
                                     "passive_targets": trained.summary.get("passive_targets")}),
        )
    except BaseException as exc:
        discard_work(work, exc)
        raise
    discard_work(work)
    logger.info("trained STEAD version %s in %.0f s", version.pk, trained.summary.get("seconds", 0))
    return version


class SteadKind(NotRetrainedFromLabels):
    name = STEAD
    label = "STEAD denoiser"
    queue = "gpu"
    not_retrained_reason = "no generator yet"

    def train(self, request: TrainRequest) -> ModelVersion:
        return stead_train(dataset_names=request.dataset_names, preset=request.preset, base=request.base,
                           max_problems=request.max_problems, activate=request.activate, user=request.user,
                           job=request.job, progress=request.progress, **request.options)
