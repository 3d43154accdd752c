"""Training a ParaQD version: into a partial folder, registered only once training succeeded, so a
failure leaves the active model as it was."""
from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from django.conf import settings

from jobs import tasks
from jobs.models import Job
from jobs.requests import JobRequest
from jobs.services import job_create, job_enqueue
from ml.paraqd import ParaQDTrainConfig
from ml.serialization import json_safe
from modelhub.artifacts import (
    discard_work,
    remove_abandoned_partials,
    version_already_trained,
    version_register,
    work_dir,
)
from modelhub.models import ModelVersion

from .common import (
    DEFAULT_PRESET,
    KIND,
    PRESETS,
    ParaQDError,
    Progress,
    base_encoder_path,
    datasets_by_name,
    paraqd_device,
    scaled,
)
from .evaluation import gold_pairs
from .operators import operator_resources
from .triplets import paraqd_training_triplets

if TYPE_CHECKING:
    from django.contrib.auth.models import AbstractBaseUser

logger = logging.getLogger("paralab.paraqd")


def _train_config(
    *, preset: str, encoder_path: str, epochs: int | None, time_budget_s: float | None, seed: int = 3407,
    overrides: dict[str, Any] | None = None,
):
    if preset not in PRESETS:
        raise ParaQDError(f"--preset must be one of {', '.join(PRESETS)}, not {preset!r}")
    if epochs is not None and epochs < 1:
        raise ParaQDError("--epochs must be at least 1")
    requested = {k: v for k, v in (overrides or {}).items() if v is not None}
    overrides = {"encoder": encoder_path, "device": paraqd_device(), "seed": seed}
    if settings.PARALAB_TORCH_THREADS:
        overrides["num_threads"] = settings.PARALAB_TORCH_THREADS
    if epochs is not None:
        overrides["epochs"] = epochs
    if time_budget_s is not None:
        overrides["time_budget_s"] = time_budget_s
    if "distance" in requested and "margin" not in requested:
        overrides["margin"] = None  # the distance's own default margin
    if requested.get("triplet_pairing") == "all" and "max_triplets_per_anchor" not in requested:
        # The preset's cap (6 a question) would throw most of the all-pairs triplets away.
        overrides["max_triplets_per_anchor"] = None
    overrides.update(requested)
    factory = ParaQDTrainConfig.paper if preset == "paper" else ParaQDTrainConfig.tiny
    try:
        return factory(**overrides)
    except ValueError as exc:
        raise ParaQDError(str(exc)) from exc


