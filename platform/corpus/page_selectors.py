"""Reads behind the browsable pages (datasets, problems) that the REST API does not need.

Role scoping is not repeated here: every dataset comes from ``selectors.dataset_list`` /
``selectors.dataset_get`` (staff: all; annotators: the datasets they annotate), and a problem is
found only inside that scope, so an id outside it looks exactly like one that does not exist.
"""
from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Count, Prefetch, Q, QuerySet

from annotation.models import GoldLabel, Label
from paraphrases.models import Candidate, Score

from .models import Dataset, Problem
from .selectors import dataset_list


@dataclass(frozen=True)
class DatasetCounts:
    problems: int
    per_split: list[tuple[str, int]]  # [("train", 40), ("dev", 8), ("", 0) = no split, ...]
    candidates: int
    annotation_items: int
    labels: int
    gold_labels: int


def dataset_counts(*, dataset: Dataset) -> DatasetCounts:
    """Problems per split (every split listed, "no split" only when some have none), and the
    dataset's candidates, annotation items, human labels and gold labels."""
    rows = dict(
        Problem.objects.filter(dataset=dataset)
        .order_by()
        .values("split")
        .annotate(n=Count("id"))
        .values_list("split", "n")
    )
    per_split = [(value, rows.get(value, 0)) for value, _ in Problem.Split.choices]
    if rows.get(""):
        per_split.append(("", rows[""]))
    return DatasetCounts(
        problems=sum(rows.values()),
        per_split=per_split,
        candidates=Candidate.objects.filter(problem__dataset=dataset).count(),
        annotation_items=dataset.annotation_items.count(),
        labels=Label.objects.filter(item__dataset=dataset).count(),
        gold_labels=GoldLabel.objects.filter(candidate__problem__dataset=dataset).count(),
    )


# The values ``?split=`` accepts: a split, or NO_SPLIT for problems without one.
NO_SPLIT = "none"
SPLIT_FILTERS: list[tuple[str, str]] = [*Problem.Split.choices, (NO_SPLIT, "no split")]


def problem_page_search(*, dataset: Dataset, q: str = "", split: str = "") -> QuerySet[Problem]:
    """The problems of ``dataset`` whose text (or source id) contains ``q``, in ``split``.

    ``split`` is one of ``Problem.Split`` or ``NO_SPLIT``; anything else means no filter.
    """
    qs = Problem.objects.filter(dataset=dataset).annotate(
        candidate_count=Count("candidates", distinct=True)
    )
    q = q.strip()
    if q:
        qs = qs.filter(Q(text__icontains=q) | Q(source_id=q))
    if split == NO_SPLIT:
        qs = qs.filter(split="")
    elif split in Problem.Split.values:
        qs = qs.filter(split=split)
    return qs.order_by("id")


def problem_page_get(*, user, problem_id: int) -> Problem | None:
    """The problem if it exists in a dataset the user may see, else None."""
    return (
        Problem.objects.select_related("dataset")
        .filter(dataset__in=dataset_list(user=user).values("pk"), pk=problem_id)
        .first()
    )


def problem_page_candidates(*, problem: Problem) -> QuerySet[Candidate]:
    """The problem's candidates, newest score first, with gold labels and human label counts."""
    return (
        Candidate.objects.filter(problem=problem)
        .select_related("gold", "model_version")
        .prefetch_related(Prefetch("scores", queryset=Score.objects.order_by("-created_at", "-id")))
        .annotate(
            label_count=Count("annotation_item__labels", distinct=True),
            valid_label_count=Count(
                "annotation_item__labels", filter=Q(annotation_item__labels__valid=True), distinct=True
            ),
        )
        .order_by("id")
    )
