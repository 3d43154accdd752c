"""The one rule for "the model disagrees with a human gold label", in Python and in SQL.

A judge calls a pair valid when its score is strictly above the threshold (as in training and
evaluation, ``ml.metrics``); a gold label the model puts on the other side is a disagreement: a
hard example that retraining weights up, a row of the dashboard's "Gold vs the active ParaQD"
list, and new evidence for the retrain trigger. A candidate the model never scored is no evidence.

The reads of those disagreements for a dataset follow the rule: ``human_model`` lists the gold
labels the deciding judge (``modelhub.judging.decision``) puts on the other side, beside
``human_human`` (items whose annotators split, the adjudication queue), for the staff dashboard,
the disagreements API and the adjudication screen (staff reads; the callers check the role).
"""
from __future__ import annotations

from collections import defaultdict
from datetime import datetime
from typing import Any

from django.db.models import Count, FloatField, OuterRef, Q, QuerySet, Subquery

from annotation.models import RATINGS, AnnotationItem, GoldLabel, Label
from corpus.models import Dataset
from paraphrases.models import Candidate, Score

from .judging import decision


def gold_disagrees(*, gold_valid: bool, model_score: float | None, threshold: float) -> bool:
    """Whether a gold label disagrees with the model's score at ``threshold``.

    >>> gold_disagrees(gold_valid=True, model_score=0.2, threshold=0.5)
    True
    >>> gold_disagrees(gold_valid=True, model_score=None, threshold=0.5)
    False
    """
    if model_score is None:
        return False
    return (model_score > threshold) != bool(gold_valid)


def model_score_subquery(version_id: int, column: str = "paraqd") -> Subquery:
    """``Score.<column>`` of the row's ``candidate_id`` by model version ``version_id`` (the newest row):
    a ParaQD version's cosine, a numeracy-aware judge's probability (``modelhub.judging``)."""
    return Subquery(
        Score.objects.filter(candidate=OuterRef("candidate_id"), model_version_id=version_id,
                             **{f"{column}__isnull": False})
        .order_by("-id")
        .values(column)[:1],
        output_field=FloatField(),
    )


def disagreeing_gold(
    qs: QuerySet[GoldLabel], *, version_id: int, threshold: float, column: str = "paraqd"
) -> QuerySet[GoldLabel]:
    """The gold labels of ``qs`` that :func:`gold_disagrees` with version ``version_id``'s score
    (its ``column``), annotated with ``model_score``."""
    return qs.annotate(model_score=model_score_subquery(version_id, column)).filter(
        Q(valid=True, model_score__lte=threshold) | Q(valid=False, model_score__gt=threshold)
    )


DISAGREEMENT_KINDS = ("human_human", "human_model")


def _model_scores(candidate_ids: list[int], version_id: int | None, column: str = "paraqd") -> dict[int, float]:
    if version_id is None or not candidate_ids:
        return {}
    return dict(
        Score.objects.filter(candidate_id__in=candidate_ids, model_version_id=version_id, **{f"{column}__isnull": False})
        .order_by("candidate_id", "id")
        .values_list("candidate_id", column)
    )


def disagreement_ids(*, dataset: Dataset, kind: str) -> list[int]:
    """The candidate ids of ``disagreements`` (in the same order), without building the rows."""
    if kind not in DISAGREEMENT_KINDS:
        raise ValueError(f"kind must be one of {', '.join(DISAGREEMENT_KINDS)}")
    judge = decision()
    if kind == "human_human":
        # Grouped from the labels' side: the items with both a valid and an invalid label.
        split = (
            Label.objects.filter(item__dataset=dataset).order_by().values("item")
            .annotate(yes=Count("pk", filter=Q(valid=True)), no=Count("pk", filter=Q(valid=False)))
            .filter(yes__gt=0, no__gt=0).values("item")
        )
        return list(AnnotationItem.objects.filter(pk__in=split).order_by("id").values_list("candidate_id", flat=True))
    if judge.version_id is None:
        return []
    golds = GoldLabel.objects.filter(candidate__problem__dataset=dataset)
    return list(
        disagreeing_gold(golds, version_id=judge.version_id, threshold=judge.threshold, column=judge.column)
        .order_by("candidate_id").values_list("candidate_id", flat=True)
    )


