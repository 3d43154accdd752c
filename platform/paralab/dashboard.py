"""The staff dashboard (/dashboard/): per-dataset progress, agreement, disagreements, the active
ParaQD model's metrics, promotion gate and score distributions, a retrain button, and the SCANNING
form (``POST scanning/start/``: the whole STEAD → PAP → generation chain as one job).

Reads come from the annotation selectors (progress, agreement, disagreements) and the modelhub
selectors (versions); the score histogram is drawn here as inline SVG, no JavaScript library.
"""
from __future__ import annotations

import math
from typing import Any, Mapping

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.cache import cache
from django.core.exceptions import PermissionDenied
from django.shortcuts import redirect, render
from django.urls import NoReverseMatch, reverse
from django.utils import timezone
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django.views.decorators.http import require_POST, require_safe

from annotation.coverage import dataset_coverage, judged_gold
from annotation.selectors import current_decision, dataset_agreement, dataset_progress, disagreement_summary
from corpus.models import Dataset
from jobs.views import job_started_message
from modelhub.judging import decision_version
from modelhub.kinds.paraqd import KIND as PARAQD_KIND
from modelhub.kinds.paraqd import paraqd_threshold
from modelhub.kinds.scanning import ScanningError, scanning_start
from modelhub.selectors import model_warnings, modelversion_active, modelversion_list
from paraphrases.models import Candidate
from paraphrases.selectors import pqi_by_generator

DISAGREEMENTS_SHOWN = 25
# Annotator pairs per agreement table (those sharing the most items); the API lists them all.
AGREEMENT_PAIRS_SHOWN = 25
# The summaries over a whole dataset (agreement, disagreements, PQI per generator) of a dataset with
# at least this many problems are kept PARALAB_DASHBOARD_CACHE_S seconds in the cache (seconds of
# SQL at 100,000 problems and 500,000 candidates, docs/results/scale.md); smaller ones are live.
SUMMARY_CACHE_MIN_PROBLEMS = 10_000

# Plot geometry (SVG user units).
_W, _H = 560, 220
_LEFT, _RIGHT, _TOP, _BOTTOM = 44, 12, 14, 36


