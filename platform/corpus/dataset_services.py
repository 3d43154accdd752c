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
    labels_per_item: int | object = _UNSET,
    lease_seconds: int | object = _UNSET,
    queue_order: str | object = _UNSET,
    fill_order: str | object = _UNSET,
) -> Dataset:
    """Change the given fields (the others stay); ``annotators`` replaces the member list.

    A new ``labels_per_item`` (k) applies to the dataset's existing items too, and their
    agreement gold labels follow (an item agreed by 2 is no longer agreed when k becomes 3).
    """
    fields = []
    old_k = dataset.labels_per_item
    for field, value in (
        ("name", name), ("description", description), ("guidelines", guidelines),
        ("labels_per_item", labels_per_item), ("lease_seconds", lease_seconds), ("queue_order", queue_order),
        ("fill_order", fill_order),
    ):
        if value is not _UNSET:
            setattr(dataset, field, value)
            fields.append(field)
    if fields:
        dataset.save(update_fields=fields)
    if annotators is not _UNSET:
        dataset.annotators.set(list(annotators))
    if labels_per_item is not _UNSET and labels_per_item != old_k:
        from annotation.services import dataset_labels_per_item_apply

        dataset_labels_per_item_apply(dataset=dataset)
    return dataset


@transaction.atomic
def dataset_setup(
    *,
    name: str,
    description: str = "",
    guidelines: str = "",
    annotators: Iterable = (),
    created_by=None,
    **annotation_settings,
) -> Dataset:
    """Create a dataset with its guidelines, annotators and annotation settings
    (``labels_per_item``, ``lease_seconds``, ``queue_order``, ``fill_order``) in one step (POST datasets/)."""
    from .services import dataset_create

    dataset = dataset_create(name=name, description=description, created_by=created_by)
    return dataset_update(dataset=dataset, guidelines=guidelines, annotators=annotators, **annotation_settings)


def dataset_delete(*, dataset: Dataset) -> None:
    """Delete a dataset with its problems, candidates, items and labels (jobs keep their rows)."""
    dataset.delete()