def disagreements(*, dataset: Dataset, kind: str, limit: int | None = None) -> list[dict[str, Any]]:
    """``human_human``: items of ``dataset`` whose annotators split on valid/invalid (the
    adjudication queue; resolved ones keep their adjudicated gold). ``human_model``: gold-labelled
    candidates of ``dataset`` that the active ParaQD version, at its threshold, judges the other way.
    ``limit``: only the first rows (the ids are still all read, the rows built for those only).
    """
    judge = decision()
    candidate_ids = disagreement_ids(dataset=dataset, kind=kind)
    if limit is not None:
        candidate_ids = candidate_ids[:limit]
    return disagreement_rows(candidate_ids, version_id=judge.version_id, threshold=judge.threshold,
                              column=judge.column)


def disagreement_summary(*, dataset: Dataset, kind: str, limit: int) -> dict[str, Any]:
    """``{"rows": the first ``limit`` rows, "count": all of them, "pending": those without a staff
    adjudication}`` (the dashboard's view of ``disagreements``)."""
    ids = disagreement_ids(dataset=dataset, kind=kind)
    adjudicated = 0
    if ids:
        adjudicated = GoldLabel.objects.filter(candidate__problem__dataset=dataset, candidate_id__in=ids,
                                               source=GoldLabel.Source.ADJUDICATION).count()
    judge = decision()
    rows = disagreement_rows(ids[:limit], version_id=judge.version_id, threshold=judge.threshold, column=judge.column)
    return {"rows": rows, "count": len(ids), "pending": len(ids) - adjudicated}


def disagreement_rows(
    candidate_ids: list[int], *, version_id: int | None, threshold: float, column: str = "paraqd",
    detail: bool = False,
) -> list[dict[str, Any]]:
    """One row per candidate of ``candidate_ids`` (in that order): the pair, each annotator's label,
    the gold label and the model's score. ``detail``: each label also carries its ratings and
    comment (the adjudication screen)."""
    candidates = Candidate.objects.filter(pk__in=candidate_ids).select_related("problem")
    by_id = {c.pk: c for c in candidates}
    items = dict(AnnotationItem.objects.filter(candidate_id__in=candidate_ids).values_list("candidate_id", "pk"))
    labels: dict[int, list[dict]] = defaultdict(list)
    extra = (*RATINGS, "comment") if detail else ()
    for candidate_id, username, is_valid, *values in (
        Label.objects.filter(item__candidate_id__in=candidate_ids)
        .order_by("annotator__username")
        .values_list("item__candidate_id", "annotator__username", "valid", *extra)
    ):
        labels[candidate_id].append({"annotator": username, "valid": is_valid, **dict(zip(extra, values))})
    golds = {
        g.candidate_id: {"valid": g.valid, "source": g.source, "decided_by": g.decided_by.username if g.decided_by else None,
                         "note": g.note}
        for g in GoldLabel.objects.filter(candidate_id__in=candidate_ids).select_related("decided_by")
    }
    scores = _model_scores(candidate_ids, version_id, column)
    rows = []
    for candidate_id in candidate_ids:
        candidate = by_id.get(candidate_id)
        if candidate is None:
            continue
        score = scores.get(candidate_id)
        rows.append({
            "item": items.get(candidate_id),
            "candidate": candidate_id,
            "problem": candidate.problem.text,
            "paraphrase": candidate.text,
            "labels": labels.get(candidate_id, []),
            "gold": golds.get(candidate_id),
            "model_score": score,
            "model_valid": None if score is None else score > threshold,
        })
    return rows


def human_model_disagreement_count(*, since: datetime | None = None) -> int:
    """Gold labels (any dataset; set or changed since ``since`` when given) on which the active
    ParaQD version, at its threshold, disagrees. 0 without an active version."""
    judge = decision()
    if judge.version_id is None:
        return 0
    golds = GoldLabel.objects.all()
    if since is not None:
        golds = golds.filter(updated_at__gte=since)
    return disagreeing_gold(golds, version_id=judge.version_id, threshold=judge.threshold, column=judge.column).count()