def _finite(value: Any) -> float | None:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def histogram_svg(histogram: Mapping[str, Any] | None, *, threshold: float | None = None,
                  title: str = "ParaQD scores of valid and invalid pairs") -> SafeString:
    """An inline SVG of two score histograms (valid and invalid gold pairs) on shared bins.

    ``histogram`` = ``{"edges": [n + 1 floats], "valid": [n ints], "invalid": [n ints]}``. Each
    class is drawn as its share of that class's pairs, so classes of different sizes compare;
    the counts are in each bar's tooltip. Returns an empty string for a missing or malformed
    histogram. Every value is a formatted number and the title is escaped: the SVG is safe markup.
    """
    if not isinstance(histogram, Mapping):
        return mark_safe("")
    edges = [_finite(e) for e in histogram.get("edges") or []]
    valid = [int(_finite(v) or 0) for v in histogram.get("valid") or []]
    invalid = [int(_finite(v) or 0) for v in histogram.get("invalid") or []]
    bins = len(edges) - 1
    if bins < 1 or None in edges or len(valid) != bins or len(invalid) != bins or edges[-1] <= edges[0]:
        return mark_safe("")
    lo, hi = edges[0], edges[-1]
    n_valid, n_invalid = sum(valid), sum(invalid)
    share_valid = [v / n_valid if n_valid else 0.0 for v in valid]
    share_invalid = [v / n_invalid if n_invalid else 0.0 for v in invalid]
    top = max(share_valid + share_invalid + [0.0]) or 1.0
    plot_w, plot_h = _W - _LEFT - _RIGHT, _H - _TOP - _BOTTOM

    def x(value: float) -> float:
        return _LEFT + (value - lo) / (hi - lo) * plot_w

    def y(share: float) -> float:
        return _TOP + plot_h - share / top * plot_h

    # Numbers are formatted here (floats and ints only); the one text, the title, is escaped.
    parts: list[str] = [
        f'<svg viewBox="0 0 {_W} {_H}" role="img" aria-labelledby="hist-title hist-desc" '
        f'xmlns="http://www.w3.org/2000/svg"><title id="hist-title">{escape(title)}</title>'
        f'<desc id="hist-desc">{n_valid} valid and {n_invalid} invalid gold pairs; bars show each '
        "class&#x27;s share per score bin.</desc>"
    ]
    for i in range(bins):
        x0, x1 = x(edges[i]), x(edges[i + 1])
        width = max(x1 - x0 - 1, 0.5)
        for cls, shares, counts, total in (("invalid", share_invalid, invalid, n_invalid),
                                           ("valid", share_valid, valid, n_valid)):
            if not counts[i]:
                continue
            top_y = y(shares[i])
            parts.append(
                f'<rect class="bar-{cls}" x="{x0 + 0.5:.1f}" y="{top_y:.1f}" width="{width:.1f}" '
                f'height="{_TOP + plot_h - top_y:.1f}"><title>{cls}: {counts[i]} of {total} pairs with a score '
                f"in [{edges[i]:.2f}, {edges[i + 1]:.2f})</title></rect>"
            )
    base = _TOP + plot_h
    parts.append(f'<line class="axis" x1="{_LEFT}" y1="{base:.1f}" x2="{_W - _RIGHT}" y2="{base:.1f}"/>')
    parts.append(f'<line class="axis" x1="{_LEFT}" y1="{_TOP}" x2="{_LEFT}" y2="{base:.1f}"/>')
    for k in range(5):
        tick = lo + (hi - lo) * k / 4
        parts.append(f'<text x="{x(tick):.1f}" y="{base + 14:.1f}" text-anchor="middle">{round(tick, 2):g}</text>')
    parts.append(f'<text x="{_LEFT + plot_w / 2:.1f}" y="{_H - 4}" text-anchor="middle">ParaQD score (cosine)</text>')
    parts.append(f'<text x="{_LEFT - 4}" y="{_TOP + 4:.1f}" text-anchor="end">{top * 100:.0f}%</text>')
    parts.append(f'<text x="{_LEFT - 4}" y="{base:.1f}" text-anchor="end">0</text>')
    threshold = _finite(threshold)
    if threshold is not None and lo <= threshold <= hi:
        tx = x(threshold)
        parts.append(
            f'<line class="threshold" x1="{tx:.1f}" y1="{_TOP}" x2="{tx:.1f}" y2="{base:.1f}">'
            f"<title>threshold {threshold:g}</title></line>"
            f'<text x="{tx:.1f}" y="{_TOP - 3}" text-anchor="middle">threshold {threshold:g}</text>'
        )
    parts.append("</svg>")
    return mark_safe("".join(parts))  # noqa: S308 - numbers formatted above, the title escaped


def pqi_plot_svg(by_generator: Mapping[str, Mapping[str, Any]] | None) -> SafeString:
    """An inline SVG of mean PQI per generator (horizontal bars on [0, 1], a whisker of ± one
    standard deviation) with a dot at the share of its human-labelled candidates that are valid.
    Names are escaped and every number is formatted here: the SVG is safe markup."""
    rows = [(name, row) for name, row in (by_generator or {}).items()
            if isinstance(row, Mapping) and _finite(row.get("PQI")) is not None]
    if not rows:
        return mark_safe("")
    left, right, top, bar_h, gap = 270, 16, 22, 16, 8
    height = top + len(rows) * (bar_h + gap) + 28
    plot_w = _W - left - right

    def x(value: float) -> float:
        return left + max(0.0, min(1.0, value)) * plot_w

    parts = [
        f'<svg viewBox="0 0 {_W} {height}" role="img" aria-labelledby="pqi-title" xmlns="http://www.w3.org/2000/svg">'
        '<title id="pqi-title">Mean PQI per generator</title>'
    ]
    for i, (name, row) in enumerate(rows):
        y0 = top + i * (bar_h + gap)
        mean = float(row["PQI"])
        sd = _finite(row.get("PQI_sd")) or 0.0
        parts.append(f'<text x="{left - 6}" y="{y0 + bar_h - 4}" text-anchor="end">{escape(str(name))}</text>')
        parts.append(f'<rect class="bar-pqi" x="{left}" y="{y0}" width="{x(mean) - left:.1f}" height="{bar_h}">'
                     f'<title>{escape(str(name))}: mean PQI {mean:.3f} ± {sd:.3f} over {int(row.get("n") or 0)} '
                     "candidates</title></rect>")
        mid = y0 + bar_h / 2
        parts.append(f'<line class="spread" x1="{x(mean - sd):.1f}" y1="{mid:.1f}" x2="{x(mean + sd):.1f}" '
                     f'y2="{mid:.1f}"/>')
        share = _finite(row.get("human_valid_share"))
        if share is not None:
            parts.append(f'<circle class="human-valid" cx="{x(share):.1f}" cy="{mid:.1f}" r="5"><title>'
                         f'{share * 100:.0f}% of {int(row.get("labelled") or 0)} labelled candidates valid'
                         "</title></circle>")
    base = top + len(rows) * (bar_h + gap)
    parts.append(f'<line class="axis" x1="{left}" y1="{base}" x2="{_W - right}" y2="{base}"/>')
    for k in range(6):
        tick = k / 5
        parts.append(f'<text x="{x(tick):.1f}" y="{base + 14}" text-anchor="middle">{tick:g}</text>')
    parts.append("</svg>")
    return mark_safe("".join(parts))  # noqa: S308 - numbers formatted above, names escaped


