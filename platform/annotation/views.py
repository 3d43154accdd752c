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

from . import page_selectors
from .guidelines import render_guidelines

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
    from .selectors import annotation_progress

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


@require_safe
@login_required
def annotate_labels_page(request, dataset_id: int):
    """The caller's own labels in one dataset, newest first, each with a link to edit it."""
    dataset = _member_dataset(request, dataset_id)
    from .selectors import label_list

    labels = label_list(user=request.user, dataset=dataset)
    page = Paginator(labels, LABELS_PER_PAGE).get_page(request.GET.get("page"))
    return render(request, "annotation/my_labels.html", {"dataset": dataset, "page": page, "ratings": RATINGS})


@require_safe
@login_required
def adjudicate_page(request, dataset_id: int):
    """Staff: the items where annotators disagree, each annotator's label, and the decision."""
    if not request.user.is_staff:
        raise PermissionDenied("Adjudication is for staff.")
    dataset = page_selectors.staff_dataset_get(user=request.user, dataset_id=dataset_id)
    if dataset is None:
        raise Http404("No such dataset.")
    from .selectors import disagreements

    rows = disagreements(dataset=dataset, kind="human_human")
    for row in rows:
        row["checks"] = pair_checks(row["problem"], row["paraphrase"])
    pending = [row for row in rows if not row.get("gold") or row["gold"].get("source") != "adjudication"]
    context = {
        "dataset": dataset,
        "rows": rows,
        "pending_count": len(pending),
        "guidelines": render_guidelines(dataset.guidelines),
    }
    return render(request, "annotation/adjudicate.html", context)
