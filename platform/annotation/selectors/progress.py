"""Progress of the annotators of a dataset: each one's share, what they did and what is left.

Balance. Each annotator's share of a dataset is ``ceil(Σ k / members)`` items (capped at the
number of items): with two annotators and k = 2 both label everything; with four, each labels
half. The share follows the member list, so removing an absent annotator hands their part to the
others.
"""
from __future__ import annotations

import math
import time
from collections import defaultdict
from datetime import datetime
from typing import Any

from django.contrib.auth import get_user_model
from django.db.models import Count, Exists, F, IntegerField, OuterRef, Q, QuerySet, Subquery, Sum, Value
from django.db.models.functions import Coalesce
from django.utils import timezone

from corpus.models import Dataset

from ..models import AnnotationItem, Assignment, Label
from .queue import skipped_open
from .slots import active_lease, count_or_zero, integer, started_open_items


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
    return Assignment.objects.filter(active_lease(now), annotator=user, item__dataset=dataset_ref).exclude(
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
    started = started_open_items(user=user, dataset=dataset, now=now).order_by()[:limit].count()
    if started >= limit:
        return limit
    excluded = (
        Assignment.objects.filter(item__dataset=dataset, item__label_count=0, item__required_labels__gt=0)
        .filter(active_lease(now) | Q(annotator=user, status__in=[Assignment.Status.DONE, Assignment.Status.SKIPPED]))
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
            "n_items": count_or_zero(AnnotationItem.objects.filter(dataset=OuterRef("pk")), "dataset"),
            "slots": Coalesce(Subquery(items.annotate(s=Sum("required_labels")).values("s"),
                                       output_field=IntegerField()), Value(0)),
        }
    row = (
        Dataset.objects.filter(pk=dataset.pk)
        .annotate(
            **counts,
            members=count_or_zero(members, "dataset"),
            done=count_or_zero(Label.objects.filter(annotator=user, item__dataset=OuterRef("pk")), "item__dataset"),
            held=count_or_zero(_held(user, OuterRef("pk"), now), "item__dataset"),
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
        Assignment.objects.filter(active_lease(now), item__dataset=dataset)
        .exclude(Exists(Label.objects.filter(item=OuterRef("item"), annotator=OuterRef("annotator"))))
        .order_by().values("annotator").annotate(n=Count("pk")).values_list("annotator", "n")
    )
    # Open items per person = started items with a free slot they do not hold, plus fresh items
    # (no label, no running lease) they did not pass on.
    leases = count_or_zero(Assignment.objects.filter(active_lease(now), item=OuterRef("pk")), "item")
    leased = list(Assignment.objects.filter(active_lease(now), item__dataset=dataset)
                  .values_list("item_id", flat=True).distinct())
    started = Q(label_count__gt=0, label_count__lt=F("required_labels"))
    if leased:
        started |= Q(pk__in=leased)
    started_open = set(
        AnnotationItem.objects.filter(dataset=dataset).filter(started)
        .annotate(taken=integer(F("label_count") + leases)).filter(taken__lt=F("required_labels"))
        .values_list("pk", flat=True)
    )
    holds: dict[int, set[int]] = defaultdict(set)  # person → started open items they hold
    if started_open:
        for user_id, item_id in Label.objects.filter(item__in=started_open).values_list("annotator", "item"):
            holds[user_id].add(item_id)
        for user_id, item_id in (
            Assignment.objects.filter(item__in=started_open)
            .filter(Q(status__in=[Assignment.Status.DONE, Assignment.Status.SKIPPED]) | active_lease(now))
            .values_list("annotator", "item")
        ):
            holds[user_id].add(item_id)
    fresh = AnnotationItem.objects.filter(dataset=dataset, label_count=0, required_labels__gt=0)
    fresh_free = fresh.count() - fresh.filter(pk__in=leased).count()
    running = Assignment.objects.filter(active_lease(now), item=OuterRef("item"))
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
        .annotate(taken=integer(F("item__label_count") + count_or_zero(
            Assignment.objects.filter(active_lease(now), item=OuterRef("item")), "item")))
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

