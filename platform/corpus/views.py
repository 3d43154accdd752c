"""Pages for browsing datasets and problems.

Every page needs a login and is scoped by role (``selectors.dataset_list``: staff see every
dataset, annotators the ones they annotate): a dataset or problem outside the user's scope
answers 404, exactly like one that does not exist.
"""
from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404
from django.shortcuts import render
from django.views.decorators.http import require_safe

from . import page_selectors, selectors

PROBLEMS_PER_PAGE = 50


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
