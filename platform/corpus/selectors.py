"""Reads of datasets and problems, scoped by the requesting user's role.

Staff (``user.is_staff``) see every dataset; anyone else only the datasets they annotate
(``dataset.annotators``). Detail lookups go through the same scoped querysets, so a dataset an
annotator is not a member of is simply not found (404), never "forbidden": its existence does
not leak.
"""
from __future__ import annotations

from django.db.models import Count, OuterRef, QuerySet, Subquery, Value
from django.db.models.functions import Coalesce

from core.errors import UserError

from .models import Dataset, Problem


def _problem_count():
    counts = (
        Problem.objects.filter(dataset=OuterRef("pk"))
        .order_by()
        .values("dataset")
        .annotate(n=Count("pk"))
        .values("n")
    )
    return Coalesce(Subquery(counts), Value(0))


def dataset_list(*, user) -> QuerySet[Dataset]:
    """The datasets ``user`` may see, each annotated with ``problem_count``."""
    if not (user and user.is_authenticated):
        return Dataset.objects.none()
    qs = Dataset.objects.all()
    if not user.is_staff:
        qs = qs.filter(pk__in=user.annotated_datasets.values("pk"))
    return qs.annotate(problem_count=_problem_count()).select_related("created_by")


def dataset_get(*, user, dataset_id: int) -> Dataset | None:
    """The dataset with this id if ``user`` may see it, else None (whether or not it exists)."""
    return dataset_list(user=user).filter(pk=dataset_id).first()


def problem_list(*, dataset: Dataset) -> QuerySet[Problem]:
    """The problems of a dataset already scoped by ``dataset_get``, in id order."""
    return Problem.objects.filter(dataset=dataset).order_by("id")


def datasets_found(names) -> dict[str, Dataset]:
    """The datasets among ``names``, by name (a name with a NUL byte names none: PostgreSQL refuses
    it in a query)."""
    return {d.name: d for d in Dataset.objects.filter(name__in=[n for n in names if "\x00" not in n])}


class UnknownDataset(UserError):
    """A dataset name that names no dataset; the message is for the user."""


def datasets_by_name(names) -> list[Dataset]:
    """The datasets called ``names`` (in that order, without repeats); UnknownDataset naming any
    missing one.

    >>> datasets_by_name([])
    Traceback (most recent call last):
    ...
    corpus.selectors.UnknownDataset: --dataset: name at least one dataset
    """
    wanted = list(dict.fromkeys(n.strip() for n in names if n and n.strip()))
    if not wanted:
        raise UnknownDataset("--dataset: name at least one dataset")
    found = datasets_found(wanted)
    missing = [n for n in wanted if n not in found]
    if missing:
        raise UnknownDataset(f"--dataset: no dataset named {', '.join(repr(n) for n in missing)}")
    return [found[n] for n in wanted]
