"""What the annotation writes share: their errors, a label's values, the lease length and the
item lock."""
from __future__ import annotations

from datetime import timedelta
from typing import Any

from corpus.models import Dataset

from ..models import RATINGS, AnnotationItem, Label

RATING_FIELDS = RATINGS


class AnnotationError(Exception):
    """A request the annotation loop cannot honour (→ 400)."""


class NotAssigned(AnnotationError):
    """The item is not (or no longer) assigned to the caller (→ 403)."""


def lease_until(dataset: Dataset, now):
    """When a lease taken on ``dataset`` at ``now`` runs out (the dataset's ``lease_seconds``)."""
    return now + timedelta(seconds=dataset.lease_seconds)


def label_data(label: Label) -> dict[str, Any]:
    """The values of a label as stored in its history and returned by the API."""
    return {
        "valid": label.valid,
        **{name: getattr(label, name) for name in RATING_FIELDS},
        "comment": label.comment,
    }


def lock_item(item: AnnotationItem) -> AnnotationItem:
    """The item re-read with its row locked (``of=self``: the dataset row, read along, is not
    locked, so labels on different items of one dataset do not queue behind each other)."""
    return AnnotationItem.objects.select_for_update(of=("self",)).select_related("dataset").get(pk=item.pk)
