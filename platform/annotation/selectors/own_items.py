"""The annotator's own datasets, items and labels. These reads take the user and only ever
return their own labels."""
from __future__ import annotations

from django.db.models import Exists, OuterRef, Prefetch, Q, QuerySet

from corpus.models import Dataset

from ..models import AnnotationItem, Label, LabelHistory

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
    return (
        Label.objects.filter(annotator=user, item__dataset=dataset)
        .select_related("item__candidate__problem")
        .prefetch_related(Prefetch("history", queryset=LabelHistory.objects.order_by("id")))
        .order_by("-updated_at", "-id")
    )
