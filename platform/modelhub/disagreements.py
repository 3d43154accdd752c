"""The one rule for "the model disagrees with a human gold label", in Python and in SQL.

A judge calls a pair valid when its score is strictly above the threshold (as in training and
evaluation, ``ml.metrics``); a gold label the model puts on the other side is a disagreement: a
hard example that retraining weights up, a row of the dashboard's "Gold vs the active ParaQD"
list, and new evidence for the retrain trigger. A candidate the model never scored is no evidence.
"""
from __future__ import annotations

from django.db.models import FloatField, OuterRef, Q, QuerySet, Subquery

from annotation.models import GoldLabel


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
    from paraphrases.models import Score

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
