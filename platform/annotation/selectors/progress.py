"""Reads of the annotation loop: the queue, progress, agreement and disagreements.

Slots. An item needs ``required_labels`` (k) distinct annotators. A slot is *taken* by a label or
by a lease still running (``Assignment.status == leased`` and ``leased_until`` in the future); a
lease that ran out, or a skip, frees it. An annotator is never offered an item they labelled or
hold, so no one labels an item twice.

Skips. A skipped item goes back to the pool: it is offered to the other annotators as before, and
to the one who skipped it once nothing else is open to them (``skipped_open``: after the items
they have not seen, oldest skip first; skipping it again puts it last), as long as it still has a
free slot. So an item one person passes on is never stranded below k for want of them (Label
Studio's "requeue for me", with the others served first).

Balance. Each annotator's share of a dataset is ``ceil(Σ k / members)`` items (capped at the
number of items): with two annotators and k = 2 both label everything; with four, each labels
half. The share follows the member list, so removing an absent annotator hands their part to the
others. Within the share, the dataset's ``fill_order`` comes first: ``complete`` (the default)
offers the items with the most taken slots first, so an item someone labelled goes to the next
annotator until it has its k labels and agreement arrives from the first hour; ``breadth`` offers
the fewest first (every item gets its first label before any gets its last). Then the dataset's
``queue_order``.

Annotator-facing reads take the user and only ever return their own labels; the agreement and
disagreement reads are for staff (the API checks the role).
"""
from __future__ import annotations

import math
import time
from collections import defaultdict
from datetime import datetime
from itertools import combinations
from typing import Any

from django.contrib.auth import get_user_model
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
    Subquery,
    Sum,
    Value,
    When,
)
from django.db.models.query_utils import FilteredRelation
from django.db.models.functions import Abs, Coalesce, Mod
from django.utils import timezone

from corpus.models import Dataset
from ml.agreement import cohen_kappa, fleiss_kappa, observed_agreement, weighted_kappa

from .models import AnnotationItem, Assignment, GoldLabel, Label, LabelHistory

RATINGS = ("solvability", "diversity", "fluency")


def paraqd_threshold() -> float:
    """The threshold the deciding judge reads its score at (``modelhub.judging``)."""
    return current_decision().threshold


def current_decision():
    """The judge that decides and its calibrated threshold (``modelhub.judging.decision``)."""
    from modelhub.judging import decision

    return decision()


def active_paraqd_version_id() -> int | None:
    """The deciding judge's version id (the active ParaQD or numeracy-aware judge version)."""
    return current_decision().version_id


def disagreeing_gold(qs: QuerySet[GoldLabel], *, version_id: int, threshold: float, column: str = "paraqd"):
    from modelhub.disagreements import disagreeing_gold as rule

    return rule(qs, version_id=version_id, threshold=threshold, column=column)


# --- slots ----------------------------------------------------------------------------------------


def _count(qs: QuerySet, group: str):
    """A correlated COUNT subquery, 0 when nothing matches."""
    counted = qs.order_by().values(group).annotate(n=Count("pk")).values("n")
    return Coalesce(Subquery(counted, output_field=IntegerField()), Value(0))


def _active_lease(now: datetime) -> Q:
    return Q(status=Assignment.Status.LEASED, leased_until__gt=now)


def taken_slots(now: datetime):
    """Expression: labels plus running leases of an item (``OuterRef('pk')`` is the item)."""
    labels = _count(Label.objects.filter(item=OuterRef("pk")), "item")
    leases = _count(Assignment.objects.filter(_active_lease(now), item=OuterRef("pk")), "item")
    return labels + leases


def _held_by(user, now: datetime) -> Q:
    """Items ``user`` already labelled, skipped or holds a running lease on."""
    mine = Assignment.objects.filter(item=OuterRef("pk"), annotator=user).filter(
        Q(status__in=[Assignment.Status.DONE, Assignment.Status.SKIPPED]) | _active_lease(now)
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
        .exclude(_held_by(user, now))
        .annotate(taken=_taken_aggregate(now))
        .filter(taken__lt=F("required_labels"))
    )


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


