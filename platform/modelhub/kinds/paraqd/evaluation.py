"""Evaluating a ParaQD model on a dataset's gold-labelled pairs (CONTRACT.md's metrics)."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django.utils import timezone

from annotation.models import GoldLabel
from corpus.models import Dataset
from jobs import tasks
from jobs.models import Job
from jobs.requests import JobRequest
from jobs.services import job_create, job_enqueue
from ml.metrics import nest_paraqd_metrics, paraqd_eval, score_histogram
from ml.metrics.classification import pr_auc, roc_auc
from ml.serialization import json_safe
from modelhub.calibration import calibrated_probabilities
from modelhub.evaluation import gold_pairs
from modelhub.judging import calibration_of, version_threshold
from modelhub.models import ModelVersion
from modelhub.services import modelversion_set_metrics

from .common import DEFAULT_THRESHOLD, ParaQDError, Progress
from .resolve import paraqd_resolve_model, scorer_for

if TYPE_CHECKING:
    from django.contrib.auth.models import AbstractBaseUser

def paraqd_evaluate(
    *,
    dataset: Dataset,
    model: str | int | ModelVersion = "active",
    threshold: float | None = None,
    include_scores: bool = False,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """Score ``dataset``'s gold-labelled pairs and return CONTRACT.md's metrics:
    ``{"n", "macro": {"p", "r", "f1", "f1_hm"}, "weighted": {...}, "mu_pos", "mu_neg", "separation"}``
    plus ``model``, ``dataset`` and ``threshold`` (and ``scores``: ``{"valid": [...], "invalid": [...]}``
    with ``include_scores``). A mean over an empty class is ``None``. ``threshold`` defaults to the
    version's calibrated cosine threshold (``calibrate``), else 0.5. Threshold-free: ``auc`` (ROC
    AUC) and ``pr_auc`` of the cosine; with a calibration, ``calibrated`` holds the metrics of the
    calibrated probability (its separation mapped to [-1, 1] as 2p - 1) and ``threshold_source``
    says where the threshold came from.

    For a model version, the result is also stored in ``version.metrics["eval"][dataset.name]``.
    """

    if threshold is not None and (not math.isfinite(threshold) or not -1.0 <= threshold <= 1.0):
        raise ParaQDError(f"--threshold must be a cosine in [-1, 1], not {threshold}")
    scoring = paraqd_resolve_model(model=model)
    threshold_source = "given"
    if threshold is None:
        calibrated = scoring.version is not None and calibration_of(scoring.version) is not None
        threshold = version_threshold(scoring.version) if scoring.version is not None else DEFAULT_THRESHOLD
        threshold_source = "calibration" if calibrated else "default"
    pairs = gold_pairs(dataset=dataset)
    if not pairs:
        raise ParaQDError(
            f"dataset {dataset.name!r} has no gold-labelled pairs to evaluate on "
            "(import labelled pairs with import_pairs, or have annotators label items)"
        )
    if progress:
        progress(0.1, f"scoring {len(pairs)} gold-labelled pairs with {scoring.label}")
    scores = scorer_for(scoring).score([p[1] for p in pairs], [p[2] for p in pairs])
    labels = [int(p[3]) for p in pairs]
    metrics = json_safe(nest_paraqd_metrics(paraqd_eval(scores, labels, threshold)))
    metrics["auc"] = json_safe(roc_auc([float(s) for s in scores], labels))
    metrics["pr_auc"] = json_safe(pr_auc([float(s) for s in scores], labels))
    probabilities = calibrated_probabilities(version=scoring.version, scores=[float(s) for s in scores])
    if probabilities and probabilities[0] is not None:
        record = calibration_of(scoring.version)
        mapped = [2.0 * p - 1.0 for p in probabilities]
        metrics["calibrated"] = json_safe(nest_paraqd_metrics(
            paraqd_eval(mapped, labels, 2.0 * float(record["threshold"]) - 1.0)))
    result: dict[str, Any] = {
        **metrics,
        "threshold": threshold,
        "threshold_source": threshold_source,
        "model": {"scorer_version": scoring.scorer_version, "version": scoring.version.pk if scoring.version else None,
                  "path": scoring.path},
        "dataset": dataset.name,
    }
    if scoring.version is not None:
        # The histogram is what /dashboard/ plots: the valid and invalid score distributions.
        stored = {**metrics, "threshold": threshold, "evaluated_at": timezone.now().isoformat(timespec="seconds"),
                  "histogram": score_histogram([float(s) for s in scores], labels)}
        modelversion_set_metrics(version=scoring.version, metrics={dataset.name: stored}, path=("eval",))
    if include_scores:
        result["scores"] = {
            "valid": [float(s) for s, y in zip(scores, labels) if y],
            "invalid": [float(s) for s, y in zip(scores, labels) if not y],
        }
    if progress:
        progress(1.0, f"separation {result['separation']}, weighted F1(hm) {result['weighted']['f1_hm']:.3f}")
    return result


@dataclass(frozen=True)
class EvaluateRequest(JobRequest):
    """Evaluate ``model`` (``active``, ``pretrained`` or a version id) on the job's dataset."""

    model: str = "active"
    threshold: float | None = None
    include_scores: bool = False


def paraqd_evaluate_start(
    *,
    dataset: Dataset,
    model: str | int = "active",
    threshold: float | None = None,
    include_scores: bool = False,
    user: AbstractBaseUser | None = None,
    enqueue: bool = True,
) -> Job:
    """Queue an evaluation job (cpu queue); checks the model and the gold labels first."""

    paraqd_resolve_model(model=model)
    if not GoldLabel.objects.filter(candidate__problem__dataset=dataset).exists():
        raise ParaQDError(f"dataset {dataset.name!r} has no gold-labelled pairs to evaluate on")
    job = job_create(
        kind=Job.Kind.EVALUATE,
        params=EvaluateRequest(model=str(model), threshold=threshold, include_scores=include_scores).to_params(),
        dataset=dataset, created_by=user, queue="cpu",
    )
    if enqueue:
        job_enqueue(job=job, task=tasks.PARAQD_EVALUATE)
    return job


def paraqd_evaluate_run(*, job: Job, progress: Progress | None = None) -> dict[str, Any]:
    """The evaluation job's body: CONTRACT.md's metrics JSON of the job's dataset."""
    if job.dataset is None:
        raise ParaQDError("the dataset of this evaluation no longer exists")
    request = EvaluateRequest.from_params(job.params)
    return paraqd_evaluate(
        dataset=job.dataset, model=request.model or "active",
        threshold=None if request.threshold is None else float(request.threshold),
        include_scores=bool(request.include_scores), progress=progress,
    )
