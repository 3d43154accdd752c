"""Reads behind the filtered label lists: an annotator's "My labels", the staff adjudication screen
and the disagreements API, each narrowed by ``filters.LabelFilters`` (parsed and checked by the
caller). Annotator-facing reads take the user and return only their own labels; the others are
for staff (the views and APIs check the role).
"""
from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.db.models import Count, Exists, OuterRef, Q, QuerySet

from corpus.models import Dataset
from modelhub.disagreements import DISAGREEMENT_KINDS, disagreeing_gold, disagreement_rows, disagreements

from .filters import LabelFilters
from .models import AnnotationItem, GoldLabel, Label
from .selectors.own_items import label_list
from .selectors.queue import current_decision


def dataset_labellers(*, dataset: Dataset) -> dict[int, str]:
    """Everyone who labelled an item of ``dataset``: id → username, by username."""
    labelled = Label.objects.filter(item__dataset=dataset).values("annotator")
    return dict(get_user_model().objects.filter(pk__in=labelled).order_by("username").values_list("pk", "username"))


def label_generators(*, dataset: Dataset, user=None) -> list[str]:
    """The generators of the labelled candidates of ``dataset`` (labelled by ``user`` when given)."""
    labels = Label.objects.filter(item__dataset=dataset)
    if user is not None:
        labels = labels.filter(annotator=user)
    return list(labels.order_by("item__candidate__generator").values_list("item__candidate__generator", flat=True)
                .distinct())


def own_labels(*, user, dataset: Dataset, filters: LabelFilters) -> QuerySet[Label]:
    """``user``'s own labels on ``dataset`` (``selectors.label_list``: newest change first, with
    their history) that say ``filters.valid`` and whose candidate came from ``filters.generator``."""
    labels = label_list(user=user, dataset=dataset)
    if filters.valid is not None:
        labels = labels.filter(valid=filters.valid)
    if filters.generator is not None:
        labels = labels.filter(item__candidate__generator=filters.generator)
    return labels


def _labelled_as(filters: LabelFilters, labels: QuerySet[Label]) -> Exists | None:
    """Whether ``labels`` (those of the outer row's item) hold one by ``filters.annotator`` and/or
    saying ``filters.valid``; None when neither is asked for."""
    if filters.annotator is None and filters.valid is None:
        return None
    if filters.annotator is not None:
        labels = labels.filter(annotator_id=filters.annotator)
    if filters.valid is not None:
        labels = labels.filter(valid=filters.valid)
    return Exists(labels)


def _split() -> Q:
    """An item whose labels say both valid and invalid (``OuterRef('pk')`` is the item)."""
    said = Label.objects.filter(item=OuterRef("pk"))
    return Q(Exists(said.filter(valid=True))) & Q(Exists(said.filter(valid=False)))


def adjudication_items(*, dataset: Dataset, filters: LabelFilters) -> QuerySet[AnnotationItem]:
    """The items of ``dataset`` the adjudication screen lists, by id: those with a label (only those
    whose labels split, with ``disagreement_only``), narrowed to ``filters``' generator and to a
    label by ``filters.annotator`` and/or saying ``filters.valid``. Annotated ``split`` (labels
    disagree) and ``adjudicated`` (a staff decision is recorded)."""
    items = AnnotationItem.objects.filter(dataset=dataset, label_count__gt=0)
    if filters.generator is not None:
        items = items.filter(candidate__generator=filters.generator)
    labelled = _labelled_as(filters, Label.objects.filter(item=OuterRef("pk")))
    if labelled is not None:
        items = items.filter(labelled)
    adjudicated = GoldLabel.objects.filter(candidate=OuterRef("candidate_id"), source=GoldLabel.Source.ADJUDICATION)
    items = items.annotate(split=_split(), adjudicated=Exists(adjudicated))
    if filters.disagreement_only:
        items = items.filter(split=True)
    return items.order_by("id")


def adjudication_summary(items: QuerySet[AnnotationItem]) -> dict[str, int]:
    """``{"count": items listed, "split": those whose labels disagree, "pending": split ones
    without a staff decision}`` of ``adjudication_items`` (one query)."""
    counts = items.order_by().aggregate(
        n=Count("pk"),
        n_split=Count("pk", filter=Q(split=True)),
        n_pending=Count("pk", filter=Q(split=True, adjudicated=False)),
    )
    return {"count": counts["n"], "split": counts["n_split"], "pending": counts["n_pending"]}


def adjudication_rows(*, candidate_ids: list[int]) -> list[dict[str, Any]]:
    """The adjudication screen's rows for ``candidate_ids`` (one page): the pair, each annotator's
    label with their ratings and comment, the gold label, and ``split`` (the labels disagree)."""
    judge = current_decision()
    rows = disagreement_rows(candidate_ids, version_id=judge.version_id, threshold=judge.threshold,
                             column=judge.column, detail=True)
    for row in rows:
        row["split"] = len({label["valid"] for label in row["labels"]}) > 1
    return rows


def disagreement_list(*, dataset: Dataset, kind: str, filters: LabelFilters) -> list[dict[str, Any]]:
    """``modelhub.disagreements.disagreements`` narrowed by ``filters`` (generator; a label by the
    annotator and/or saying valid or invalid). ``human_human`` lists split items as the adjudication
    screen does; ``human_model`` the gold labels the deciding judge puts on the other side."""
    if not filters.narrows():
        return disagreements(dataset=dataset, kind=kind)
    judge = current_decision()
    if kind == "human_human":
        ids = list(adjudication_items(dataset=dataset, filters=filters).values_list("candidate_id", flat=True))
    else:
        if kind not in DISAGREEMENT_KINDS:
            raise ValueError(f"kind must be one of {', '.join(DISAGREEMENT_KINDS)}")
        if judge.version_id is None:
            return []
        golds = GoldLabel.objects.filter(candidate__problem__dataset=dataset)
        if filters.generator is not None:
            golds = golds.filter(candidate__generator=filters.generator)
        labelled = _labelled_as(filters, Label.objects.filter(item__candidate=OuterRef("candidate_id")))
        if labelled is not None:
            golds = golds.filter(labelled)
        ids = list(
            disagreeing_gold(golds, version_id=judge.version_id, threshold=judge.threshold,
                             column=judge.column).order_by("candidate_id").values_list("candidate_id", flat=True)
        )
    return disagreement_rows(ids, version_id=judge.version_id, threshold=judge.threshold, column=judge.column)
