"""Writes to datasets themselves: create one, change its guidelines, membership and annotation
settings, rename it, delete it. (The imports into a dataset are ``imports``.)"""
from __future__ import annotations

from typing import TYPE_CHECKING, Iterable

from django.core.exceptions import ValidationError
from django.db import transaction

from ..models import Dataset
from ..signals import labels_per_item_changed

if TYPE_CHECKING:
    from django.contrib.auth.models import AbstractBaseUser

_UNSET = object()


def dataset_create(*, name: str, description: str = "", created_by: AbstractBaseUser | None = None) -> Dataset:
    """A new, empty dataset; ValidationError when the name is empty or taken."""
    name = name.strip()
    if not name:
        raise ValidationError({"name": "A dataset needs a name."})
    if len(name) > Dataset._meta.get_field("name").max_length:
        raise ValidationError({"name": "The dataset name is too long (100 characters at most)."})
    if Dataset.objects.filter(name=name).exists():
        raise ValidationError({"name": f"A dataset named {name!r} already exists."})
    return Dataset.objects.create(
        name=name,
        description=description,
        created_by=created_by if getattr(created_by, "is_authenticated", False) else None,
    )


def dataset_get_or_create(*, name: str, created_by: AbstractBaseUser | None = None) -> tuple[Dataset, bool]:
    """The dataset called ``name``, created when missing; returns (dataset, created)."""
    dataset = Dataset.objects.filter(name=name.strip()).first()
    if dataset is not None:
        return dataset, False
    return dataset_create(name=name, created_by=created_by), True


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
    agreement gold labels follow (an item agreed by 2 is no longer agreed when k becomes 3): the
    annotation app does that on ``corpus.signals.labels_per_item_changed``.
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
        labels_per_item_changed.send(sender=Dataset, dataset=dataset)
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
    dataset = dataset_create(name=name, description=description, created_by=created_by)
    return dataset_update(dataset=dataset, guidelines=guidelines, annotators=annotators, **annotation_settings)


def dataset_delete(*, dataset: Dataset) -> None:
    """Delete a dataset with its problems, candidates, items and labels (jobs keep their rows)."""
    dataset.delete()