def _url(name: str, default: str = "") -> str:
    try:
        return reverse(name)
    except NoReverseMatch:
        return default


def _model_context(dataset: Dataset) -> dict[str, Any]:
    active = modelversion_active(kind=PARAQD_KIND)
    latest = modelversion_list(kind=PARAQD_KIND).first()
    evaluation = None
    if active is not None:
        evaluation = ((active.metrics or {}).get("eval") or {}).get(dataset.name)
    threshold = paraqd_threshold()
    if isinstance(evaluation, Mapping) and _finite(evaluation.get("threshold")) is not None:
        threshold = float(evaluation["threshold"])
    # The gate that decided the newest retrain: the newest version's (a kept candidate's report,
    # or the promoted one's), else the active version's.
    gate_version = None
    for version in (latest, active):
        if version is not None and isinstance((version.metrics or {}).get("gate"), Mapping):
            gate_version = version
            break
    histogram = evaluation.get("histogram") if isinstance(evaluation, Mapping) else None
    heldout_histogram = False
    if histogram is None and active is not None:
        # A retrained version without an eval_paraqd run: its gate's held-out gold split.
        candidate = ((active.metrics or {}).get("gate") or {}).get("candidate")
        if isinstance(candidate, Mapping) and isinstance(candidate.get("histogram"), Mapping):
            histogram, heldout_histogram = candidate["histogram"], True
    return {
        "active": active,
        "latest": latest,
        "evaluation": evaluation if isinstance(evaluation, Mapping) else None,
        "threshold": threshold,
        "histogram": histogram_svg(histogram, threshold=threshold),
        "heldout_histogram": heldout_histogram,
        "gate_version": gate_version,
        "gate": gate_version.metrics["gate"] if gate_version is not None else None,
    }


def _active(kind: str):
    return modelversion_active(kind=kind)


def _large(dataset: Dataset) -> bool:
    return dataset.problems.order_by()[:SUMMARY_CACHE_MIN_PROBLEMS].count() >= SUMMARY_CACHE_MIN_PROBLEMS


def _summaries_key(dataset: Dataset) -> str:
    judge = current_decision()
    # The deciding judge and its threshold are in the key: a new version or a recalibration shows at once.
    # v2: the summaries carry judged_gold (an entry written before it would lack it).
    return f"paralab:dashboard:v2:{dataset.pk}:{dataset.labels_per_item}:{judge.version_id}:{judge.threshold}"


def _compute_summaries(dataset: Dataset) -> dict[str, Any]:
    return {
        "agreement": dataset_agreement(dataset=dataset, pairs_limit=AGREEMENT_PAIRS_SHOWN),
        "human_human": disagreement_summary(dataset=dataset, kind="human_human", limit=DISAGREEMENTS_SHOWN),
        "human_model": disagreement_summary(dataset=dataset, kind="human_model", limit=DISAGREEMENTS_SHOWN),
        "judged_gold": judged_gold(dataset=dataset),
        "pqi": pqi_by_generator(dataset=dataset),
        "at": timezone.now(),
    }


