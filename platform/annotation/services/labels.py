"""Writes of the annotation loop: handing out items, labels, undo, skip, gold labels.

Concurrency. Every write that takes or fills a slot of an item first locks the item's row
(``SELECT … FOR UPDATE``), then counts the item's slots in a fresh statement: two annotators can
never both take the last slot, whatever the timing. ``annotation_next`` locks with
``skip_locked`` so a busy item is passed over instead of waited for. (SQLite has no row locks
and serialises writers instead.)

Gold. An item's gold label is the annotators' answer once all k labels agree
(``GoldLabel.source == agreement``, kept in sync on every label change and undo); a split item
waits for a staff adjudication (``source == adjudication``), which no later label overrides.
Imported gold labels are never touched.
"""
from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from corpus.models import Dataset

from . import selectors
from .models import AnnotationItem, Assignment, GoldLabel, Label, LabelHistory

RATING_FIELDS = selectors.RATINGS
# Items locked per `next` call: enough that concurrent annotators rarely run out of unlocked
# candidates, few enough that they do not lock each other out of the head of the queue.
_LOCK_BATCH = 5
_QUEUE_HEAD = 50


class AnnotationError(Exception):
    """A request the annotation loop cannot honour (→ 400)."""


class NotAssigned(AnnotationError):
    """The item is not (or no longer) assigned to the caller (→ 403)."""


def _lease_until(dataset: Dataset, now):
    return now + timedelta(seconds=dataset.lease_seconds)


def label_data(label: Label) -> dict[str, Any]:
    """The values of a label as stored in its history and returned by the API."""
    return {
        "valid": label.valid,
        **{name: getattr(label, name) for name in RATING_FIELDS},
        "comment": label.comment,
    }


# --- handing out items ----------------------------------------------------------------------------


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
        Assignment.objects.filter(pk=current.pk).update(leased_until=_lease_until(dataset, now), updated_at=now)
        current.item.dataset = dataset
        return current.item, selectors.annotation_progress(user=user, dataset=dataset, now=now)
    standing = selectors.annotator_standing(user=user, dataset=dataset, now=now)
    past_share = standing["done"] >= standing["share"]
    if past_share and dataset.fill_order != Dataset.FillOrder.COMPLETE:
        return None, None
    # Filling items to completion can leave the last started items with no partner below their
    # share (the others labelled them already): past the share, an annotator still finishes items
    # someone started, never starts a fresh one. Every item still reaches its k labels.
    # The queue is read without locks; its head is then locked row by row, skipping rows another
    # annotator's `next` holds this instant, and each locked item's slots are counted again.
    rows = selectors.queue_head(user=user, dataset=dataset, now=now, limit=_QUEUE_HEAD, started_only=past_share)
    ids = list(dict.fromkeys(rows))
    item, full = _lease_first(ids, user=user, dataset=dataset, now=now)
    if item is not None:
        # Now one more held, one fewer open; the queue read held every open item unless it
        # filled its head.
        progress = selectors.progress_from(
            user=user, dataset=dataset, now=now, done=standing["done"], share=standing["share"],
            held=standing["held"] + 1, open_seen=max(0, len(ids) - 1 - full),
            open_all_seen=len(rows) < _QUEUE_HEAD,
        )
        return item, progress
    # Nothing they have not seen is left: the items they skipped come back, oldest skip first, if
    # the others have not filled them meanwhile (selectors.skipped_open).
    skipped = selectors.skipped_open(user=user, dataset=dataset, now=now, started_only=past_share)
    item, _ = _lease_first(list(skipped.values_list("item_id", flat=True)[:_QUEUE_HEAD]), user=user,
                           dataset=dataset, now=now)
    if item is not None:
        return item, selectors.annotation_progress(user=user, dataset=dataset, now=now)
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
                .annotate(taken=selectors.taken_slots(now))
            }
            for pk in head:
                item = fresh.get(pk)
                if item is None:
                    continue
                if item.taken >= item.required_labels:
                    full += 1
                    continue
                _lease(item_id=pk, user=user, until=_lease_until(dataset, now), now=now)
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


def _lock_item(item: AnnotationItem) -> AnnotationItem:
    """The item re-read with its row locked (``of=self``: the dataset row, read along, is not
    locked, so labels on different items of one dataset do not queue behind each other)."""
    return AnnotationItem.objects.select_for_update(of=("self",)).select_related("dataset").get(pk=item.pk)


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
    item = _lock_item(item)
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
        item = _lock_item(latest.item)
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
        defaults={"status": Assignment.Status.LEASED, "leased_until": _lease_until(item.dataset, now)},
    )
    gold_sync(item=item)
    return AnnotationItem.objects.select_related("candidate__problem", "dataset").get(pk=item.pk)


