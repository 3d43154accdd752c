"""Scoring candidates with a ParaQD model: one ``Score`` per (candidate, scorer version), upserted."""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from corpus.models import Dataset
from jobs import tasks
from jobs.models import Job
from jobs.requests import JobRequest
from jobs.services import job_create, job_enqueue
from modelhub.calibration import calibrated_probabilities
from modelhub.models import ModelVersion
from modelhub.selectors import modelversion_get
from paraphrases.models import Candidate, Score

from .common import SCORE_BATCH, ParaQDError, Progress
from .resolve import default_scoring_model, scorer_for

if TYPE_CHECKING:
    from django.contrib.auth.models import AbstractBaseUser

def paraqd_score_candidates(
    *, candidate_ids: Iterable[int], version: ModelVersion | None = None, progress: Progress | None = None
) -> int:
    """Score candidates against their problem with ``version`` (default: the active version, or
    the pretrained base encoder when there is none, scorer version ``paraqd:pretrained``).

    Writes ``Score(paraqd=cos, similarity=(cos + 1) / 2)`` per (candidate, scorer version),
    inserting or updating in place (one row per pair, whatever the number of runs). Returns the
    number of candidates scored (ids that no longer exist are skipped).
    """

    model = default_scoring_model(version)
    ids = sorted(set(int(pk) for pk in candidate_ids))
    if not ids:
        return 0
    scorer = scorer_for(model)
    scored = 0
    for start in range(0, len(ids), SCORE_BATCH):
        chunk = ids[start:start + SCORE_BATCH]
        rows = list(Candidate.objects.filter(pk__in=chunk).values_list("pk", "problem__text", "text"))
        if not rows:
            continue
        cosines = scorer.score([r[1] for r in rows], [r[2] for r in rows])
        probabilities = calibrated_probabilities(version=model.version, scores=[float(c) for c in cosines])
        scores = [
            Score(
                candidate_id=pk, scorer_version=model.scorer_version, model_version=model.version,
                paraqd=float(cos), similarity=(float(cos) + 1.0) / 2.0, probability=probability,
            )
            for (pk, _, _), cos, probability in zip(rows, cosines, probabilities)
        ]
        Score.objects.bulk_create(
            scores, update_conflicts=True, unique_fields=["candidate", "scorer_version"],
            update_fields=["paraqd", "similarity", "probability", "model_version"],
        )
        scored += len(rows)
        if progress:
            progress(min(1.0, (start + len(chunk)) / len(ids)), f"scored {scored} candidates")
    return scored


@dataclass(frozen=True)
class ScoreRequest(JobRequest):
    """Score some candidates (``candidate_ids``) or every candidate of a dataset (``dataset`` id)
    with a version (``version`` id; None: the active one, else the pretrained encoder)."""

    version: int | None = None
    dataset: int | None = None
    candidate_ids: list[int] | None = None


def paraqd_score_start(
    *,
    candidate_ids: Iterable[int] | None = None,
    dataset: Dataset | None = None,
    version: ModelVersion | None = None,
    user: AbstractBaseUser | None = None,
    enqueue: bool = True,
) -> Job:
    """Queue a scoring job (gpu queue) for some candidates, or for every candidate of ``dataset``."""

    if (candidate_ids is None) == (dataset is None):
        raise ValueError("pass either candidate_ids or dataset")
    request = ScoreRequest(
        version=version.pk if version else None, dataset=dataset.pk if dataset is not None else None,
        candidate_ids=None if dataset is not None else sorted(set(int(pk) for pk in candidate_ids or ())))
    params = {k: v for k, v in request.to_params().items() if v is not None or k == "version"}
    job = job_create(kind=Job.Kind.SCORE, params=params, dataset=dataset, created_by=user, queue="gpu")
    if enqueue:
        job_enqueue(job=job, task=tasks.PARAQD_SCORE)
    return job


def paraqd_score_run(*, job: Job, progress: Progress | None = None) -> dict[str, Any]:
    """The scoring job's body: ``{"scored", "version"}``. Scores are upserted, so a rerun after a
    lost worker updates the same rows."""
    request = ScoreRequest.from_params(job.params)
    version = None
    if request.version:
        version = modelversion_get(version_id=request.version)
        if version is None:
            raise ParaQDError(f"model version {request.version} no longer exists")
    if request.dataset is not None:
        ids = list(Candidate.objects.filter(problem__dataset_id=request.dataset).values_list("pk", flat=True))
    else:
        ids = request.candidate_ids or []
    count = paraqd_score_candidates(candidate_ids=ids, version=version, progress=progress)
    return {"scored": count, "version": version.pk if version else None}
