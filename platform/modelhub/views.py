"""The /models/ page (staff): every model version with its metrics, status and promotion gate,
which one is active, which judge decides (with its calibration and reliability curve), whether a
retrain is due or running, and buttons to retrain or recalibrate now."""
from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.shortcuts import redirect, render
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django.views.decorators.http import require_POST, require_safe

from core.errors import UserError
from jobs.views import job_started_message

from .calibration import CalibrationError
from .calibration_jobs import calibrate_start, deciding_judge_refit
from .judging import calibration_of, decision_version, judge_kinds
from .kinds.registry import get_kind
from .kinds.registry import kinds as registered_kinds
from .selectors import (
    model_warnings,
    modelversion_active,
    modelversion_list,
    retrain_job_in_progress,
    retrain_trigger,
)
from .services import RetrainError, model_retrain_start


def _staff_only(request) -> None:
    # A refusal rather than a trip to /login/, which would send a logged-in annotator straight back.
    if not request.user.is_staff:
        raise PermissionDenied("The models page is for staff.")


@require_safe
@login_required
def model_list_page(request):
    _staff_only(request)
    kinds = []
    deciding = decision_version()
    for model_kind in registered_kinds():
        kind, label, retrainable = model_kind.name, model_kind.label, model_kind.retrainable
        versions = list(modelversion_list(kind=kind)[:100])
        for version in versions:
            version.calibration = calibration_of(version)
            version.reliability_svg = reliability_svg(version.calibration, title=f"v{version.pk} reliability")
            version.warnings = model_warnings(version)
        kinds.append({
            "judge": kind in judge_kinds(),
            "deciding": deciding if deciding is not None and deciding.kind == kind else None,
            "deciding_warnings": model_warnings(deciding) if deciding is not None and deciding.kind == kind else [],
            "kind": kind,
            "label": label,
            "versions": versions,
            "active": modelversion_active(kind=kind),
            "retrainable": retrainable,
            "trigger": retrain_trigger(kind=kind) if retrainable else None,
            "running": retrain_job_in_progress(kind=kind) if retrainable else None,
            "refits": _refit_history(versions) if model_kind.refits_from_gold else [],
        })
    return render(request, "models/model_list.html", {"kinds": kinds})


@require_POST
@login_required
def model_retrain_page(request, kind: str):
    _staff_only(request)
    try:
        get_kind(kind)
    except ValueError:
        raise Http404("No such model kind.") from None
    try:
        job = model_retrain_start(kind=kind, user=request.user, force=True)
    except RetrainError as exc:
        messages.error(request, f"Retrain of {kind} not started: {exc}")
        return redirect("model-list")
    messages.success(request, job_started_message(job, f"Retrain of {kind}"))
    return redirect("job-list")


def _refit_history(versions) -> list[dict]:
    """Each refit of a judge from gold labels, oldest first: what each batch of labels bought
    (gold labels learnt from, held-out gold, the refit's and its base's held-out AUC, promoted)."""
    rows = []
    for version in sorted(versions, key=lambda v: v.pk):
        gate = (version.metrics or {}).get("gate")
        if gate:
            rows.append({"version": version.pk, "base": gate.get("base"), "train": gate.get("train"),
                         "heldout": gate.get("heldout"), "auc_refit": gate.get("auc_refit"),
                         "auc_base": gate.get("auc_base"), "promoted": gate.get("promoted"),
                         "reason": gate.get("reason", "")})
    return rows


@require_POST
@login_required
def judge_refit_page(request):
    """Refit the deciding judge on the annotators' gold labels now (seconds; ``deciding_judge_refit``)."""

    _staff_only(request)
    try:
        result = deciding_judge_refit(user=request.user)
    except UserError as exc:
        messages.error(request, f"Judge not refitted: {exc}")
        return redirect("model-list")
    verdict = "promoted" if result["promoted"] else "not promoted"
    messages.success(request, f"Judge v{result['version']} refitted on {result['train']} gold labels, {verdict}: "
                              f"{result['reason']}.")
    return redirect("model-list")


@require_POST
@login_required
def model_calibrate_page(request, kind: str):
    """Recalibrate the active ``kind`` judge on every dataset's validation pairs (a seconds-long job)."""
    _staff_only(request)
    if kind not in judge_kinds():
        raise Http404("Only judges are calibrated.")
    try:
        job = calibrate_start(kind=kind, user=request.user)
    except CalibrationError as exc:
        messages.error(request, f"Calibration of {kind} not started: {exc}")
        return redirect("model-list")
    messages.success(request, job_started_message(job, f"Calibration of {kind}"))
    return redirect("job-list")


_RW, _RH, _PAD = 180, 180, 24


def reliability_svg(calibration: dict | None, *, title: str = "reliability") -> SafeString:
    """A small reliability diagram (mean predicted probability vs observed share of valid pairs per
    bin, with the diagonal of perfect calibration) of a stored calibration; empty without one.
    Every value is a formatted number and the title is escaped."""
    rows = (calibration or {}).get("reliability") or []
    points = []
    for row in rows:
        try:
            points.append((float(row["mean_predicted"]), float(row["observed"]), int(row["n"])))
        except (KeyError, TypeError, ValueError):
            return mark_safe("")
    if not points:
        return mark_safe("")
    span = _RW - 2 * _PAD

    def xy(px: float, py: float) -> tuple[float, float]:
        return _PAD + px * span, _RH - _PAD - py * span

    parts = [f'<svg viewBox="0 0 {_RW} {_RH}" class="reliability" role="img" xmlns="http://www.w3.org/2000/svg">'
             f"<title>{escape(title)}</title>",
             f'<rect x="{_PAD}" y="{_PAD}" width="{span}" height="{span}" fill="none" stroke="#bbb"/>',
             f'<line x1="{_PAD}" y1="{_RH - _PAD}" x2="{_RW - _PAD}" y2="{_PAD}" stroke="#bbb" stroke-dasharray="3 3"/>']
    path = " ".join(f"{x:.1f},{y:.1f}" for x, y in (xy(px, py) for px, py, _ in points))
    parts.append(f'<polyline points="{path}" fill="none" stroke="#2563eb" stroke-width="1.5"/>')
    for px, py, n in points:
        x, y = xy(px, py)
        parts.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" fill="#2563eb"><title>predicted {px:.2f}, '
                     f"observed {py:.2f}, {n} pairs</title></circle>")
    parts.append(f'<text x="{_RW / 2:.0f}" y="{_RH - 4}" font-size="10" text-anchor="middle">predicted</text>'
                 f'<text x="10" y="{_RH / 2:.0f}" font-size="10" text-anchor="middle" '
                 f'transform="rotate(-90 10 {_RH / 2:.0f})">observed</text></svg>')
    return mark_safe("".join(parts))
