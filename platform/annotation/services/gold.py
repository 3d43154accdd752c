"""Gold labels kept by the annotation loop: agreement gold synced with the labels, staff
adjudication, and the re-sync when a dataset's k changes.

An item's gold label is the annotators' answer once all k labels agree (``GoldLabel.source ==
agreement``); a split item waits for a staff adjudication (``source == adjudication``), which no
later label overrides. Imported gold labels are never touched.
"""
from __future__ import annotations

from django.db import transaction
from django.db.models import Q

from corpus.models import Dataset

from ..models import AnnotationItem, GoldLabel, Label
from ..selectors.progress import dataset_sizes_forget
from .common import AnnotationError, lock_item


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
    item = lock_item(item)
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
    dataset_sizes_forget(dataset.pk)
    with transaction.atomic():
        AnnotationItem.objects.filter(pk__in=[i.pk for i in changed]).update(required_labels=dataset.labels_per_item)
        labelled = set(Label.objects.filter(item__in=[i.pk for i in changed]).values_list("item_id", flat=True))
        for item in changed:
            item.required_labels = dataset.labels_per_item
            if item.pk in labelled:  # no labels, no agreement gold to fix
                gold_sync(item=item)
    return len(changed)
