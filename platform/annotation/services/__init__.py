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

The writes live by entity: ``assignments`` (``next`` and skips), ``labels`` (submit and undo),
``gold`` (agreement gold, adjudication, a dataset's k) and ``spans`` (highlight spans), with
what they share in ``common``. Every public name is importable from here as before.
"""
from __future__ import annotations

from .assignments import annotation_next, annotation_next_with_progress, item_skip
from .common import RATING_FIELDS, AnnotationError, NotAssigned, label_data, lease_until, lock_item
from .gold import dataset_labels_per_item_apply, gold_sync, item_adjudicate
from .labels import label_submit, label_undo
from .spans import item_spans, item_spans_prepare

__all__ = (
    "RATING_FIELDS",
    "AnnotationError",
    "NotAssigned",
    "annotation_next",
    "annotation_next_with_progress",
    "dataset_labels_per_item_apply",
    "gold_sync",
    "item_adjudicate",
    "item_skip",
    "item_spans",
    "item_spans_prepare",
    "label_data",
    "label_submit",
    "label_undo",
    "lease_until",
    "lock_item",
)
