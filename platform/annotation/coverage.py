"""How far a dataset's labelling has got, counted from the rows (the staff dashboard): the items
still below their k labels and the skips among them, and how many gold labels the deciding judge
has scored. Every number the dashboard states about coverage comes from here.
"""
from __future__ import annotations

from django.db.models import F

from corpus.models import Dataset
from modelhub.disagreements import model_score_subquery
from modelhub.judging import decision

from .models import AnnotationItem, Assignment, GoldLabel


def dataset_coverage(*, dataset: Dataset) -> dict[str, int]:
    """``{"items", "below_k", "unstarted", "started", "skipped"}`` of ``dataset``: its items, those
    with fewer labels than their ``required_labels`` (k), of those the ones with no label and the
    ones with some, and the ones somebody skipped (a skip on record, whoever it was). Each count
    reads an index (the partial ones on fresh and started items, the skips), not every item."""
    items = AnnotationItem.objects.filter(dataset=dataset)
    unstarted = items.filter(label_count=0, required_labels__gt=0).count()
    started = items.filter(label_count__gt=0, label_count__lt=F("required_labels")).count()
    skipped = (
        Assignment.objects.filter(status=Assignment.Status.SKIPPED, item__dataset=dataset,
                                  item__label_count__lt=F("item__required_labels"))
        .values("item").distinct().count()
    )
    return {"items": items.count(), "below_k": unstarted + started, "unstarted": unstarted, "started": started,
            "skipped": skipped}


def judged_gold(*, dataset: Dataset) -> dict[str, int]:
    """``{"gold", "scored"}``: the gold labels of ``dataset``'s candidates, and how many of them the
    deciding judge (``modelhub.judging.decision``) has a score for, on its decision column: the
    ones "Gold vs the judge" compares. ``scored`` is 0 without a deciding judge."""
    golds = GoldLabel.objects.filter(candidate__problem__dataset=dataset)
    judge = decision()
    total = golds.count()
    if judge.version_id is None or not total:
        return {"gold": total, "scored": 0}
    scored = golds.annotate(model_score=model_score_subquery(judge.version_id, judge.column)).filter(
        model_score__isnull=False).count()
    return {"gold": total, "scored": scored}
