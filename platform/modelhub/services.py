"""Writes to model versions: register a trained version, activate it, record its metrics.

A version starts as a ``candidate``. Activating one makes it the single ``active`` version of its
kind and retires the previous one, in one transaction: the database constraint
``modelversion_one_active_per_kind`` would refuse a second active row anyway, so the old one is
retired first and the rows of that kind are locked while it happens.
"""
from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from django.db import transaction
from django.utils import timezone

from .models import ModelVersion

if TYPE_CHECKING:
    from django.contrib.auth.models import AbstractBaseUser

    from jobs.models import Job


def modelversion_create(
    *,
    kind: str,
    base_model: str,
    artifact_path: str = "",
    training_data: Mapping[str, Any] | None = None,
    params: Mapping[str, Any] | None = None,
    metrics: Mapping[str, Any] | None = None,
    job: Job | None = None,
    created_by: AbstractBaseUser | None = None,
    name: str = "",
) -> ModelVersion:
    """A new ``candidate`` version of ``kind`` (``ModelVersion.Kind``); ValueError for an unknown kind."""
    if kind not in ModelVersion.Kind.values:
        raise ValueError(f"unknown model kind {kind!r}; expected one of {', '.join(ModelVersion.Kind.values)}")
    return ModelVersion.objects.create(
        kind=kind,
        name=name,
        base_model=base_model,
        artifact_path=str(artifact_path),
        training_data=dict(training_data or {}),
        params=dict(params or {}),
        metrics=dict(metrics or {}),
        status=ModelVersion.Status.CANDIDATE,
        job=job,
        created_by=created_by if getattr(created_by, "is_authenticated", False) else None,
    )


def modelversion_activate(*, version: ModelVersion) -> ModelVersion:
    """Make ``version`` the active one of its kind; the previously active version becomes retired.

    Activating the already active version changes nothing. Returns the refreshed version.
    """
    with transaction.atomic():
        # Lock every version of the kind: two concurrent activations serialise here.
        list(ModelVersion.objects.select_for_update().filter(kind=version.kind).values_list("pk", flat=True))
        current = ModelVersion.objects.get(pk=version.pk)
        if current.status == ModelVersion.Status.ACTIVE:
            version.refresh_from_db()
            return version
        ModelVersion.objects.filter(kind=version.kind, status=ModelVersion.Status.ACTIVE).update(
            status=ModelVersion.Status.RETIRED
        )
        ModelVersion.objects.filter(pk=version.pk).update(
            status=ModelVersion.Status.ACTIVE, activated_at=timezone.now()
        )
    version.refresh_from_db()
    return version


def modelversion_set_metrics(
    *, version: ModelVersion, metrics: Mapping[str, Any], path: tuple[str, ...] = ()
) -> ModelVersion:
    """Merge ``metrics`` into ``version.metrics`` at ``path`` (e.g. ``("eval", "aqua-test")``).

    Keys already there and not in ``metrics`` are kept; the row is locked while it is updated,
    so two evaluations finishing together do not lose each other's results.
    """
    with transaction.atomic():
        row = ModelVersion.objects.select_for_update().get(pk=version.pk)
        merged = copy.deepcopy(row.metrics) if isinstance(row.metrics, dict) else {}
        node = merged
        for key in path:
            child = node.get(key)
            if not isinstance(child, dict):
                child = node[key] = {}
            node = child
        node.update(copy.deepcopy(dict(metrics)))
        ModelVersion.objects.filter(pk=version.pk).update(metrics=merged)
    version.metrics = merged
    return version
