"""Pages for browsing datasets and problems.

Every page needs a login and is scoped by role (``selectors.dataset_list``: staff see every
dataset, annotators the ones they annotate): a dataset or problem outside the user's scope
answers 404, exactly like one that does not exist.
"""
from __future__ import annotations

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404
from django.shortcuts import render
from django.views.decorators.http import require_safe

from . import page_selectors, selectors
from .exporters import FORMATS as EXPORT_FORMATS
from .exporters import WHATS as EXPORT_WHATS
from .importers import PAIR_FORMATS, PROBLEM_FORMATS
from .models import Problem

PROBLEMS_PER_PAGE = 50

# What the dataset page's Import and Export menus call each format the importers and the export
# API accept (a format missing here is offered under its own name).
IMPORT_FORMAT_NAMES = {
    "auto": "Detect from the file", "jsonl": "JSON lines: text, answer, equation…", "csv": "CSV with a text column",
    "aqua": "AQuA-RAT (JSON lines)", "gsm8k": "GSM8K (JSON lines)", "svamp": "SVAMP (JSON array)",
    "mawps": "MAWPS (CSV)", "paraqd": "ParaQD pairs: question, paraphrase, label (CSV)",
    "paraqd-wide": "ParaQD wide: question, positive…/negative… columns (CSV)",
}
EXPORT_WHAT_NAMES = {
    "problems": "Problems", "paraphrases": "Paraphrase candidates with scores",
    "labels": "Labels (every annotator’s and gold)", "variants": "Accepted variants per problem",
}


def _data_tools() -> dict:
    """The Import and Export menus of the dataset page (staff): every format the import and export
    APIs take, in their order."""
    return {
        "import_formats": [
            ("problems", "Problems", [(f, IMPORT_FORMAT_NAMES.get(f, f)) for f in PROBLEM_FORMATS]),
            ("pairs", "Labelled pairs", [(f, IMPORT_FORMAT_NAMES.get(f, f)) for f in PAIR_FORMATS]),
        ],
        "import_splits": list(Problem.Split.values),
        "exports": [(what, EXPORT_WHAT_NAMES.get(what, what)) for what in EXPORT_WHATS],
        "export_formats": EXPORT_FORMATS,
        "max_upload_mib": settings.PARALAB_MAX_UPLOAD_BYTES / 2**20,
        "sync_max_mib": settings.PARALAB_IMPORT_SYNC_MAX_BYTES / 2**20,
    }


@require_safe
@login_required
def dataset_list_page(request):
    datasets = selectors.dataset_list(user=request.user)
    return render(request, "corpus/dataset_list.html", {"datasets": datasets})


@require_safe
@login_required
def dataset_detail_page(request, dataset_id: int):
    dataset = selectors.dataset_get(user=request.user, dataset_id=dataset_id)
    if dataset is None:
        raise Http404("No such dataset.")
    q = request.GET.get("q", "").replace("\x00", "").strip()[:200]  # PostgreSQL refuses NUL in a query
    split = request.GET.get("split", "")
    if split not in dict(page_selectors.SPLIT_FILTERS):
        split = ""
    problems = page_selectors.problem_page_search(dataset=dataset, q=q, split=split)
    context = {
        "dataset": dataset,
        "counts": page_selectors.dataset_counts(dataset=dataset),
        "page": Paginator(problems, PROBLEMS_PER_PAGE).get_page(request.GET.get("page")),
        "q": q,
        "split": split,
        "split_options": page_selectors.SPLIT_FILTERS,
        "filtered": bool(q or split),
        **(_data_tools() if request.user.is_staff else {}),
    }
    return render(request, "corpus/dataset_detail.html", context)


@require_safe
@login_required
def problem_detail_page(request, problem_id: int):
    problem = page_selectors.problem_page_get(user=request.user, problem_id=problem_id)
    if problem is None:
        raise Http404("No such problem.")
    # Annotators label blind: scores, gold labels and others' labels are for staff only.
    candidates = page_selectors.problem_page_candidates(problem=problem) if request.user.is_staff else None
    return render(
        request,
        "corpus/problem_detail.html",
        {"problem": problem, "dataset": problem.dataset, "candidates": candidates},
    )