def paraqd_train(
    *,
    dataset_names: Sequence[str],
    preset: str = DEFAULT_PRESET,
    epochs: int | None = None,
    max_problems: int | None = None,
    activate: bool = False,
    user: AbstractBaseUser | None = None,
    job: Job | None = None,
    progress: Progress | None = None,
    encoder: str | None = None,
    operators: Sequence[str] | None = None,
    time_budget_s: float | None = None,
    seed: int = 3407,
    exclude_candidate_ids: Collection[int] = (),
    config_overrides: dict[str, Any] | None = None,
    balance_datasets: bool = False,
    include_imported_pairs: bool = False,
    eval_dataset_name: str | None = None,
    validation_share: float = 0.1,
) -> ModelVersion:
    """Train a ParaQD scorer on the named datasets and register it as a ``candidate`` version
    (activated too with ``activate``). Writes to ``MODEL_DIR/paraqd/v<id>-<timestamp>/``.

    Training writes into a fresh partial directory that is deleted when anything fails; the
    version row is created, the directory renamed to its final name and (optionally) the version
    activated only after training succeeded, so a failure leaves the active model as it was.
    ``eval_dataset_name``: a dataset whose gold-labelled pairs are scored after every epoch; the
    curve is stored in ``metrics["training"]["eval_history"]`` (a validation set such as the paper's
    aqua_val, never the test set one reports on, if the curve is used to choose settings).
    ``time_budget_s`` is the wall-clock budget of the whole call: building the triplets counts
    against it, and training gets what is left. ``config_overrides`` change fields of the preset's
    :class:`ml.paraqd.ParaQDTrainConfig` (e.g. ``{"distance": "euclidean"}``; None values are ignored).
    Without ``eval_dataset_name``, ``validation_share`` of the training questions (chosen by a
    seeded hash) are held out with their operator outputs as validation pairs: the trainer keeps
    the epoch with the best validation ROC AUC, stops early when it stops improving, and records
    whether the saved weights rank those pairs worse than the base encoder did; such a version is
    registered but never activated (``activate`` is refused, the retrain gate keeps it out).
    Raises ParaQDError for bad input (unknown dataset or encoder, nothing to train on).
    """
    from ml.paraqd.train import train_paraqd  # torch

    started = time.monotonic()

    # A rerun of a job whose worker was lost after registering the version: finish, don't retrain.
    done = version_already_trained(KIND, job, activate=activate, progress=progress, label="ParaQD")
    if done is not None:
        return done
    datasets = datasets_by_name(dataset_names)
    eval_pairs = None
    if eval_dataset_name:
        pairs = gold_pairs(dataset=datasets_by_name([eval_dataset_name])[0])
        if not pairs:
            raise ParaQDError(f"dataset {eval_dataset_name!r} has no gold-labelled pairs to evaluate on")
        eval_pairs = [(question, paraphrase, valid) for _, question, paraphrase, valid in pairs]
    encoder_name = encoder or settings.PARALAB_SENTENCE_ENCODER
    encoder_path = base_encoder_path(encoder_name)
    config = _train_config(
        preset=preset, encoder_path=encoder_path, epochs=epochs, time_budget_s=time_budget_s, seed=seed,
        overrides=config_overrides,
    )

    triplets, snapshot = paraqd_training_triplets(
        datasets=datasets, max_problems=max_problems, balance_datasets=balance_datasets, seed=seed,
        operators=operators, include_imported_pairs=include_imported_pairs,
        resources=operator_resources(encoder=encoder_name),
        progress=scaled(progress, 0.0, 0.3),
        exclude_candidate_ids=exclude_candidate_ids,
        pairing=config.triplet_pairing,
        operator_draws=config.operator_draws,
    )
    if not triplets:
        names = ", ".join(d.name for d in datasets)
        excluded = snapshot["excluded"]
        if not snapshot["problems_available"]:
            raise ParaQDError(
                f"no training triplets from {names}: no problem may be trained on ({excluded['test_split']} "
                f"of split test, {excluded['held_out_copies']} held out as test or imported-pair questions)"
            )
        raise ParaQDError(
            f"no training triplets from {names}: no positive and negative operator both applied to any of "
            f"its {snapshot['problems_available']} problems"
        )
    validation: dict[str, Any] = {"source": eval_dataset_name, "pairs": len(eval_pairs or [])}
    if eval_pairs is None and validation_share > 0:
        kept, held_pairs, held_anchors = hold_out_validation(triplets, share=validation_share, seed=seed)
        if held_pairs:
            triplets, eval_pairs = kept, held_pairs
            validation = {"source": "held-out training questions' operator outputs", "share": validation_share,
                          "questions": held_anchors, "pairs": len(held_pairs)}
    snapshot["validation"] = validation
    snapshot["seconds"] = round(time.monotonic() - started, 3)
    if progress:
        progress(0.3, f"{len(triplets)} triplets from {snapshot['problems_used']} problems "
                      f"({snapshot['hard_examples']} hard gold examples) in {snapshot['seconds']:.0f} s")
    if time_budget_s is not None:
        left = time_budget_s - (time.monotonic() - started)
        if left <= 0:
            raise ParaQDError(f"the time budget of {time_budget_s:g} s was used up building the triplets")
        config = config.replace(time_budget_s=left)

    remove_abandoned_partials(KIND)
    partial = work_dir(KIND)
    try:
        result = train_paraqd(config, triplets, partial, progress=scaled(progress, 0.3, 0.95), eval_pairs=eval_pairs)
        summary = result.summary()
        metrics = {
            "training": {
                "seconds": round(result.seconds, 3),
                "device": result.device,
                "steps": result.steps,
                "planned_steps": result.planned_steps,
                "epochs_completed": result.epochs_completed,
                "triplets_seen": result.triplets_seen,
                "triplets_per_second": summary.get("triplets_per_second"),
                "stopped_early": result.stopped_early,
                "stop_reason": result.stop_reason,
                "final_loss": result.loss_history[-1] if result.loss_history else None,
                "loss_curve": summary.get("loss_curve", []),
                "eval_dataset": eval_dataset_name,
                "eval_history": json_safe(result.eval_history),
                "validation": validation,
                "base_validation_auc": json_safe(result.base_validation_auc),
                "best_validation_auc": json_safe(result.best_validation_auc),
                "best_epoch": result.best_epoch,
                "ranks_worse_than_base": result.ranks_worse_than_base,
            },
        }
        params = {**json_safe(config.to_dict()), "preset": preset, "encoder_setting": encoder_name}
        version = version_register(
            kind=KIND, folder=partial, base_model=encoder_name, training_data=snapshot, params=params,
            metrics=metrics, job=job, user=user, name=f"paraqd {preset} on {', '.join(d.name for d in datasets)}",
            activate=activate and not result.ranks_worse_than_base,
        )
    except BaseException as exc:
        discard_work(partial, exc, resumable=False)
        raise
    if progress:
        worse = (f"; not activated: validation AUC {result.best_validation_auc:.4f} is below the base's "
                 f"{result.base_validation_auc:.4f}" if result.ranks_worse_than_base else "")
        progress(1.0, f"version {version.pk} ({version.status}) at {version.artifact_path}{worse}")
    logger.info("trained ParaQD version %s on %s in %.1f s", version.pk, [d.name for d in datasets], result.seconds)
    return version