def dashboard_summaries_refresh() -> int:
    """Compute the summaries of every large dataset into the cache (beat runs this every half
    ``PARALAB_DASHBOARD_CACHE_S`` through ``paralab.dashboard.refresh``; with a shared cache,
    ``PARALAB_CACHE_URL``, the web processes then always find them). Returns how many."""
    ttl = settings.PARALAB_DASHBOARD_CACHE_S
    if ttl <= 0:
        return 0
    done = 0
    for dataset in Dataset.objects.order_by("pk"):
        if _large(dataset):
            cache.set(_summaries_key(dataset), _compute_summaries(dataset), ttl)
            done += 1
    return done


def _summaries(dataset: Dataset) -> dict[str, Any]:
    """Agreement, the two disagreement summaries and PQI per generator of ``dataset``: computed
    now, or for a large dataset taken from the cache when computed in the last
    ``PARALAB_DASHBOARD_CACHE_S`` seconds (``large``: kept in the cache; ``cached``: taken from
    it; ``at``: when they were computed)."""
    large = _large(dataset)
    ttl = settings.PARALAB_DASHBOARD_CACHE_S
    key = _summaries_key(dataset)
    if large and ttl > 0:
        hit = cache.get(key)
        if hit is not None:
            return {**hit, "cached": True, "large": True}
    summaries = _compute_summaries(dataset)
    if large and ttl > 0:
        cache.set(key, summaries, ttl)
    return {**summaries, "cached": False, "large": large and ttl > 0}


@require_safe
@login_required
def dashboard_page(request):
    """Staff only (403 for annotators, like /jobs/). ``?dataset=ID`` picks the dataset."""
    if not request.user.is_staff:
        raise PermissionDenied("The dashboard is for staff.")
    datasets = list(Dataset.objects.order_by("name"))
    requested = request.GET.get("dataset", "")
    dataset = next((d for d in datasets if str(d.pk) == requested), None)
    if dataset is None and datasets:
        dataset = datasets[0]
    context: dict[str, Any] = {
        "datasets": datasets,
        "dataset": dataset,
        "models_url": _url("model-list"),
        "retrain_url": "/api/v1/models/paraqd/retrain/",
    }
    if dataset is not None:
        summaries = _summaries(dataset)
        human_human, human_model, pqi = summaries["human_human"], summaries["human_model"], summaries["pqi"]
        context.update({
            "progress": dataset_progress(dataset=dataset),
            "coverage": dataset_coverage(dataset=dataset),
            "judge": current_decision(),
            "judge_warnings": _deciding_warnings(),
            "judged_gold": summaries["judged_gold"],
            "agreement": summaries["agreement"],
            "summaries_at": summaries["at"] if summaries["large"] else None,
            "summaries_every": settings.PARALAB_DASHBOARD_CACHE_S,
            "human_human": human_human["rows"],
            "human_human_count": human_human["count"],
            "human_human_pending": human_human["pending"],
            "human_model": human_model["rows"],
            "human_model_count": human_model["count"],
            **_model_context(dataset),
        })
        context.update({"pqi": pqi, "pqi_plot": pqi_plot_svg(pqi["by_generator"])})
        context["scanning"] = {
            "stead": _active("stead"), "pap": _active("pap"),
            "corpus": Candidate.objects.filter(generator="stead").exclude(selected_by="").count(),
        }
    return render(request, "dashboard/dashboard.html", context)


@require_POST
@login_required
def scanning_start_page(request):
    """The dashboard's SCANNING form: queue the whole chain as one job, then the jobs page."""
    if not request.user.is_staff:
        raise PermissionDenied("Generation is for staff.")
    try:
        job = scanning_start(dataset_names=[n for n in request.POST.getlist("datasets") if n],
                             eval_dataset=request.POST.get("eval_dataset", ""),
                             preset=request.POST.get("preset") or None, user=request.user)
    except ScanningError as exc:
        messages.error(request, f"SCANNING not started: {exc}")
        return redirect(reverse("dashboard"))
    messages.success(request, job_started_message(job, "SCANNING"))
    return redirect(reverse("job-list"))


def _deciding_warnings() -> list[str]:
    """The deciding model's warnings (below chance or below its base; ``model_warnings``)."""
    return model_warnings(decision_version())
