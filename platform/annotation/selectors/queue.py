"""The labelling queue: which item an annotator is offered next.

Skips. A skipped item goes back to the pool: it is offered to the other annotators as before, and
to the one who skipped it once nothing else is open to them (``skipped_open``: after the items
they have not seen, oldest skip first; skipping it again puts it last), as long as it still has a
free slot. So an item one person passes on is never stranded below k for want of them (Label
Studio's "requeue for me", with the others served first).

Order. Within an annotator's share (``progress``), the dataset's ``fill_order`` comes first:
``complete`` (the default) offers the items with the most taken slots first, so an item someone
labelled goes to the next annotator until it has its k labels and agreement arrives from the
first hour; ``breadth`` offers the fewest first (every item gets its first label before any gets
its last). Then the dataset's ``queue_order``.
"""
from __future__ import annotations

from datetime import datetime

from django.db.models import (
    Case,
    Count,
    Exists,
    ExpressionWrapper,
    F,
    IntegerField,
    OuterRef,
    Q,
    QuerySet,
    Value,
    When,
)
from django.db.models.functions import Abs, Mod
from django.db.models.query_utils import FilteredRelation
from django.utils import timezone

from corpus.models import Dataset
from modelhub.judging import decision

from ..models import AnnotationItem, Assignment, Label
from .slots import active_lease, count_or_zero, integer, started_open_items


def decision_threshold() -> float:
    """The threshold the deciding judge reads its score at (``modelhub.judging``)."""
    return current_decision().threshold


def current_decision():
    """The judge that decides and its calibrated threshold (``modelhub.judging.decision``)."""
    return decision()


def active_paraqd_version_id() -> int | None:
    """The deciding judge's version id (the active ParaQD or numeracy-aware judge version)."""
    return current_decision().version_id


def _fill(dataset: Dataset):
    """The leading sort key of the dataset's fill order, over the annotated ``taken`` slots."""
    if dataset.fill_order == Dataset.FillOrder.BREADTH:
        return F("taken").asc()
    return F("taken").desc()


def queue_order(*, qs: QuerySet[AnnotationItem], user, dataset: Dataset, judge=None) -> QuerySet[AnnotationItem]:
    """``qs`` (annotated ``taken``) in the order ``user`` is offered it: the dataset's fill order
    (most taken slots first for ``complete``, fewest for ``breadth``), then its ``queue_order``,
    then id."""
    order = dataset.queue_order
    taken = _fill(dataset)
    if order == Dataset.QueueOrder.DISAGREEMENT:
        said_valid = Count("labels", filter=Q(labels__valid=True), distinct=True)
        said_invalid = Count("labels", filter=Q(labels__valid=False), distinct=True)
        conflict = Case(When(Q(said_valid__gt=0) & Q(said_invalid__gt=0), then=Value(1)), default=Value(0),
                        output_field=IntegerField())
        # A third opinion on a split item is worth more than a first one on a fresh item.
        return (
            qs.annotate(said_valid=said_valid, said_invalid=said_invalid)
            .annotate(conflict=conflict)
            .order_by(F("conflict").desc(), taken, "id")
        )
    if order == Dataset.QueueOrder.RANDOM:
        # A fixed shuffle per annotator: a Weyl sequence (golden-ratio multiplier modulo a prime)
        # spreads consecutive ids evenly; the user's seed shifts it. Portable SQL (no RANDOM(seed)).
        seed = (int(user.pk) * 7919) % 1_000_003
        key = Mod((F("id") + Value(seed)) * Value(2_654_435_761), Value(4_294_967_291))
        return qs.annotate(shuffle=ExpressionWrapper(key, output_field=IntegerField())).order_by(taken, "shuffle", "id")
    judge = judge or current_decision()
    if judge.version_id is None:
        return qs.order_by(taken, "id")
    # The deciding judge's score, joined (LEFT JOIN … ON model_version) rather than looked up per row.
    scored = qs.annotate(
        active_score=FilteredRelation("candidate__scores", condition=Q(candidate__scores__model_version_id=judge.version_id))
    )
    distance = Abs(F(f"active_score__{judge.column}") - Value(judge.threshold))
    # Prodigy's prefer_uncertain: the score nearest the threshold first; unscored items after.
    return scored.annotate(uncertainty=distance).order_by(taken, F("uncertainty").asc(nulls_last=True), "id")


def _fresh_open(*, user, dataset: Dataset, now: datetime) -> QuerySet[AnnotationItem]:
    """``open_items`` restricted to items nobody started: no label, no running lease (and not
    skipped by ``user``). Their ``taken`` is 0."""
    running = Assignment.objects.filter(active_lease(now), item=OuterRef("pk"))
    passed = Assignment.objects.filter(item=OuterRef("pk"), annotator=user,
                                       status__in=[Assignment.Status.DONE, Assignment.Status.SKIPPED])
    return (
        AnnotationItem.objects.filter(dataset=dataset, label_count=0, required_labels__gt=0)
        .exclude(Exists(running))
        .exclude(Exists(passed))
    )


