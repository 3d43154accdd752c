"""Labels: submit (first label or a change), undo, and the checks before them.

A label fills a slot of an item only once the item's row is locked (``common.lock_item``); the
agreement gold follows every label change and undo (``gold.gold_sync``).
"""
from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils import timezone

from corpus.models import Dataset

from ..models import AnnotationItem, Assignment, Label, LabelHistory
from .common import RATING_FIELDS, AnnotationError, NotAssigned, label_data, lease_until, lock_item
from .gold import gold_sync


def _others_taken(item: AnnotationItem, user, now) -> int:
    labels = Label.objects.filter(item=item).exclude(annotator=user).count()
    leases = (
        Assignment.objects.filter(item=item, status=Assignment.Status.LEASED, leased_until__gt=now)
        .exclude(annotator=user)
        .count()
    )
    return labels + leases


def _check_assigned(*, item: AnnotationItem, user, label: Label | None, now) -> Assignment:
    """The caller's assignment on a locked item, or NotAssigned.

    A label of theirs may always be edited. A running lease may be labelled. A lease that ran
    out (or a skip) still may, as long as no one else took the slot in the meantime.
    """
    assignment = Assignment.objects.filter(item=item, annotator=user).first()
    if label is not None:
        if assignment is None:
            assignment = Assignment.objects.create(item=item, annotator=user, status=Assignment.Status.DONE)
        return assignment
    if assignment is None:
        raise NotAssigned("this item is not assigned to you")
    if assignment.status == Assignment.Status.LEASED and assignment.leased_until and assignment.leased_until > now:
        return assignment
    if _others_taken(item, user, now) >= item.required_labels:
        raise NotAssigned("your lease on this item ran out and it went to another annotator")
    return assignment


def _validate(values: dict[str, Any]) -> None:
    if not isinstance(values["valid"], bool):
        raise AnnotationError("valid: must be true or false")
    for name in RATING_FIELDS:
        value = values[name]
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 5):
            raise AnnotationError(f"{name}: must be an integer from 0 to 5, or null")


@transaction.atomic
def label_submit(
    *,
    user,
    item: AnnotationItem,
    valid: bool,
    solvability: int | None = None,
    diversity: int | None = None,
    fluency: int | None = None,
    comment: str = "",
    time_spent_ms: int | None = None,
    request_id: str = "",
) -> tuple[Label, bool]:
    """Record ``user``'s label on ``item`` → (label, created).

    One label per annotator and item: sending it again updates it in place (``created`` False),
    so a repeated request never counts twice. Each real change adds a LabelHistory row; sending
    identical values changes nothing. With ``request_id`` (the client's Idempotency-Key), a
    request already applied is not applied again: a retry that arrives after the author changed
    or undid the label cannot bring the old values back. NotAssigned when the item is not the
    caller's; AnnotationError for values out of range.
    """
    values = {"valid": valid, "solvability": solvability, "diversity": diversity, "fluency": fluency,
              "comment": comment or ""}
    _validate(values)
    now = timezone.now()
    item = lock_item(item)
    if request_id:
        applied = _applied(user, request_id)
        if applied is not None:
            current = Label.objects.filter(item=item, annotator=user).first()
            return (current or Label(item=item, annotator=user, **applied.data)), False
    label = Label.objects.filter(item=item, annotator=user).first()
    assignment = _check_assigned(item=item, user=user, label=label, now=now)
    created = label is None
    if created:
        label = Label.objects.create(item=item, annotator=user, time_spent_ms=time_spent_ms, **values)
        action = LabelHistory.Action.CREATED
    elif label_data(label) != values:
        for name, value in values.items():
            setattr(label, name, value)
        if time_spent_ms is not None:
            label.time_spent_ms = time_spent_ms
        label.save()
        action = LabelHistory.Action.UPDATED
    else:
        action = None
    if action is not None:
        LabelHistory.objects.create(item=item, annotator=user, label=label, action=action, data=label_data(label),
                                    request_id=request_id or "")
    if assignment.status != Assignment.Status.DONE or assignment.leased_until is not None:
        Assignment.objects.filter(pk=assignment.pk).update(status=Assignment.Status.DONE, leased_until=None, updated_at=now)
    if action is not None:
        gold_sync(item=item)
    return label, created


def _applied(user, request_id: str) -> LabelHistory | None:
    """The change an earlier request with this Idempotency-Key made, if any."""
    return LabelHistory.objects.filter(annotator=user, request_id=request_id).first()


@transaction.atomic
def label_undo(*, user, dataset: Dataset, request_id: str = "") -> AnnotationItem | None:
    """Remove ``user``'s most recently changed label on ``dataset``; the item is leased to them
    again (it comes next). Returns the item, or None when they have no label there.

    The label is read again once its item is locked, so an undo racing a label on the same item
    (a second tab, a retried request) undoes the values that were really stored, and the history
    ends in the state the tables hold. With ``request_id``, a retried undo that was already
    applied returns the same item and undoes nothing more.
    """
    if request_id:
        applied = _applied(user, request_id)
        if applied is not None:
            return AnnotationItem.objects.select_related("candidate__problem", "dataset").get(pk=applied.item_id)
    while True:
        latest = Label.objects.filter(annotator=user, item__dataset=dataset).order_by("-updated_at", "-id").first()
        if latest is None:
            return None
        item = lock_item(latest.item)
        label = Label.objects.filter(pk=latest.pk).first()  # as stored now that the item is ours
        if label is not None:
            break
        # A concurrent undo removed it first: the next most recent label is the one to undo.
    now = timezone.now()
    LabelHistory.objects.create(item=item, annotator=user, label=None, action=LabelHistory.Action.UNDONE,
                                data=label_data(label), request_id=request_id or "")
    label.delete()
    Assignment.objects.update_or_create(
        item=item, annotator=user,
        defaults={"status": Assignment.Status.LEASED, "leased_until": lease_until(item.dataset, now)},
    )
    gold_sync(item=item)
    return AnnotationItem.objects.select_related("candidate__problem", "dataset").get(pk=item.pk)