@transaction.atomic
def item_skip(*, user, item: AnnotationItem) -> Assignment:
    """``user`` passes on ``item``: its slot goes back to the pool. The others are offered it as
    before; ``user`` gets it back once nothing they have not seen is left (oldest skip first; a
    second skip puts it last), while it still has a free slot (``selectors.skipped_open``).
    NotAssigned without an assignment; AnnotationError when they already labelled it."""
    item = _lock_item(item)
    assignment = Assignment.objects.filter(item=item, annotator=user).first()
    if assignment is None:
        raise NotAssigned("this item is not assigned to you")
    if Label.objects.filter(item=item, annotator=user).exists():
        raise AnnotationError("you already labelled this item; undo the label before skipping it")
    assignment.status = Assignment.Status.SKIPPED
    assignment.leased_until = None
    assignment.save(update_fields=["status", "leased_until", "updated_at"])
    return assignment


# --- gold -----------------------------------------------------------------------------------------


def gold_sync(*, item: AnnotationItem) -> GoldLabel | None:
    """Bring the agreement gold of ``item`` in line with its labels (call with the item locked).

    All k labels present and equal → GoldLabel(source=agreement) with that answer; otherwise
    no agreement gold. Adjudicated and imported gold labels are left as they are.
    """
    gold = GoldLabel.objects.filter(candidate_id=item.candidate_id).first()
    if gold is not None and gold.source != GoldLabel.Source.AGREEMENT:
        return gold
    answers = list(Label.objects.filter(item=item).values_list("valid", flat=True))
    agreed = len(answers) >= item.required_labels and len(set(answers)) == 1
    if not agreed:
        if gold is not None:
            gold.delete()
        return None
    if gold is None:
        return GoldLabel.objects.create(candidate_id=item.candidate_id, valid=answers[0], source=GoldLabel.Source.AGREEMENT)
    if gold.valid != answers[0]:
        gold.valid = answers[0]
        gold.save(update_fields=["valid", "updated_at"])
    return gold


@transaction.atomic
def item_adjudicate(*, user, item: AnnotationItem, valid: bool, note: str = "") -> GoldLabel:
    """Staff decide ``item``'s gold label (source adjudication, ``decided_by`` = ``user``); it
    replaces an agreement or earlier adjudication, and no later label changes it."""
    if not isinstance(valid, bool):
        raise AnnotationError("valid: must be true or false")
    item = _lock_item(item)
    gold, _ = GoldLabel.objects.update_or_create(
        candidate_id=item.candidate_id,
        defaults={"valid": valid, "source": GoldLabel.Source.ADJUDICATION, "decided_by": user, "note": note or ""},
    )
    return gold


# --- settings -------------------------------------------------------------------------------------


def dataset_labels_per_item_apply(*, dataset: Dataset) -> int:
    """Give every item of ``dataset`` the dataset's k (after staff change ``labels_per_item``) and
    re-sync agreement gold where k changed. Returns the number of items changed."""
    changed = list(
        AnnotationItem.objects.filter(dataset=dataset).filter(~Q(required_labels=dataset.labels_per_item))
    )
    if not changed:
        return 0
    selectors.dataset_sizes_forget(dataset.pk)
    with transaction.atomic():
        AnnotationItem.objects.filter(pk__in=[i.pk for i in changed]).update(required_labels=dataset.labels_per_item)
        labelled = set(Label.objects.filter(item__in=[i.pk for i in changed]).values_list("item_id", flat=True))
        for item in changed:
            item.required_labels = dataset.labels_per_item
            if item.pk in labelled:  # no labels, no agreement gold to fix
                gold_sync(item=item)
    return len(changed)


# --- highlight spans ------------------------------------------------------------------------------


def _compute_spans(problem_text: str, paraphrase_text: str) -> dict[str, list[dict]]:
    from django.conf import settings

    from ml.text.highlight import highlight_spans

    model = settings.PARALAB_SPACY_MODEL
    return {"problem": highlight_spans(problem_text, spacy_model=model),
            "paraphrase": highlight_spans(paraphrase_text, spacy_model=model)}


def item_spans(*, item: AnnotationItem) -> dict[str, list[dict]]:
    """The highlight spans of an item's two texts, computed on first use and stored on the item
    (spaCy's NER costs tens of milliseconds a text; the k annotators after the first pay nothing)."""
    if item.spans and "problem" in item.spans and "paraphrase" in item.spans:
        return item.spans
    spans = _compute_spans(item.candidate.problem.text, item.candidate.text)
    AnnotationItem.objects.filter(pk=item.pk).update(spans=spans)
    item.spans = spans
    return spans


def item_spans_prepare(*, dataset: Dataset, batch_size: int = 200) -> int:
    """Compute and store the spans of every item of ``dataset`` that has none yet (run it once
    after queueing items, e.g. before a labelling session or a load test). Returns how many."""
    done = 0
    pending = AnnotationItem.objects.filter(dataset=dataset, spans={}).select_related("candidate__problem").order_by("id")
    while True:
        batch = list(pending[:batch_size])
        if not batch:
            return done
        for item in batch:
            item.spans = _compute_spans(item.candidate.problem.text, item.candidate.text)
        AnnotationItem.objects.bulk_update(batch, ["spans"])
        done += len(batch)
