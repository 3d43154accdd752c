"""The /models/ page (staff): every model version with its metrics, status and promotion gate,
which one is active, whether a retrain is due or running, and a button to retrain now."""
from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST, require_safe

from .kinds import get_kind, kinds as registered_kinds
from .selectors import modelversion_active, modelversion_list, retrain_job_in_progress, retrain_trigger
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
    for model_kind in registered_kinds():
        kind, label, retrainable = model_kind.name, model_kind.label, model_kind.retrainable
        kinds.append({
            "kind": kind,
            "label": label,
            "versions": list(modelversion_list(kind=kind)[:100]),
            "active": modelversion_active(kind=kind),
            "retrainable": retrainable,
            "trigger": retrain_trigger(kind=kind) if retrainable else None,
            "running": retrain_job_in_progress(kind=kind) if retrainable else None,
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
    messages.success(request, f"Retrain of {kind} started as job {job.pk}.")
    return redirect("job-list")
