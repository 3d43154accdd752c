"""Annotation pages: the annotator's queues, the labelling screen, their label history, and the
staff adjudication screen.

The labelling screen is a server-rendered shell; ``annotate.js`` fetches items and posts labels
through the REST API (session auth + CSRF). Annotators label blind: no page here shows a model
score or another annotator's label to them. The adjudication screen is for staff only.
"""
from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.http import Http404
from django.shortcuts import render
from django.views.decorators.http import require_safe

from corpus.text import pair_checks

from . import filters, page_selectors, review_selectors
from .guidelines import render_guidelines
from .selectors.progress import annotation_progress

# Paper 000, section 5.3: annotators rate each paraphrase 0–5 on three measures, blind.
RATINGS = [
    ("solvability", "Solvability",
     "Same solution as the original: no number, unit or key subject/object lost (0 unsolvable, 5 fully solvable)."),
    ("diversity", "Diversity",
     "How different in wording and structure from the original (0 a copy, 5 thoroughly rephrased)."),
    ("fluency", "Fluency",
     "Grammatical and coherent across sentences (0 broken, 5 natural English)."),
]
LABELS_PER_PAGE = 50
ADJUDICATION_PER_PAGE = 25


@require_safe
@login_required
def annotate_index_page(request):
    """The caller's queues: each dataset they label, with a done / assigned progress bar."""
    entries = page_selectors.queue_entries(user=request.user)
    return render(request, "annotation/queue.html", {"entries": entries})


def _member_dataset(request, dataset_id: int):
    dataset = page_selectors.member_dataset_get(user=request.user, dataset_id=dataset_id)
    if dataset is None:
        raise Http404("No such dataset.")
    return dataset


@require_safe
@login_required
def annotate_dataset_page(request, dataset_id: int):
    """The labelling screen. ``?item=ID`` opens one of the caller's items to edit its label."""
    dataset = _member_dataset(request, dataset_id)
    item = request.GET.get("item", "")
    context = {
        "progress": annotation_progress(user=request.user, dataset=dataset),
        "dataset": dataset,
        "guidelines": render_guidelines(dataset.guidelines),
        "ratings": RATINGS,
        "rating_values": range(6),
        "edit_item": int(item) if item.isdigit() else None,
    }
    return render(request, "annotation/label.html", context)


def _filter_error_page(request, template: str, context: dict, error: filters.FilterError):
    """The page with the refused parameter named and what it allows, answered 400; no list."""
    return render(request, template, {**context, "filter_error": error, "page": None, "rows": []}, status=400)


@require_safe
@login_required
def annotate_labels_page(request, dataset_id: int):
    """The caller's own labels in one dataset, newest first, each with a link to edit it;
    ``?label=valid|invalid`` and ``?generator=NAME`` narrow the list (400 for a value they do not take)."""
    dataset = _member_dataset(request, dataset_id)
    context = {
        "dataset": dataset, "ratings": RATINGS, "label_values": filters.LABEL_VALUES,
        "generators": review_selectors.label_generators(dataset=dataset, user=request.user),
        "filters": {name: request.GET.get(name, "") for name in ("label", "generator")},
    }
    try:
        chosen = filters.label_filters_parse(request.GET, parameters=("label", "generator"))
        number = filters.page_number(request.GET)
    except filters.FilterError as error:
        return _filter_error_page(request, "annotation/my_labels.html", context, error)
    labels = review_selectors.own_labels(user=request.user, dataset=dataset, filters=chosen)
    context.update({"page": Paginator(labels, LABELS_PER_PAGE).get_page(number), "filtered": chosen.narrows()})
    return render(request, "annotation/my_labels.html", context)


@require_safe
@login_required
def adjudicate_page(request, dataset_id: int):
    """Staff: the items where annotators disagree (``?disagreement=0``: every labelled item), each
    annotator's label with their ratings and comment, and the decision. ``?label=``,
    ``?annotator=ID`` and ``?generator=`` narrow the list (400 for a value they do not take)."""
    if not request.user.is_staff:
        raise PermissionDenied("Adjudication is for staff.")
    dataset = page_selectors.staff_dataset_get(user=request.user, dataset_id=dataset_id)
    if dataset is None:
        raise Http404("No such dataset.")
    labellers = review_selectors.dataset_labellers(dataset=dataset)
    context = {
        "dataset": dataset,
        "guidelines": render_guidelines(dataset.guidelines),
        "labellers": labellers,
        "generators": review_selectors.label_generators(dataset=dataset),
        "label_values": filters.LABEL_VALUES,
        "filters": {name: request.GET.get(name, "") for name in ("label", "annotator", "generator", "disagreement")},
        "ratings": RATINGS,
    }
    try:
        chosen = filters.label_filters_parse(request.GET, parameters=("label", "annotator", "generator", "disagreement"))
        filters.annotator_check(chosen, labellers)
        number = filters.page_number(request.GET)
    except filters.FilterError as error:
        return _filter_error_page(request, "annotation/adjudicate.html", context, error)
    items = review_selectors.adjudication_items(dataset=dataset, filters=chosen)
    page = Paginator(items.values_list("candidate_id", flat=True), ADJUDICATION_PER_PAGE).get_page(number)
    rows = review_selectors.adjudication_rows(candidate_ids=list(page.object_list))
    for row in rows:
        row["checks"] = pair_checks(row["problem"], row["paraphrase"])
    context.update({
        "page": page,
        "rows": rows,
        "summary": review_selectors.adjudication_summary(items),
        "disagreement_only": chosen.disagreement_only,
        "filtered": chosen.narrows() or not chosen.disagreement_only,
    })
    return render(request, "annotation/adjudicate.html", context)