@dataclass(frozen=True)
class ParaQDTrainRequest(JobRequest):
    """One ParaQD training run (``paraqd_train``'s options that a job carries)."""

    model: str = KIND
    datasets: list[str] = field(default_factory=list)
    preset: str = DEFAULT_PRESET
    epochs: int | None = None
    max_problems: int | None = None
    activate: bool = False
    encoder: str | None = None
    time_budget_s: float | None = None
    config_overrides: dict[str, Any] = field(default_factory=dict)
    balance_datasets: bool = False
    include_imported_pairs: bool = False
    eval_dataset: str | None = None


def paraqd_train_start(
    *,
    dataset_names: Sequence[str],
    preset: str = DEFAULT_PRESET,
    epochs: int | None = None,
    max_problems: int | None = None,
    activate: bool = False,
    user: AbstractBaseUser | None = None,
    encoder: str | None = None,
    time_budget_s: float | None = None,
    config_overrides: dict[str, Any] | None = None,
    balance_datasets: bool = False,
    include_imported_pairs: bool = False,
    eval_dataset_name: str | None = None,
    enqueue: bool = True,
) -> Job:
    """Queue a training job (gpu queue) once the transaction commits; ParaQDError for bad input.

    ``enqueue=False`` only creates the job, for a caller that runs the task itself (the commands).
    """

    datasets = datasets_by_name(dataset_names)
    if eval_dataset_name:
        datasets_by_name([eval_dataset_name])
    overrides = {k: v for k, v in (config_overrides or {}).items() if v is not None}
    _train_config(preset=preset, encoder_path=base_encoder_path(encoder), epochs=epochs, time_budget_s=time_budget_s,
                  overrides=overrides)
    if max_problems is not None and max_problems < 1:
        raise ParaQDError("--max-problems must be at least 1")
    job = job_create(
        kind=Job.Kind.TRAIN,
        params=ParaQDTrainRequest(
            datasets=[d.name for d in datasets], preset=preset, epochs=epochs, max_problems=max_problems,
            activate=activate, encoder=encoder, time_budget_s=time_budget_s, config_overrides=overrides,
            balance_datasets=balance_datasets, include_imported_pairs=include_imported_pairs,
            eval_dataset=eval_dataset_name,
        ).to_params(),
        dataset=datasets[0],
        created_by=user,
        queue="gpu",
    )
    if enqueue:
        job_enqueue(job=job, task=tasks.PARAQD_TRAIN)
    return job


def paraqd_train_run(*, job: Job, progress: Progress | None = None) -> dict[str, Any]:
    """The training job's body: ``{"version", "status", "path", "metrics", "training_data"}``."""
    request = ParaQDTrainRequest.from_params(job.params)
    version = paraqd_train(
        dataset_names=request.datasets, preset=request.preset or DEFAULT_PRESET, epochs=request.epochs,
        max_problems=request.max_problems, activate=bool(request.activate), user=job.created_by, job=job,
        progress=progress, encoder=request.encoder or None, time_budget_s=request.time_budget_s,
        config_overrides=request.config_overrides or None, balance_datasets=bool(request.balance_datasets),
        include_imported_pairs=bool(request.include_imported_pairs), eval_dataset_name=request.eval_dataset or None,
    )
    return {
        "version": version.pk,
        "status": version.status,
        "path": version.artifact_path,
        "metrics": version.metrics,
        "training_data": {k: v for k, v in version.training_data.items() if k != "gold_label_ids"},
    }


def hold_out_validation(triplets: list, *, share: float, seed: int) -> tuple[list, list[tuple[str, str, int]], int]:
    """Split ``triplets`` by question: about ``share`` of the anchors (a seeded hash of the text)
    leave training, and their positives and negatives become (question, paraphrase, label)
    validation pairs. Nothing is held out when that would leave either side without both classes."""

    def held(anchor: str) -> bool:
        digest = hashlib.sha256(f"{seed}:{anchor}".encode()).digest()
        return int.from_bytes(digest[:4], "big") / 2**32 < share

    kept, out = [], []
    for triplet in triplets:
        (out if held(triplet.anchor) else kept).append(triplet)
    pairs: dict[tuple[str, str], int] = {}
    for t in out:
        pairs.setdefault((t.anchor, t.positive), 1)
        pairs.setdefault((t.anchor, t.negative), 0)
    rows = [(q, p, label) for (q, p), label in pairs.items()]
    if not kept or len({label for *_, label in rows}) < 2 or len(rows) < 10:
        return triplets, [], 0
    return kept, rows, len({t.anchor for t in out})
