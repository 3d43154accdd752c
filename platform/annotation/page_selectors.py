"""Reads behind the annotation pages (/annotate/, the "my labels" history, /adjudicate/).

Annotators reach only the datasets they are members of and only their own labels; a dataset
outside that scope is not found (404), exactly like one that does not exist. Staff reach every
dataset from the adjudication and dashboard pages, but /annotate/ lists the datasets a user
labels, staff or not (staff are not annotators unless added as members).
"""
from __future__ import annotations

from dataclasses import dataclass

from django.db.models import QuerySet

from corpus.models import Dataset

from .selectors.progress import annotation_progress


@dataclass(frozen=True)
class QueueEntry:
    dataset: Dataset
    done: int
    total: int

    @property
    def remaining(self) -> int:
        return max(0, self.total - self.done)

    @property
    def fraction(self) -> float:
        return self.done / self.total if self.total else 0.0


def member_datasets(*, user) -> QuerySet[Dataset]:
    """The datasets ``user`` labels (a member of ``Dataset.annotators``), by name."""
    if not (user and user.is_authenticated):
        return Dataset.objects.none()
    return Dataset.objects.filter(annotators=user).order_by("name")


def member_dataset_get(*, user, dataset_id: int) -> Dataset | None:
    """A dataset ``user`` labels, or None (whether or not it exists)."""
    return member_datasets(user=user).filter(pk=dataset_id).first()


def queue_entries(*, user) -> list[QueueEntry]:
    """Each dataset ``user`` labels with their progress (done / assigned)."""
    entries = []
    for dataset in member_datasets(user=user):
        progress = annotation_progress(user=user, dataset=dataset)
        entries.append(QueueEntry(dataset=dataset, done=int(progress["done"]), total=int(progress["total"])))
    return entries


def staff_dataset_get(*, user, dataset_id: int) -> Dataset | None:
    """Any dataset, for staff; None for everyone else."""
    if not (user and user.is_authenticated and user.is_staff):
        return None
    return Dataset.objects.filter(pk=dataset_id).first()
