"""Keeping the deciding judge calibrated: the first judge of a fresh installation, the calibrate
job, and beat's check that refits the numeracy-aware judge and recalibrates every active judge when
new human gold labels arrived (``modelhub.calibration`` fits and stores a calibration)."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from django.conf import settings

from core.errors import UserError
from jobs import tasks
from jobs.models import Job
from jobs.requests import JobRequest
from jobs.services import job_create, job_enqueue

from .calibration import METHODS, CalibrationError, version_calibrate
from .judging import FALLBACK_KIND, calibration_of, decision_version, judge_kinds
from .kinds.registry import get_kind
from .selectors import human_gold_labels, modelversion_active

if TYPE_CHECKING:
    from django.contrib.auth.models import AbstractBaseUser

    from .models import ModelVersion

__all__ = ["calibrate_run", "calibrate_start", "calibration_due", "judge_bootstrap", "pretrained_judge",
           "deciding_judge_refit", "recalibrate_check", "refit_due"]


def pretrained_judge(*, user: AbstractBaseUser | None = None, activate: bool = True) -> ModelVersion:
    """The judge a fresh installation has before anything is trained: the fallback kind's reference
    version (the packaged base encoder as a ParaQD version), registered once and activated when no
    version of that kind is active."""
    return get_kind(FALLBACK_KIND).reference_version(user=user, activate=activate)


def judge_bootstrap(*, user: AbstractBaseUser | None = None, method: str = "platt") -> dict[str, Any]:
    """An active, calibrated judge from the first minute: the pretrained ParaQD version registered
    and activated when none is active, then calibrated on the validation pairs there are (an
    uncalibrated judge stays at 0.5 when there are none yet). Returns what was done."""
    version = decision_version() or pretrained_judge(user=user)
    result: dict[str, Any] = {"version": version.pk, "kind": version.kind, "calibrated": False}
    if calibration_of(version) is None:
        try:
            record = version_calibrate(version=version, method=method)
        except CalibrationError as exc:
            result["reason"] = str(exc)
        else:
            result.update(calibrated=True, threshold=record["threshold"], auc=record["auc"], n=record["n"])
    else:
        result["calibrated"] = True
    return result


# --- jobs -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CalibrateRequest(JobRequest):
    """Recalibrate the active judge of kind ``model`` on the validation pairs of ``datasets`` (every
    dataset when empty) with ``method`` (platt or isotonic)."""

    model: str = FALLBACK_KIND
    datasets: list[str] = field(default_factory=list)
    method: str = "platt"


def calibrate_start(
    *, kind: str = FALLBACK_KIND, dataset_names: Sequence[str] | None = None, method: str = "platt",
    user: AbstractBaseUser | None = None, enqueue: bool = True,
) -> Job:
    """Queue a recalibration of the active ``kind`` version (cpu queue: seconds of work)."""

    if method not in METHODS:
        raise CalibrationError(f"calibration method must be one of {', '.join(METHODS)}, not {method!r}")
    if kind not in judge_kinds():
        raise CalibrationError(f"only judges are calibrated ({', '.join(judge_kinds())}), not {kind!r}")
    if modelversion_active(kind=kind) is None and kind != FALLBACK_KIND:
        raise CalibrationError(f"no active {kind} version to calibrate")
    request = CalibrateRequest(model=kind, datasets=list(dataset_names or []), method=method)
    job = job_create(kind=Job.Kind.CALIBRATE, params=request.to_params(), created_by=user, queue="cpu")
    if enqueue:
        job_enqueue(job=job, task=tasks.CALIBRATE)
    return job


def calibrate_run(*, job: Job, progress=None) -> dict[str, Any]:
    request = CalibrateRequest.from_params(job.params)
    kind = request.model or FALLBACK_KIND
    version = modelversion_active(kind=kind)
    if version is None and kind == FALLBACK_KIND:
        version = pretrained_judge(user=job.created_by)
    if version is None:
        raise CalibrationError(f"no active {kind} version to calibrate")
    return version_calibrate(version=version, dataset_names=request.datasets or None,
                             method=request.method or "platt", progress=progress)


def calibration_due(*, version: ModelVersion) -> bool:
    """Whether human gold labels arrived since ``version`` was last calibrated (or it never was)."""
    record = calibration_of(version)
    if record is None:
        return True
    fitted = record.get("fitted_at")
    since = None
    if fitted:
        since = datetime.fromisoformat(fitted)
    golds = human_gold_labels()
    return golds.filter(updated_at__gt=since).exists() if since else golds.exists()


def refit_due(*, version: ModelVersion) -> bool:
    """Whether ``PARALAB_JUDGE_REFIT_EVERY`` human gold labels arrived since ``version`` (a judge)
    was made: beat then refits it on the gold (``modelhub.kinds.judge.refit``)."""
    every = settings.PARALAB_JUDGE_REFIT_EVERY
    if not every or not get_kind(version.kind).refits_from_gold:
        return False
    return human_gold_labels().filter(updated_at__gt=version.created_at).count() >= every


def recalibrate_check(*, user: AbstractBaseUser | None = None) -> dict[str, Any]:
    """Beat: refit the deciding numeracy-aware judge when enough new human gold labels arrived
    (``refit_due``; promoted only when the held-out gold allows), then recalibrate every active
    judge whose calibration predates the newest human gold label."""
    done: dict[str, Any] = {}
    deciding = decision_version()
    if deciding is not None and refit_due(version=deciding):
        try:
            done["refit"] = get_kind(deciding.kind).refit_from_gold(version=deciding, user=user)
        except UserError as exc:
            done["refit"] = {"version": deciding.pk, "skipped": str(exc)}
    for kind in judge_kinds():
        version = modelversion_active(kind=kind)
        if version is None or not calibration_due(version=version):
            continue
        try:
            record = version_calibrate(version=version)
        except CalibrationError as exc:
            done[kind] = {"version": version.pk, "skipped": str(exc)}
        else:
            done[kind] = {"version": version.pk, "threshold": record["threshold"], "auc": record["auc"]}
    return done


class NoRefittableJudge(UserError):
    status_code = 409


def deciding_judge_refit(*, user: AbstractBaseUser | None = None) -> dict[str, Any]:
    """Refit the deciding judge on the annotators' gold labels now (the staff button and
    ``POST models/judge/refit/``): ``{"version", "base", "promoted", "reason", "train", "heldout", …}``."""
    deciding = decision_version()
    if deciding is None or not get_kind(deciding.kind).refits_from_gold:
        raise NoRefittableJudge("no numeracy-aware judge decides: train one (train_judge) or migrate to install "
                                "the shipped one")
    return get_kind(deciding.kind).refit_from_gold(version=deciding, user=user)
