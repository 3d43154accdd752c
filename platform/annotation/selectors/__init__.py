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

The reads live by concern: ``slots`` (the slot expressions and open items), ``queue`` (what item
to serve next), ``progress`` (shares, progress and the per-process size caches), ``agreement``
(inter-annotator), ``own_items`` (the annotator's own datasets, items and labels), and the
"model disagrees with gold" reads in ``modelhub.disagreements`` beside the rule they apply. Every
public name is importable from here as before.
"""
from __future__ import annotations

from modelhub.disagreements import (
    DISAGREEMENT_KINDS,
    disagreeing_gold,
    disagreement_ids,
    disagreement_rows,
    disagreement_summary,
    disagreements,
    human_model_disagreement_count,
)

from ..models import RATINGS
from .agreement import dataset_agreement
from .own_items import annotator_dataset_get, annotator_item_get, item_for_annotator, label_list, own_label
from .progress import (
    SIZES_CACHE_MIN_ITEMS,
    SIZES_CACHE_S,
    annotation_progress,
    annotator_share,
    annotator_share_reached,
    annotator_standing,
    dataset_progress,
    dataset_sizes_forget,
    open_item_count,
    progress_from,
)
from .queue import active_paraqd_version_id, current_decision, decision_threshold, queue_head, queue_order, skipped_open
from .slots import open_items, taken_slots

__all__ = (
    "DISAGREEMENT_KINDS",
    "RATINGS",
    "SIZES_CACHE_MIN_ITEMS",
    "SIZES_CACHE_S",
    "active_paraqd_version_id",
    "annotation_progress",
    "annotator_dataset_get",
    "annotator_item_get",
    "annotator_share",
    "annotator_share_reached",
    "annotator_standing",
    "current_decision",
    "dataset_agreement",
    "dataset_progress",
    "dataset_sizes_forget",
    "disagreeing_gold",
    "disagreement_ids",
    "disagreement_rows",
    "disagreement_summary",
    "disagreements",
    "human_model_disagreement_count",
    "item_for_annotator",
    "label_list",
    "open_item_count",
    "open_items",
    "own_label",
    "decision_threshold",
    "progress_from",
    "queue_head",
    "queue_order",
    "skipped_open",
    "taken_slots",
)
