"""Slots of an item, as query expressions: what the queue and the progress reads count.

An item needs ``required_labels`` (k) distinct annotators. A slot is *taken* by a label or by a
lease still running (``Assignment.status == leased`` and ``leased_until`` in the future); a lease
that ran out, or a skip, frees it. An annotator is never offered an item they labelled or hold,
so no one labels an item twice.
"""
from __future__ import annotations

from datetime import datetime

from django.db.models import (
    Count,
    Exists,
    ExpressionWrapper,
    F,
    IntegerField,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
    Value,
)
from django.db.models.functions import Coalesce
from django.utils import timezone

from corpus.models import Dataset

from ..models import AnnotationItem, Assignment, Label


def count_or_zero(qs: QuerySet, group: str):
    """A correlated COUNT subquery, 0 when nothing matches."""
    counted = qs.order_by().values(group).annotate(n=Count("pk")).values("n")
    return Coalesce(Subquery(counted, output_field=IntegerField()), Value(0))


def active_lease(now: datetime) -> Q:
    """An assignment that is a lease still running at ``now``."""
    return Q(status=Assignment.Status.LEASED, leased_until__gt=now)


def integer(expression):
    """``expression`` as an integer column."""
    return ExpressionWrapper(expression, output_field=IntegerField())


def taken_slots(now: datetime):
    """Expression: labels plus running leases of an item (``OuterRef('pk')`` is the item)."""
    labels = count_or_zero(Label.objects.filter(item=OuterRef("pk")), "item")
    leases = count_or_zero(Assignment.objects.filter(active_lease(now), item=OuterRef("pk")), "item")
    return labels + leases


def held_by(user, now: datetime) -> Q:
    """Items ``user`` already labelled, skipped or holds a running lease on."""
    mine = Assignment.objects.filter(item=OuterRef("pk"), annotator=user).filter(
        Q(status__in=[Assignment.Status.DONE, Assignment.Status.SKIPPED]) | active_lease(now)
    )
    return Q(Exists(Label.objects.filter(item=OuterRef("pk"), annotator=user))) | Q(Exists(mine))


def _taken_aggregate(now: datetime):
    """Aggregate over an item's labels and running leases (LEFT JOINs + GROUP BY, no per-row subplans)."""
    leases = Count("assignments", filter=Q(assignments__status=Assignment.Status.LEASED,
                                           assignments__leased_until__gt=now), distinct=True)
    return Count("labels", distinct=True) + leases


def open_items(*, user, dataset: Dataset, now: datetime | None = None) -> QuerySet[AnnotationItem]:
    """Items of ``dataset`` with a free slot that ``user`` may still take, annotated ``taken``.

    Grouped (one row per item): fine to order and slice, not to lock — ``annotation_next`` locks
    the chosen rows in a second query.
    """
    now = now or timezone.now()
    return (
        AnnotationItem.objects.filter(dataset=dataset)
        .exclude(held_by(user, now))
        .annotate(taken=_taken_aggregate(now))
        .filter(taken__lt=F("required_labels"))
    )


def started_open_items(*, user, dataset: Dataset, now: datetime) -> QuerySet[AnnotationItem]:
    """``open_items`` restricted to items someone started (a label or a running lease): found by
    the partial index on unfinished labelled items and the one on running leases, so the cost
    follows the items in progress, not the dataset's size."""
    leased = list(
        Assignment.objects.filter(active_lease(now), item__dataset=dataset).values_list("item_id", flat=True).distinct()
    )
    started = Q(label_count__gt=0, label_count__lt=F("required_labels"))
    if leased:
        started |= Q(pk__in=leased)
    leases = count_or_zero(Assignment.objects.filter(active_lease(now), item=OuterRef("pk")), "item")
    return (
        AnnotationItem.objects.filter(dataset=dataset)
        .filter(started)
        .exclude(held_by(user, now))
        .annotate(taken=integer(F("label_count") + leases))
        .filter(taken__lt=F("required_labels"))
    )