def _int(expression):
    return ExpressionWrapper(expression, output_field=IntegerField())


def _started_open(*, user, dataset: Dataset, now: datetime) -> QuerySet[AnnotationItem]:
    """``open_items`` restricted to items someone started (a label or a running lease): found by
    the partial index on unfinished labelled items and the one on running leases, so the cost
    follows the items in progress, not the dataset's size."""
    leased = list(
        Assignment.objects.filter(_active_lease(now), item__dataset=dataset).values_list("item_id", flat=True).distinct()
    )
    started = Q(label_count__gt=0, label_count__lt=F("required_labels"))
    if leased:
        started |= Q(pk__in=leased)
    leases = _count(Assignment.objects.filter(_active_lease(now), item=OuterRef("pk")), "item")
    return (
        AnnotationItem.objects.filter(dataset=dataset)
        .filter(started)
        .exclude(_held_by(user, now))
        .annotate(taken=_int(F("label_count") + leases))
        .filter(taken__lt=F("required_labels"))
    )


def _fresh_open(*, user, dataset: Dataset, now: datetime) -> QuerySet[AnnotationItem]:
    """``open_items`` restricted to items nobody started: no label, no running lease (and not
    skipped by ``user``). Their ``taken`` is 0."""
    running = Assignment.objects.filter(_active_lease(now), item=OuterRef("pk"))
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
    leases = _count(Assignment.objects.filter(_active_lease(now), item=OuterRef("item")), "item")
    qs = (
        Assignment.objects.filter(annotator=user, status=Assignment.Status.SKIPPED, item__dataset=dataset)
        .exclude(Exists(Label.objects.filter(item=OuterRef("item"), annotator=user)))
        .annotate(taken=_int(F("item__label_count") + leases))
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
        return list(qs.annotate(shuffle=_int(key)).order_by("shuffle", "id").values_list("pk", flat=True)[:limit])
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
    started = queue_order(qs=_started_open(user=user, dataset=dataset, now=now), user=user, dataset=dataset,
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


# --- progress -------------------------------------------------------------------------------------


def annotator_share(*, n_items: int, slots: int, members: int) -> int:
    """Items one annotator is asked to label: ``ceil(slots / members)``, at most every item.

    >>> annotator_share(n_items=10, slots=20, members=4)
    5
    """
    if members <= 0:
        return n_items
    return min(n_items, math.ceil(slots / members))


def _share(dataset: Dataset) -> int:
    stats = AnnotationItem.objects.filter(dataset=dataset).aggregate(
        n=Count("id"), slots=Coalesce(Sum("required_labels"), 0)
    )
    return annotator_share(n_items=stats["n"], slots=stats["slots"], members=dataset.annotators.count())


def _done(user, dataset: Dataset) -> int:
    return Label.objects.filter(annotator=user, item__dataset=dataset).count()


def _held(user, dataset_ref, now: datetime) -> QuerySet[Assignment]:
    """The caller's running leases on items of the dataset that they have not labelled."""
    return Assignment.objects.filter(_active_lease(now), annotator=user, item__dataset=dataset_ref).exclude(
        Exists(Label.objects.filter(item=OuterRef("item"), annotator=user))
    )


def open_item_count(*, user, dataset: Dataset, now: datetime, limit: int) -> int:
    """How many items ``open_items`` holds for ``user``, counting no further than ``limit``.

    Started items are few (the partial index); fresh ones are counted on the index of items with
    no label, up to ``limit`` plus the fresh items ``user`` may not take (running leases, their
    own skips: few, from the assignment indexes), which are then taken off. So a bank of 500,000
    items costs an index range of at most ``limit`` entries, and no per-item subquery."""
    if limit <= 0:
        return 0
    started = _started_open(user=user, dataset=dataset, now=now).order_by()[:limit].count()
    if started >= limit:
        return limit
    excluded = (
        Assignment.objects.filter(item__dataset=dataset, item__label_count=0, item__required_labels__gt=0)
        .filter(_active_lease(now) | Q(annotator=user, status__in=[Assignment.Status.DONE, Assignment.Status.SKIPPED]))
        .values("item").distinct().count()
    )
    fresh = (
        AnnotationItem.objects.filter(dataset=dataset, label_count=0, required_labels__gt=0)
        .order_by()[:limit - started + excluded].count()
    ) - excluded
    return min(limit, started + max(0, fresh))


# A large dataset's item count and slots (Σ k), per process: counting 500,000 items on every
# `next` and `label` costs more than the rest of the request. Kept SIZES_CACHE_S seconds and only
# for datasets of SIZES_CACHE_MIN_ITEMS items or more (small ones are counted every time, exactly);
# forgotten in this process when items are added or removed (annotation.signals) or k changes.
# Another process may use the old sizes for up to SIZES_CACHE_S: the share it balances by is then
# that much out of date, which changes whom an item goes to, never whether it gets its k labels.
SIZES_CACHE_S = 30.0
SIZES_CACHE_MIN_ITEMS = 10_000
_sizes: dict[int, tuple[float, int, int, int]] = {}  # dataset id → (expires, k, n_items, slots)


def dataset_sizes_forget(dataset_id: int) -> None:
    _sizes.pop(dataset_id, None)
    for key in [key for key in _open_counts if key[0] == dataset_id]:
        _open_counts.pop(key, None)


def _cached_sizes(dataset: Dataset) -> tuple[int, int] | None:
    hit = _sizes.get(dataset.pk)
    if hit is None or hit[0] < time.monotonic() or hit[1] != dataset.labels_per_item:
        return None
    return hit[2], hit[3]


def annotator_standing(*, user, dataset: Dataset, now: datetime | None = None) -> dict[str, int]:
    """``{"done", "share", "held"}`` of ``user`` on ``dataset`` in one query: labels given, the
    share they are asked for (``annotator_share``) and running leases on items they have not
    labelled yet."""
    now = now or timezone.now()
    members = Dataset.annotators.through.objects.filter(dataset=OuterRef("pk"))
    sizes = _cached_sizes(dataset)
    counts = {}
    if sizes is None:
        items = AnnotationItem.objects.filter(dataset=OuterRef("pk")).order_by().values("dataset")
        counts = {
            "n_items": _count(AnnotationItem.objects.filter(dataset=OuterRef("pk")), "dataset"),
            "slots": Coalesce(Subquery(items.annotate(s=Sum("required_labels")).values("s"),
                                       output_field=IntegerField()), Value(0)),
        }
    row = (
        Dataset.objects.filter(pk=dataset.pk)
        .annotate(
            **counts,
            members=_count(members, "dataset"),
            done=_count(Label.objects.filter(annotator=user, item__dataset=OuterRef("pk")), "item__dataset"),
            held=_count(_held(user, OuterRef("pk"), now), "item__dataset"),
        )
        .values(*counts, "members", "done", "held")
        .first()
    ) or {"n_items": 0, "slots": 0, "members": 0, "done": 0, "held": 0}
    if sizes is None:
        sizes = row["n_items"], row["slots"]
        if sizes[0] >= SIZES_CACHE_MIN_ITEMS:
            _sizes[dataset.pk] = (time.monotonic() + SIZES_CACHE_S, dataset.labels_per_item, *sizes)
    share = annotator_share(n_items=sizes[0], slots=sizes[1], members=row["members"])
    return {"done": row["done"], "share": share, "held": row["held"]}


def progress_from(*, user, dataset: Dataset, done: int, share: int, held: int, now: datetime,
                  open_seen: int = 0, open_all_seen: bool = False) -> dict[str, int]:
    """``{"done", "total"}`` from numbers the caller already has: ``done + min(share − done,
    held + open items)``. ``open_seen``: open items the caller already knows of (say, the queue it
    just read); with ``open_all_seen`` they are all there are. The open items are counted in the
    database only when they matter and are not known."""
    if done >= share:  # past the share (fill order complete): what they hold is still theirs to do
        return {"done": done, "total": done + held}
    still = share - done
    have = held + open_seen
    if have < still and not open_all_seen:
        have = held + _open_count(user=user, dataset=dataset, now=now, limit=still - held)
    if have < still:  # their skips that come back to them once the rest is done (few: one index read)
        have += skipped_open(user=user, dataset=dataset, now=now).count()
    return {"done": done, "total": done + min(still, have)}


# Open-item counts for progress bars on large datasets (those whose sizes are cached, see
# SIZES_CACHE_MIN_ITEMS), per process and person for SIZES_CACHE_S: on a bank of 500,000 items a
# person's open items (thousands, counted up to their share) hardly move between two labels, and
# counting them cost a fifth of each `next` and `label` (benchmarks/scale.py). Small datasets are
# counted every time.
_open_counts: dict[tuple[int, int], tuple[float, int, int]] = {}  # (dataset, user) → (expires, count, limit)


def _open_count(*, user, dataset: Dataset, now: datetime, limit: int) -> int:
    if _cached_sizes(dataset) is None:
        return open_item_count(user=user, dataset=dataset, now=now, limit=limit)
    key = (dataset.pk, user.pk)
    hit = _open_counts.get(key)
    if hit is not None and hit[0] >= time.monotonic() and (hit[1] < hit[2] or limit <= hit[2]):
        return min(limit, hit[1])  # an exact count, or a capped one that covers this limit
    count = open_item_count(user=user, dataset=dataset, now=now, limit=limit)
    _open_counts[key] = (time.monotonic() + SIZES_CACHE_S, count, limit)
    return count


def _progress(*, user, dataset: Dataset, share: int, now: datetime) -> dict[str, int]:
    done = _done(user, dataset)
    held = _held(user, dataset, now).count()
    if done >= share:
        return {"done": done, "total": done + held}
    return progress_from(user=user, dataset=dataset, done=done, share=share, held=held, now=now)


def annotation_progress(*, user, dataset: Dataset, now: datetime | None = None) -> dict[str, int]:
    """``{"done", "total"}`` for ``user`` on ``dataset``: labels given, and labels given plus the
    items still waiting for them within their share (``done == total`` when nothing is left).
    One query, two when the open items have to be counted."""
    now = now or timezone.now()
    return progress_from(user=user, dataset=dataset, now=now, **annotator_standing(user=user, dataset=dataset, now=now))


def dataset_progress(*, dataset: Dataset) -> list[dict[str, Any]]:
    """Progress of every member of ``dataset`` and of anyone else who labelled it, by username:
    the same numbers as ``annotation_progress`` per person, computed for all of them at once in a
    fixed number of grouped queries (200 annotators on 500,000 items would be 1,200 queries)."""
    now = timezone.now()
    share = _share(dataset)
    User = get_user_model()
    users = list(User.objects.filter(
        Q(pk__in=dataset.annotators.values("pk")) | Q(pk__in=Label.objects.filter(item__dataset=dataset).values("annotator"))
    ).order_by("username").values_list("pk", "username"))
    if not users:
        return []
    done = dict(Label.objects.filter(item__dataset=dataset).order_by().values("annotator")
                .annotate(n=Count("pk")).values_list("annotator", "n"))
    # Running leases on items the holder has not labelled (``_held``), per holder.
    held = dict(
        Assignment.objects.filter(_active_lease(now), item__dataset=dataset)
        .exclude(Exists(Label.objects.filter(item=OuterRef("item"), annotator=OuterRef("annotator"))))
        .order_by().values("annotator").annotate(n=Count("pk")).values_list("annotator", "n")
    )
    # Open items per person = started items with a free slot they do not hold, plus fresh items
    # (no label, no running lease) they did not pass on.
    leases = _count(Assignment.objects.filter(_active_lease(now), item=OuterRef("pk")), "item")
    leased = list(Assignment.objects.filter(_active_lease(now), item__dataset=dataset)
                  .values_list("item_id", flat=True).distinct())
    started = Q(label_count__gt=0, label_count__lt=F("required_labels"))
    if leased:
        started |= Q(pk__in=leased)
    started_open = set(
        AnnotationItem.objects.filter(dataset=dataset).filter(started)
        .annotate(taken=_int(F("label_count") + leases)).filter(taken__lt=F("required_labels"))
        .values_list("pk", flat=True)
    )
    holds: dict[int, set[int]] = defaultdict(set)  # person → started open items they hold
    if started_open:
        for user_id, item_id in Label.objects.filter(item__in=started_open).values_list("annotator", "item"):
            holds[user_id].add(item_id)
        for user_id, item_id in (
            Assignment.objects.filter(item__in=started_open)
            .filter(Q(status__in=[Assignment.Status.DONE, Assignment.Status.SKIPPED]) | _active_lease(now))
            .values_list("annotator", "item")
        ):
            holds[user_id].add(item_id)
    fresh = AnnotationItem.objects.filter(dataset=dataset, label_count=0, required_labels__gt=0)
    fresh_free = fresh.count() - fresh.filter(pk__in=leased).count()
    running = Assignment.objects.filter(_active_lease(now), item=OuterRef("item"))
    passed = dict(
        Assignment.objects.filter(item__dataset=dataset, item__label_count=0, item__required_labels__gt=0,
                                  status__in=[Assignment.Status.DONE, Assignment.Status.SKIPPED])
        .exclude(Exists(running))
        .order_by().values("annotator").annotate(n=Count("item", distinct=True)).values_list("annotator", "n")
    )
    # Skips that come back to the skipper (``skipped_open``), per person.
    comeback = dict(
        Assignment.objects.filter(item__dataset=dataset, status=Assignment.Status.SKIPPED)
        .exclude(Exists(Label.objects.filter(item=OuterRef("item"), annotator=OuterRef("annotator"))))
        .annotate(taken=_int(F("item__label_count") + _count(
            Assignment.objects.filter(_active_lease(now), item=OuterRef("item")), "item")))
        .filter(taken__lt=F("item__required_labels"))
        .order_by().values("annotator").annotate(n=Count("pk")).values_list("annotator", "n")
    )
    out = []
    for user_id, username in users:
        mine_done, mine_held = done.get(user_id, 0), held.get(user_id, 0)
        if mine_done >= share:
            total = mine_done + mine_held
        else:
            still = share - mine_done
            have = mine_held
            if have < still:
                open_count = len(started_open - holds[user_id]) + fresh_free - passed.get(user_id, 0)
                have = mine_held + min(still - mine_held, max(0, open_count)) + comeback.get(user_id, 0)
            total = mine_done + min(still, have)
        out.append({"annotator": username, "done": mine_done, "total": total})
    return out


def annotator_share_reached(*, user, dataset: Dataset) -> bool:
    """Whether ``user`` already labelled their share of ``dataset`` (one query)."""
    standing = annotator_standing(user=user, dataset=dataset)
    return standing["done"] >= standing["share"]


# --- the annotator's own items and labels ---------------------------------------------------------


def annotator_dataset_get(*, user, dataset_id: int) -> Dataset | None:
    """A dataset ``user`` labels (a member of ``Dataset.annotators``, staff or not), else None."""
    if not (user and user.is_authenticated):
        return None
    return Dataset.objects.filter(pk=dataset_id, annotators=user).first()


def annotator_item_get(*, user, item_id: int) -> tuple[AnnotationItem | None, bool]:
    """``(item with its dataset, whether user is a member of that dataset)`` in one query;
    ``(None, False)`` when there is no such item."""
    member = Dataset.annotators.through.objects.filter(dataset=OuterRef("dataset_id"), user=user.pk)
    item = (
        AnnotationItem.objects.filter(pk=item_id)
        .select_related("dataset")
        .annotate(is_member=Exists(member))
        .first()
    )
    return item, bool(item is not None and item.is_member)


def item_for_annotator(*, user, item_id: int) -> AnnotationItem | None:
    """The item if ``user`` labelled it or holds an assignment on it (any status), else None."""
    return (
        AnnotationItem.objects.filter(pk=item_id)
        .filter(Q(assignments__annotator=user) | Q(labels__annotator=user))
        .select_related("candidate__problem", "dataset")
        .distinct()
        .first()
    )


def own_label(*, user, item: AnnotationItem) -> Label | None:
    return Label.objects.filter(item=item, annotator=user).first()


def label_list(*, user, dataset: Dataset) -> QuerySet[Label]:
    """``user``'s own labels on ``dataset``, newest change first, with their history."""
    from django.db.models import Prefetch

    return (
        Label.objects.filter(annotator=user, item__dataset=dataset)
        .select_related("item__candidate__problem")
        .prefetch_related(Prefetch("history", queryset=LabelHistory.objects.order_by("id")))
        .order_by("-updated_at", "-id")
    )


# --- agreement ------------------------------------------------------------------------------------


def _pair_values(per_item: dict[int, dict[str, Any]]) -> dict[tuple[str, str], tuple[list, list]]:
    """Per annotator pair (a < b), the values both gave on the items both labelled.

    Walks the items, not the pairs: an item with m labels adds to its m(m-1)/2 pairs, so the cost
    follows the labels (k² per item) and not annotators² × items (200 annotators are 19,900 pairs).
    """
    shared: dict[tuple[str, str], tuple[list, list]] = {}
    for values in per_item.values():
        present = sorted((name, value) for name, value in values.items() if value is not None)
        for (a, x), (b, y) in combinations(present, 2):
            xs, ys = shared.setdefault((a, b), ([], []))
            xs.append(x)
            ys.append(y)
    return shared


def _pair_stats(shared: dict[tuple[str, str], tuple[list, list]], kappa, limit: int | None = None) -> list[dict[str, Any]]:
    """Agreement per pair, by annotator names; with ``limit``, only the ``limit`` pairs that share
    the most items (most first), the others not computed at all."""
    pairs = sorted(shared.items())
    if limit is not None and len(pairs) > limit:
        pairs = sorted(pairs, key=lambda pair: (-len(pair[1][0]), pair[0]))[:limit]
    return [{"a": a, "b": b, "n": len(xs), "agreement": observed_agreement(xs, ys), "kappa": kappa(xs, ys)}
            for (a, b), (xs, ys) in pairs]


def dataset_agreement(*, dataset: Dataset, pairs_limit: int | None = None) -> dict[str, Any]:
    """Agreement among the annotators of ``dataset`` (JSON-safe; undefined kappas are None).

    ``pairs_limit`` (the dashboard): per table only the pairs sharing the most items, with
    ``pairs_total`` saying how many pairs there are (200 annotators can make 19,900 pairs).

    ``binary``: Cohen's kappa per annotator pair on valid/invalid over the items both labelled,
    and Fleiss' kappa over the items with the most common number of labels (at least two).
    ``ratings``: per 0–5 rating, quadratic-weighted Cohen's kappa per pair over the items where
    both gave that rating. Observed agreement (exact match share) and counts come with each.
    """
    rows = list(
        Label.objects.filter(item__dataset=dataset)
        .order_by("item_id", "annotator__username")
        .values_list("item_id", "annotator__username", "valid", *RATINGS)
    )
    valid: dict[int, dict[str, bool]] = defaultdict(dict)
    ratings: dict[str, dict[int, dict[str, int]]] = {r: defaultdict(dict) for r in RATINGS}
    for item_id, username, is_valid, *values in rows:
        valid[item_id][username] = is_valid
        for name, value in zip(RATINGS, values):
            if value is not None:
                ratings[name][item_id][username] = value
    annotators = sorted({username for _, username, *_ in rows})

    binary_shared = _pair_values(valid)
    binary_pairs = _pair_stats(binary_shared, cohen_kappa, pairs_limit)
    fleiss = None
    counts = [len(v) for v in valid.values() if len(v) >= 2]
    if counts:
        raters = max(set(counts), key=lambda c: (counts.count(c), c))
        table = [
            [sum(1 for x in v.values() if x), sum(1 for x in v.values() if not x)]
            for v in valid.values() if len(v) == raters
        ]
        fleiss = {"kappa": fleiss_kappa(table), "n_items": len(table), "raters": raters}

    def _weighted(xs, ys):
        return weighted_kappa(xs, ys, weights="quadratic", categories=range(6))

    result = {
        "dataset": dataset.pk,
        "n_items": sum(1 for v in valid.values() if len(v) >= 2),
        "n_labelled_items": len(valid),
        "n_labels": len(rows),
        "annotators": annotators,
        "binary": {"method": "Cohen's kappa", "pairs": binary_pairs, "fleiss": fleiss},
        "ratings": {},
    }
    if pairs_limit is not None:
        result["binary"]["pairs_total"] = len(binary_shared)
    for name in RATINGS:
        shared = _pair_values(ratings[name])
        block = {"method": "quadratic-weighted kappa", "pairs": _pair_stats(shared, _weighted, pairs_limit)}
        if pairs_limit is not None:
            block["pairs_total"] = len(shared)
        result["ratings"][name] = block
    return result


# --- disagreements --------------------------------------------------------------------------------

DISAGREEMENT_KINDS = ("human_human", "human_model")


def _model_scores(candidate_ids: list[int], version_id: int | None, column: str = "paraqd") -> dict[int, float]:
    if version_id is None or not candidate_ids:
        return {}
    from paraphrases.models import Score

    return dict(
        Score.objects.filter(candidate_id__in=candidate_ids, model_version_id=version_id, **{f"{column}__isnull": False})
        .order_by("candidate_id", "id")
        .values_list("candidate_id", column)
    )


def disagreement_ids(*, dataset: Dataset, kind: str) -> list[int]:
    """The candidate ids of ``disagreements`` (in the same order), without building the rows."""
    if kind not in DISAGREEMENT_KINDS:
        raise ValueError(f"kind must be one of {', '.join(DISAGREEMENT_KINDS)}")
    judge = current_decision()
    if kind == "human_human":
        # Grouped from the labels' side: the items with both a valid and an invalid label.
        split = (
            Label.objects.filter(item__dataset=dataset).order_by().values("item")
            .annotate(yes=Count("pk", filter=Q(valid=True)), no=Count("pk", filter=Q(valid=False)))
            .filter(yes__gt=0, no__gt=0).values("item")
        )
        return list(AnnotationItem.objects.filter(pk__in=split).order_by("id").values_list("candidate_id", flat=True))
    if judge.version_id is None:
        return []
    golds = GoldLabel.objects.filter(candidate__problem__dataset=dataset)
    return list(
        disagreeing_gold(golds, version_id=judge.version_id, threshold=judge.threshold, column=judge.column)
        .order_by("candidate_id").values_list("candidate_id", flat=True)
    )


def disagreements(*, dataset: Dataset, kind: str, limit: int | None = None) -> list[dict[str, Any]]:
    """``human_human``: items of ``dataset`` whose annotators split on valid/invalid (the
    adjudication queue; resolved ones keep their adjudicated gold). ``human_model``: gold-labelled
    candidates of ``dataset`` that the active ParaQD version, at its threshold, judges the other way.
    ``limit``: only the first rows (the ids are still all read, the rows built for those only).
    """
    judge = current_decision()
    candidate_ids = disagreement_ids(dataset=dataset, kind=kind)
    if limit is not None:
        candidate_ids = candidate_ids[:limit]
    return disagreement_rows(candidate_ids, version_id=judge.version_id, threshold=judge.threshold,
                              column=judge.column)


def disagreement_summary(*, dataset: Dataset, kind: str, limit: int) -> dict[str, Any]:
    """``{"rows": the first ``limit`` rows, "count": all of them, "pending": those without a staff
    adjudication}`` (the dashboard's view of ``disagreements``)."""
    ids = disagreement_ids(dataset=dataset, kind=kind)
    adjudicated = 0
    if ids:
        adjudicated = GoldLabel.objects.filter(candidate__problem__dataset=dataset, candidate_id__in=ids,
                                               source=GoldLabel.Source.ADJUDICATION).count()
    judge = current_decision()
    rows = disagreement_rows(ids[:limit], version_id=judge.version_id, threshold=judge.threshold, column=judge.column)
    return {"rows": rows, "count": len(ids), "pending": len(ids) - adjudicated}


def disagreement_rows(
    candidate_ids: list[int], *, version_id: int | None, threshold: float, column: str = "paraqd",
    detail: bool = False,
) -> list[dict[str, Any]]:
    """One row per candidate of ``candidate_ids`` (in that order): the pair, each annotator's label,
    the gold label and the model's score. ``detail``: each label also carries its ratings and
    comment (the adjudication screen)."""
    from paraphrases.models import Candidate

    candidates = Candidate.objects.filter(pk__in=candidate_ids).select_related("problem")
    by_id = {c.pk: c for c in candidates}
    items = dict(AnnotationItem.objects.filter(candidate_id__in=candidate_ids).values_list("candidate_id", "pk"))
    labels: dict[int, list[dict]] = defaultdict(list)
    extra = (*RATINGS, "comment") if detail else ()
    for candidate_id, username, is_valid, *values in (
        Label.objects.filter(item__candidate_id__in=candidate_ids)
        .order_by("annotator__username")
        .values_list("item__candidate_id", "annotator__username", "valid", *extra)
    ):
        labels[candidate_id].append({"annotator": username, "valid": is_valid, **dict(zip(extra, values))})
    golds = {
        g.candidate_id: {"valid": g.valid, "source": g.source, "decided_by": g.decided_by.username if g.decided_by else None,
                         "note": g.note}
        for g in GoldLabel.objects.filter(candidate_id__in=candidate_ids).select_related("decided_by")
    }
    scores = _model_scores(candidate_ids, version_id, column)
    rows = []
    for candidate_id in candidate_ids:
        candidate = by_id.get(candidate_id)
        if candidate is None:
            continue
        score = scores.get(candidate_id)
        rows.append({
            "item": items.get(candidate_id),
            "candidate": candidate_id,
            "problem": candidate.problem.text,
            "paraphrase": candidate.text,
            "labels": labels.get(candidate_id, []),
            "gold": golds.get(candidate_id),
            "model_score": score,
            "model_valid": None if score is None else score > threshold,
        })
    return rows


def human_model_disagreement_count(*, since: datetime | None = None) -> int:
    """Gold labels (any dataset; set or changed since ``since`` when given) on which the active
    ParaQD version, at its threshold, disagrees. 0 without an active version."""
    judge = current_decision()
    if judge.version_id is None:
        return 0
    golds = GoldLabel.objects.all()
    if since is not None:
        golds = golds.filter(updated_at__gte=since)
    return disagreeing_gold(golds, version_id=judge.version_id, threshold=judge.threshold, column=judge.column).count()