def skipped_open(*, user, dataset: Dataset, now: datetime | None = None,
                 started_only: bool = False) -> QuerySet[Assignment]:
    """``user``'s skips on ``dataset`` whose item still has a free slot (labels plus running leases
    below k), oldest skip first (``updated_at``: a second skip moves the item to the back), annotated
    ``taken``. What ``annotation_next`` hands back to the skipper once ``queue_head`` is empty.
    Read from the assignment index (annotator, status): the cost follows their skips, not the
    dataset. ``started_only``: items someone started (``taken`` ≥ 1), for an annotator past
    their share."""
    now = now or timezone.now()
    leases = count_or_zero(Assignment.objects.filter(active_lease(now), item=OuterRef("item")), "item")
    qs = (
        Assignment.objects.filter(annotator=user, status=Assignment.Status.SKIPPED, item__dataset=dataset)
        .exclude(Exists(Label.objects.filter(item=OuterRef("item"), annotator=user)))
        .annotate(taken=integer(F("item__label_count") + leases))
        .filter(taken__lt=F("item__required_labels"))
    )
    if started_only:
        qs = qs.filter(taken__gt=0)
    return qs.order_by("updated_at", "id")


def _fresh_head(qs: QuerySet[AnnotationItem], *, user, dataset: Dataset, limit: int, judge) -> list[int]:
    """The first ``limit`` fresh items (ids) in the dataset's queue order.

    Uncertainty order reads the deciding judge's scores outward from the threshold, from the score
    index: the nearest ``limit`` at or above it and the nearest ``limit`` below it, merged by
    distance (then id) — the same items, in the same order, as sorting every item by
    ``|score − threshold|``, without reading the ones that cannot make the head. Unscored items
    follow, by id."""
    if limit <= 0:
        return []
    order = dataset.queue_order
    if order == Dataset.QueueOrder.RANDOM:
        seed = (int(user.pk) * 7919) % 1_000_003
        key = Mod((F("id") + Value(seed)) * Value(2_654_435_761), Value(4_294_967_291))
        return list(qs.annotate(shuffle=integer(key)).order_by("shuffle", "id").values_list("pk", flat=True)[:limit])
    if order == Dataset.QueueOrder.DISAGREEMENT or judge.version_id is None:
        return list(qs.order_by("id").values_list("pk", flat=True)[:limit])
    scored = qs.annotate(
        active_score=FilteredRelation("candidate__scores", condition=Q(candidate__scores__model_version_id=judge.version_id))
    )
    column, threshold = f"active_score__{judge.column}", judge.threshold
    above = scored.filter(**{f"{column}__gte": threshold}).order_by(F(column).asc(), "id")
    below = scored.filter(**{f"{column}__lt": threshold}).order_by(F(column).desc(), "id")
    # Two reads, not one UNION of two sliced queries: SQLite (the embedded default) refuses LIMIT in
    # the parts of a compound statement.
    near = [*above.values_list("pk", column)[:limit], *below.values_list("pk", column)[:limit]]
    head = [pk for pk, _ in sorted(near, key=lambda row: (abs(row[1] - threshold), row[0]))[:limit]]
    if len(head) < limit:
        unscored = scored.filter(**{f"{column}__isnull": True}).order_by("id")
        head += list(unscored.values_list("pk", flat=True)[:limit - len(head)])
    return head


def queue_head(*, user, dataset: Dataset, now: datetime | None = None, limit: int,
               started_only: bool = False) -> list[int]:
    """The first ``limit`` items (ids) ``user`` is offered on ``dataset``: ``open_items`` in
    ``queue_order``, read in two parts so that it stays fast on a bank of hundreds of thousands
    of items. Started items (``taken`` ≥ 1) come first in fill order ``complete``, last in
    ``breadth``; fresh ones (``taken`` = 0) fill the rest. ``started_only``: no fresh item (an
    annotator past their share only finishes items others started)."""
    now = now or timezone.now()
    judge = current_decision() if dataset.queue_order == Dataset.QueueOrder.UNCERTAINTY else None
    started = queue_order(qs=started_open_items(user=user, dataset=dataset, now=now), user=user, dataset=dataset,
                          judge=judge)
    started_ids = started.values_list("pk", flat=True)
    if started_only:
        return list(started_ids[:limit])
    fresh = _fresh_open(user=user, dataset=dataset, now=now)
    if dataset.fill_order == Dataset.FillOrder.BREADTH:
        head = _fresh_head(fresh, user=user, dataset=dataset, limit=limit, judge=judge)
        if len(head) < limit:
            head += list(started_ids[:limit - len(head)])
        return head
    head = list(started_ids[:limit])
    return head + _fresh_head(fresh, user=user, dataset=dataset, limit=limit - len(head), judge=judge)
