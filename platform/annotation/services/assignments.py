"""Handing out items: the lease behind ``next``, and skips.

Every write that takes a slot of an item first locks the item's row (``SELECT … FOR UPDATE``),
then counts the item's slots in a fresh statement: two annotators can never both take the last
slot, whatever the timing. ``annotation_next`` locks with ``skip_locked`` so a busy item is
passed over instead of waited for.
"""
from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from corpus.models import Dataset

from ..models import AnnotationItem, Assignment, Label
from ..selectors.progress import annotation_progress, annotator_standing, progress_from
from ..selectors.queue import queue_head, skipped_open
from ..selectors.slots import taken_slots
from .common import AnnotationError, NotAssigned, lease_until, lock_item

# Items locked per `next` call: enough that concurrent annotators rarely run out of unlocked
# candidates, few enough that they do not lock each other out of the head of the queue.
_LOCK_BATCH = 5
_QUEUE_HEAD = 50


def annotation_next(*, user, dataset: Dataset) -> AnnotationItem | None:
    """The item ``user`` should label next on ``dataset``, leased to them; None when none is left.

    A running lease of theirs is returned again (and renewed), so asking twice does not take two
    slots. Otherwise the first open item in queue order (``selectors.queue_order``) whose slot is
    still free once locked; when none is left, the first item they skipped that still has a free
    slot (``selectors.skipped_open``); nothing once the annotator has labelled their share.
    """
    return annotation_next_with_progress(user=user, dataset=dataset)[0]


def annotation_next_with_progress(*, user, dataset: Dataset) -> tuple[AnnotationItem | None, dict[str, int] | None]:
    """``annotation_next`` and the caller's progress once the item is leased (``{"done", "total"}``,
    as ``selectors.annotation_progress``; None with no item). The share, the done count and the
    open items read to decide are reused for the progress instead of being counted again."""
    now = timezone.now()
    current = (
        Assignment.objects.filter(
            annotator=user, item__dataset=dataset, status=Assignment.Status.LEASED, leased_until__gt=now
        )
        .exclude(item__labels__annotator=user)
        .select_related("item__candidate__problem")
        .order_by("leased_until", "id")
        .first()
    )
    if current is not None:
        Assignment.objects.filter(pk=current.pk).update(leased_until=lease_until(dataset, now), updated_at=now)
        current.item.dataset = dataset
        return current.item, annotation_progress(user=user, dataset=dataset, now=now)
    standing = annotator_standing(user=user, dataset=dataset, now=now)
    past_share = standing["done"] >= standing["share"]
    if past_share and dataset.fill_order != Dataset.FillOrder.COMPLETE:
        return None, None
    # Filling items to completion can leave the last started items with no partner below their
    # share (the others labelled them already): past the share, an annotator still finishes items
    # someone started, never starts a fresh one. Every item still reaches its k labels.
    # The queue is read without locks; its head is then locked row by row, skipping rows another
    # annotator's `next` holds this instant, and each locked item's slots are counted again.
    rows = queue_head(user=user, dataset=dataset, now=now, limit=_QUEUE_HEAD, started_only=past_share)
    ids = list(dict.fromkeys(rows))
    item, full = _lease_first(ids, user=user, dataset=dataset, now=now)
    if item is not None:
        # Now one more held, one fewer open; the queue read held every open item unless it
        # filled its head.
        progress = progress_from(
            user=user, dataset=dataset, now=now, done=standing["done"], share=standing["share"],
            held=standing["held"] + 1, open_seen=max(0, len(ids) - 1 - full),
            open_all_seen=len(rows) < _QUEUE_HEAD,
        )
        return item, progress
    # Nothing they have not seen is left: the items they skipped come back, oldest skip first, if
    # the others have not filled them meanwhile (selectors.skipped_open).
    skipped = skipped_open(user=user, dataset=dataset, now=now, started_only=past_share)
    item, _ = _lease_first(list(skipped.values_list("item_id", flat=True)[:_QUEUE_HEAD]), user=user,
                           dataset=dataset, now=now)
    if item is not None:
        return item, annotation_progress(user=user, dataset=dataset, now=now)
    return None, None


def _lease_first(ids: list[int], *, user, dataset: Dataset, now) -> tuple[AnnotationItem | None, int]:
    """Lease ``user`` the first item of ``ids`` that still has a free slot once its row is locked →
    (the item or None, how many of the items before it were found full). Rows another annotator's
    `next` holds this instant are passed over (``skip_locked``), and each locked item's slots are
    counted again under the lock."""
    full = 0  # items found full once locked: not open after all
    for start in range(0, len(ids), _LOCK_BATCH):
        head = ids[start:start + _LOCK_BATCH]
        with transaction.atomic():
            locked = set(
                AnnotationItem.objects.filter(pk__in=head).select_for_update(skip_locked=True).values_list("pk", flat=True)
            )
            if not locked:
                continue
            # Recounted under the lock, and fetched with the texts in the same query.
            fresh = {
                item.pk: item
                for item in AnnotationItem.objects.filter(pk__in=locked)
                .select_related("candidate__problem")
                .annotate(taken=taken_slots(now))
            }
            for pk in head:
                item = fresh.get(pk)
                if item is None:
                    continue
                if item.taken >= item.required_labels:
                    full += 1
                    continue
                _lease(item_id=pk, user=user, until=lease_until(dataset, now), now=now)
                item.dataset = dataset
                return item, full
    return None, full


def _lease(*, item_id: int, user, until, now) -> None:
    """Lease the item to ``user``: a new row, or their own row (a lease that ran out) renewed."""
    Assignment.objects.bulk_create(
        [Assignment(item_id=item_id, annotator=user, status=Assignment.Status.LEASED, leased_until=until,
                    created_at=now, updated_at=now)],
        update_conflicts=True, unique_fields=["item", "annotator"], update_fields=["status", "leased_until", "updated_at"],
    )


@transaction.atomic
def item_skip(*, user, item: AnnotationItem) -> Assignment:
    """``user`` passes on ``item``: its slot goes back to the pool. The others are offered it as
    before; ``user`` gets it back once nothing they have not seen is left (oldest skip first; a
    second skip puts it last), while it still has a free slot (``selectors.skipped_open``).
    NotAssigned without an assignment; AnnotationError when they already labelled it."""
    item = lock_item(item)
    assignment = Assignment.objects.filter(item=item, annotator=user).first()
    if assignment is None:
        raise NotAssigned("this item is not assigned to you")
    if Label.objects.filter(item=item, annotator=user).exists():
        raise AnnotationError("you already labelled this item; undo the label before skipping it")
    assignment.status = Assignment.Status.SKIPPED
    assignment.leased_until = None
    assignment.save(update_fields=["status", "leased_until", "updated_at"])
    return assignment
