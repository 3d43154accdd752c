"""Reads of model versions (staff only over the API; the services and tasks read them freely)."""
from __future__ import annotations

from django.db.models import QuerySet

from .models import ModelVersion


def modelversion_active(*, kind: str) -> ModelVersion | None:
    """The active version of ``kind``, or None when none was activated yet."""
    return ModelVersion.objects.filter(kind=kind, status=ModelVersion.Status.ACTIVE).first()


def modelversion_list(*, kind: str | None = None) -> QuerySet[ModelVersion]:
    """Every version, newest first, optionally of one ``kind``."""
    qs = ModelVersion.objects.select_related("created_by")
    if kind:
        qs = qs.filter(kind=kind)
    return qs.order_by("-created_at", "-id")


def modelversion_get(*, version_id: int, kind: str | None = None) -> ModelVersion | None:
    """The version with this id (and kind, when given), or None."""
    qs = ModelVersion.objects.filter(pk=version_id)
    if kind:
        qs = qs.filter(kind=kind)
    return qs.first()
