"""Writes to datasets that the REST API needs beyond ``services.dataset_create``: membership,
guidelines, renaming and deletion. (Kept apart from ``services.py``, which holds the imports.)"""
from __future__ import annotations

from typing import Iterable

from django.db import transaction

from .models import Dataset

_UNSET = object()


@transaction.atomic
def dataset_update(
    *,
    dataset: Dataset,
    name: str | object = _UNSET,
    description: str | object = _UNSET,
    guidelines: str | object = _UNSET,
    annotators: Iterable | object = _UNSET,
) -> Dataset:
    """Change the given fields (the others stay); ``annotators`` replaces the member list."""
    fields = []
    for field, value in (("name", name), ("description", description), ("guidelines", guidelines)):
        if value is not _UNSET:
            setattr(dataset, field, value)
            fields.append(field)
    if fields:
        dataset.save(update_fields=fields)
    if annotators is not _UNSET:
        dataset.annotators.set(list(annotators))
    return dataset


@transaction.atomic
def dataset_setup(
    *,
    name: str,
    description: str = "",
    guidelines: str = "",
    annotators: Iterable = (),
    created_by=None,
) -> Dataset:
    """Create a dataset with its guidelines and annotators in one step (POST datasets/)."""
    from .services import dataset_create

    dataset = dataset_create(name=name, description=description, created_by=created_by)
    return dataset_update(dataset=dataset, guidelines=guidelines, annotators=annotators)


def dataset_delete(*, dataset: Dataset) -> None:
    """Delete a dataset with its problems, candidates, items and labels (jobs keep their rows)."""
    dataset.delete()
