"""Generation pages (staff): a dataset's candidates with their scores, selection and label status
(``/datasets/{id}/candidates/``, with a form that starts the ``generate`` job), and
``/paraphrase/``, where a pasted problem gets ranked variants (the page calls ``POST paraphrase/``)."""
from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST, require_safe

from corpus.selectors import dataset_get
from jobs.views import job_started_message

from .generation import DEFAULT_PER_PROBLEM, MAX_PER_PROBLEM, generation_start, generator_catalog
from .selectors import LABEL_FILTERS, candidate_generators, candidate_pages, candidate_row, scores_by_id

CANDIDATES_PER_PAGE = 60
SELECTORS_SHOWN = (("pammr", "PAMMR (quality + diversity)"), ("dips", "DiPS (submodular)"),
                   ("tree", "Tree ranking"), ("mwp", "Hardest valid (number filter)"),
                   ("qf_pcf", "Quality filter only"), ("none", "No selection"))


def _staff(request) -> None:
    if not request.user.is_staff:
        raise PermissionDenied("Generation is for staff.")


def _dataset(request, dataset_id: int):
    dataset = dataset_get(user=request.user, dataset_id=dataset_id)
    if dataset is None:
        raise Http404("No such dataset.")
    return dataset


def _float(value: str | None) -> float | None:
    try:
        number = float(value) if value not in (None, "") else None
    except ValueError:
        return None
    return number if number is not None and 0.0 <= number <= 1.0 else None


@require_safe
@login_required
def dataset_candidates_page(request, dataset_id: int):
    _staff(request)
    dataset = _dataset(request, dataset_id)
    generator = request.GET.get("generator", "").replace("\x00", "").strip()[:64]  # PostgreSQL refuses NUL
    min_pqi = _float(request.GET.get("min_pqi"))
    selected = {"1": True, "0": False}.get(request.GET.get("selected", ""))
    label = request.GET.get("label", "")
    label = label if label in LABEL_FILTERS else None
    qs = candidate_pages(dataset=dataset, generator=generator or None, min_pqi=min_pqi, selected=selected, label=label)
    page = Paginator(qs, CANDIDATES_PER_PAGE).get_page(request.GET.get("page"))
    scores = scores_by_id([c.score_id for c in page.object_list])
    rows = [candidate_row(c, scores.get(c.score_id)) for c in page.object_list]
    context = {
        "dataset": dataset,
        "page": page,
        "rows": rows,
        "generators": candidate_generators(dataset=dataset),
        "catalog": generator_catalog(),
        "selectors": SELECTORS_SHOWN,
        "per_problem": DEFAULT_PER_PROBLEM,
        "max_per_problem": MAX_PER_PROBLEM,
        "filters": {"generator": generator, "min_pqi": "" if min_pqi is None else min_pqi,
                    "selected": request.GET.get("selected", ""), "label": label or ""},
        "label_filters": LABEL_FILTERS,
        "filtered": bool(generator or min_pqi is not None or selected is not None or label),
    }
    return render(request, "paraphrases/candidates.html", context)


@require_POST
@login_required
def dataset_generate_page(request, dataset_id: int):
    """The candidates page's form: start the ``generate`` job (in the embedded default it runs in
    this request), then back to the candidates with a message naming the job."""
    _staff(request)
    dataset = _dataset(request, dataset_id)
    names = [n for n in request.POST.getlist("generators") if n]
    if not names:  # every box unticked: not "run them all"
        messages.error(request, "Generation not started: tick at least one generator.")
        return redirect(reverse("dataset-candidates", args=[dataset.pk]))
    try:
        per_problem = int(request.POST.get("per_problem") or DEFAULT_PER_PROBLEM)
        job = generation_start(dataset=dataset, generators=names, select=request.POST.get("select") or None,
                               per_problem=per_problem, queue=request.POST.get("queue") == "1", user=request.user)
    except ValueError as exc:  # a bad count, or any UserError of the service
        messages.error(request, f"Generation not started: {exc}")
    else:
        messages.success(request, job_started_message(job, "Generation"))
    return redirect(reverse("dataset-candidates", args=[dataset.pk]))


@require_safe
@login_required
def paraphrase_page(request):
    _staff(request)
    return render(request, "paraphrases/paraphrase.html", {
        "catalog": generator_catalog(), "selectors": SELECTORS_SHOWN, "max_k": MAX_PER_PROBLEM,
        "example": ("Maya bought 12 apples for $3.50 at the market. She gave 4 apples to Tom. "
                    "How many apples does Maya have now?"),
    })
