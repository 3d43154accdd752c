"""Highlight spans of an item's two texts (numbers, units, entities), computed once and stored."""
from __future__ import annotations

from django.conf import settings

from corpus.models import Dataset
from ml.text.highlight import highlight_spans

from ..models import AnnotationItem


def _compute_spans(problem_text: str, paraphrase_text: str) -> dict[str, list[dict]]:
    model = settings.PARALAB_SPACY_MODEL
    return {"problem": highlight_spans(problem_text, spacy_model=model),
            "paraphrase": highlight_spans(paraphrase_text, spacy_model=model)}


def item_spans(*, item: AnnotationItem) -> dict[str, list[dict]]:
    """The highlight spans of an item's two texts, computed on first use and stored on the item
    (spaCy's NER costs tens of milliseconds a text; the k annotators after the first pay nothing)."""
    if item.spans and "problem" in item.spans and "paraphrase" in item.spans:
        return item.spans
    spans = _compute_spans(item.candidate.problem.text, item.candidate.text)
    AnnotationItem.objects.filter(pk=item.pk).update(spans=spans)
    item.spans = spans
    return spans


def item_spans_prepare(*, dataset: Dataset, batch_size: int = 200) -> int:
    """Compute and store the spans of every item of ``dataset`` that has none yet (run it once
    after queueing items, e.g. before a labelling session or a load test). Returns how many."""
    done = 0
    pending = AnnotationItem.objects.filter(dataset=dataset, spans={}).select_related("candidate__problem").order_by("id")
    while True:
        batch = list(pending[:batch_size])
        if not batch:
            return done
        for item in batch:
            item.spans = _compute_spans(item.candidate.problem.text, item.candidate.text)
        AnnotationItem.objects.bulk_update(batch, ["spans"])
        done += len(batch)
