"""Reads of paraphrase candidates: the candidate list behind ``GET datasets/{id}/candidates/`` and
``/datasets/{id}/candidates/``, with each candidate's newest complete score (PQI set), its
selection and its label status."""
from __future__ import annotations

import math
from collections import defaultdict
from typing import Any

from django.db.models import Count, Exists, F, FloatField, OuterRef, Q, QuerySet, Subquery, Sum
from django.db.models.functions import Cast

from annotation.models import AnnotationItem, GoldLabel
from corpus.models import Dataset, Problem
from corpus.text import pair_checks
from modelhub.judging import decision, decision_version, handout_floor

from .models import METRIC_KEYS, SCORE_COLUMNS, Candidate, Score

LABEL_FILTERS = ("valid", "invalid", "unlabelled", "queued")


def _latest_score() -> QuerySet[Score]:
    return Score.objects.filter(candidate=OuterRef("pk"), pqi__isnull=False).order_by("-id")


def _candidate_base(
    *,
    dataset: Dataset,
    generator: str | None = None,
    min_pqi: float | None = None,
    selected: bool | None = None,
    label: str | None = None,
    problem_ids: list[int] | None = None,
) -> QuerySet[Candidate]:
    """The filtered candidates, without the per-row annotations of the list."""
    if label is not None and label not in LABEL_FILTERS:
        raise ValueError(f"label must be one of {', '.join(LABEL_FILTERS)}")
    qs = Candidate.objects.filter(problem__dataset=dataset)
    if problem_ids is not None:
        qs = qs.filter(problem_id__in=problem_ids)
    if generator:
        qs = qs.filter(generator=generator)
    if min_pqi is not None:
        qs = qs.annotate(pqi_value=Subquery(_latest_score().values("pqi")[:1])).filter(pqi_value__gte=min_pqi)
    if selected is True:
        qs = qs.exclude(selected_by="")
    elif selected is False:
        qs = qs.filter(selected_by="")
    if label in ("valid", "invalid"):
        qs = qs.filter(gold__valid=(label == "valid"))
    elif label == "unlabelled":
        qs = qs.filter(gold__isnull=True)
    elif label == "queued":
        qs = qs.filter(gold__isnull=True).filter(Exists(AnnotationItem.objects.filter(candidate=OuterRef("pk"))))
    return qs


def _candidate_rows(qs: QuerySet[Candidate]) -> QuerySet[Candidate]:
    latest = _latest_score()
    return (
        qs.select_related("problem", "gold", "annotation_item")
        .annotate(score_id=Subquery(latest.values("id")[:1]), pqi_value=Subquery(latest.values("pqi")[:1]))
        .annotate(labels_done=Count("annotation_item__labels", distinct=True))
        .order_by("problem_id", "-pqi_value", "id")
    )


def candidate_list(*, dataset: Dataset, **filters: Any) -> QuerySet[Candidate]:
    """The dataset's candidates ordered by problem, then PQI (best first), annotated with
    ``score_id`` and ``pqi_value`` (their newest complete score) and ``labels_done``.

    ``filters``: ``generator``, ``min_pqi``, ``selected``, ``problem_ids`` and ``label``:
    ``valid`` / ``invalid`` (gold), ``unlabelled`` (no gold yet), ``queued`` (an annotation item
    exists and no gold yet). For pages of it, ``candidate_pages``.
    """
    return _candidate_rows(_candidate_base(dataset=dataset, **filters))


class CandidatePages:
    """``candidate_list`` as a paginator reads it (``count()`` and slices), a page at a time.

    The list is ordered by problem first, so a page's candidates are those of a run of
    consecutive problems: a slice finds the problems at its two ends in the cheap (problem, id)
    order, counts the candidates of earlier problems, and annotates and sorts only the
    candidates of those problems. Sorting the whole annotated list took 4 s at 500,000
    candidates (benchmarks/scale.py); a page now reads a page's problems.
    """

    def __init__(self, base: QuerySet[Candidate]):
        self._base = base
        self._count: int | None = None

    def count(self) -> int:
        if self._count is None:
            self._count = self._base.order_by().count()
        return self._count

    def __len__(self) -> int:
        return self.count()

    def __getitem__(self, key):
        if isinstance(key, int):
            rows = self[key:key + 1]
            if not rows:
                raise IndexError(key)
            return rows[0]
        if key.step not in (None, 1) or (key.start or 0) < 0 or (key.stop is not None and key.stop < 0):
            raise ValueError("CandidatePages takes plain slices")
        start = key.start or 0
        stop = key.stop if key.stop is not None else self.count()
        if stop <= start:
            return []
        ends = list(self._base.order_by("problem_id", "id").values_list("problem_id", flat=True)[start:stop])
        if not ends:
            return []
        first, last = ends[0], ends[-1]
        before = self._base.filter(problem_id__lt=first).order_by().count()
        rows = list(_candidate_rows(self._base.filter(problem_id__gte=first, problem_id__lte=last)))
        return rows[start - before:stop - before]


def candidate_pages(*, dataset: Dataset, **filters: Any) -> CandidatePages:
    """``candidate_list`` for a ``Paginator`` (the page and the API): the same rows, in the same
    order, read a page at a time."""
    return CandidatePages(_candidate_base(dataset=dataset, **filters))


def scores_by_id(score_ids: list[int]) -> dict[int, Score]:
    return {s.pk: s for s in Score.objects.filter(pk__in=[i for i in score_ids if i])}


def candidate_generators(*, dataset: Dataset) -> list[str]:
    return list(
        Candidate.objects.filter(problem__dataset=dataset).order_by("generator")
        .values_list("generator", flat=True).distinct()
    )


def _gold(candidate: Candidate) -> GoldLabel | None:
    try:
        return candidate.gold
    except GoldLabel.DoesNotExist:
        return None


def _item(candidate: Candidate) -> AnnotationItem | None:
    try:
        return candidate.annotation_item
    except AnnotationItem.DoesNotExist:
        return None


def candidate_row(candidate: Candidate, score: Score | None) -> dict[str, Any]:
    """What the API and the page show of one candidate."""
    gold = _gold(candidate)
    item = _item(candidate)
    if gold is not None:
        status = "valid" if gold.valid else "invalid"
    elif item is not None:
        status = "queued"
    else:
        status = "unlabelled"
    scores = None
    if score is not None:
        scores = {"S": score.similarity, "D": score.diversity, "N": score.numeracy, "PQI": score.pqi,
                  "bleu_div": score.bleu_diversity, "wpd": score.wpd, "paraqd": score.paraqd,
                  "scorer": score.scorer_version}
    return {
        "id": candidate.pk,
        "problem": {"id": candidate.problem_id, "text": candidate.problem.text},
        "text": candidate.text,
        "checks": pair_checks(candidate.problem.text, candidate.text, item.spans if item is not None else None),
        "generator": candidate.generator,
        "prompt": candidate.prompt,
        "scores": scores,
        "selected": bool(candidate.selected_by),
        "selected_by": candidate.selected_by,
        "gold": {"valid": gold.valid, "source": gold.source} if gold is not None else None,
        "label_status": status,
        "item": item.pk if item is not None else None,
        "labels": {"done": getattr(candidate, "labels_done", 0),
                   "required": item.required_labels if item is not None else 0},
    }




# --- accepted variants (export what=variants) ---------------------------------------------------

VARIANT_FIELDS = [
    "problem_id", "problem_text", "rank", "variant_text", "status", "candidate_id", "generator", "prompt",
    "S", "D", "N", "PQI", "bleu_div", "wpd", "paraqd", "scorer", "gold_source",
]


def variant_queryset(*, dataset: Dataset, threshold: float, judge_version_id: int | None = None) -> QuerySet[Candidate]:
    """The dataset's accepted variants: gold valid, or without gold, every number kept (ν = 1), a
    ParaQD cosine above ``threshold`` (σ above (threshold + 1) / 2) and not a copy (δ > 0).
    With ``judge_version_id`` (a numeracy-aware judge deciding, ``modelhub.judging``), that judge's
    probability above ``threshold`` replaces the cosine test. Annotated with their newest complete
    score's values."""
    latest = _latest_score()
    columns = {"s_similarity": "similarity", "s_diversity": "diversity", "s_numeracy": "numeracy", "s_pqi": "pqi",
               "s_bleu": "bleu_diversity", "s_wpd": "wpd", "s_paraqd": "paraqd", "s_scorer": "scorer_version"}
    qs = Candidate.objects.filter(problem__dataset=dataset).annotate(
        **{name: Subquery(latest.values(column)[:1]) for name, column in columns.items()}
    )
    judged = Q(s_paraqd__gt=threshold)
    if judge_version_id is not None:
        verdict = Score.objects.filter(candidate=OuterRef("pk"), model_version_id=judge_version_id,
                                       probability__isnull=False).order_by("-id").values("probability")[:1]
        qs = qs.annotate(s_judge=Subquery(verdict))
        judged = Q(s_judge__gt=threshold)
    accepted = Q(gold__valid=True) | (
        Q(gold__isnull=True) & Q(s_numeracy__gte=1.0) & judged & Q(s_diversity__gt=0.0)
    )
    return qs.filter(accepted).exclude(text=F("problem__text"))


def variant_rows(*, dataset: Dataset, threshold: float, chunk_size: int = 2000, judge_version_id: int | None = None):
    """Export rows of the accepted variants, problem by problem (best PQI first within a problem);
    ``status`` is ``gold`` (humans said valid) or ``unreviewed`` (accepted on its scores)."""

    base = variant_queryset(dataset=dataset, threshold=threshold, judge_version_id=judge_version_id).select_related(
        "problem", "gold")
    last = 0
    while True:
        problem_ids = list(Problem.objects.filter(dataset=dataset, pk__gt=last).order_by("pk")
                           .values_list("pk", flat=True)[:chunk_size])
        if not problem_ids:
            return
        rank, current = 0, None
        for c in base.filter(problem_id__in=problem_ids).order_by("problem_id", F("s_pqi").desc(nulls_last=True), "id"):
            if c.problem_id != current:
                rank, current = 0, c.problem_id
            rank += 1
            gold = _gold(c)
            yield {
                "problem_id": c.problem_id, "problem_text": c.problem.text, "rank": rank, "variant_text": c.text,
                "status": "gold" if gold is not None else "unreviewed", "candidate_id": c.pk,
                "generator": c.generator, "prompt": c.prompt,
                "S": c.s_similarity, "D": c.s_diversity, "N": c.s_numeracy, "PQI": c.s_pqi, "bleu_div": c.s_bleu,
                "wpd": c.s_wpd, "paraqd": c.s_paraqd, "scorer": c.s_scorer,
                "gold_source": gold.source if gold is not None else None,
            }
        if len(problem_ids) < chunk_size:
            return
        last = problem_ids[-1]


def _variant_judge() -> dict[str, Any]:
    """The deciding judge's line (``modelhub.judging``): a ParaQD version's calibrated cosine
    threshold, or a numeracy-aware judge's handout floor (the probability a variant must exceed to
    be handed out, chosen on validation labels for a target valid share) with its version id."""
    judge = decision()
    if judge.column == "paraqd":
        return {"threshold": judge.threshold}
    return {"threshold": handout_floor(decision_version()), "judge_version_id": judge.version_id}


def variant_export_rows(dataset: Dataset, chunk_size: int):
    """The ``variants`` export's rows: :func:`variant_rows` above the deciding judge's line."""
    return variant_rows(dataset=dataset, chunk_size=chunk_size, **_variant_judge())


def variant_export_count(dataset: Dataset) -> int:
    """How many rows :func:`variant_export_rows` yields."""
    return variant_queryset(dataset=dataset, **_variant_judge()).count()


# --- scores per generator ---------------------------------------------------------------------


def latest_scores(*, dataset: Dataset, generator: str | None = None) -> dict[int, dict[str, Any]]:
    """Per generated candidate of ``dataset``: its newest complete score row (PQI set) as
    ``{"generator", "S", "D", "N", "PQI", "bleu_div", "wpd", "paraqd", "scorer"}``."""
    qs = Score.objects.filter(candidate__problem__dataset=dataset, pqi__isnull=False)
    if generator:
        qs = qs.filter(candidate__generator=generator)
    out: dict[int, dict[str, Any]] = {}
    columns = list(SCORE_COLUMNS.items())
    for row in qs.order_by("candidate_id", "-id").values(
        "candidate_id", "candidate__generator", "scorer_version", *[c for _, c in columns]
    ).iterator(chunk_size=2000):
        if row["candidate_id"] in out:
            continue
        out[row["candidate_id"]] = {"generator": row["candidate__generator"], "scorer": row["scorer_version"],
                                    **{key: row[column] for key, column in columns}}
    return out


def pqi_by_generator(*, dataset: Dataset, generator: str | None = None) -> dict[str, Any]:
    """The ``pqi`` command's JSON: per generator, the mean S, D, N, PQI, 1 − BLEU and WPD of its
    stored candidates (``n`` of them), their PQI spread (standard deviation), and — once humans
    labelled some — how many have a gold label and the share of those that are valid.

    Aggregated in the database over each candidate's newest complete score (the rows of
    ``latest_scores``), so a dataset of 500,000 candidates is not read into Python: one grouped
    statement per (generator, scorer) of sums, counts and sums of squares, combined here."""
    complete = Score.objects.filter(candidate__problem__dataset=dataset, pqi__isnull=False)
    if generator:
        complete = complete.filter(candidate__generator=generator)
    # The newest complete row of each candidate: no newer complete row of the same candidate. (An
    # anti-join: 0.7 s at 500,000 candidates, where ``id IN (MAX(id) GROUP BY candidate)`` took 6 s.)
    newer = Score.objects.filter(candidate_id=OuterRef("candidate_id"), pqi__isnull=False, id__gt=OuterRef("id"))
    newest = complete.exclude(Exists(newer))
    columns = {key: SCORE_COLUMNS[key] for key in METRIC_KEYS}
    sums = {}
    for key, column in columns.items():
        sums[f"sum_{key}"] = Sum(Cast(column, FloatField()))
        sums[f"count_{key}"] = Count(column)
    groups = (
        newest.order_by().values("candidate__generator", "scorer_version")
        .annotate(n=Count("pk"), pqi_squares=Sum(F("pqi") * F("pqi"), output_field=FloatField()),
                  labelled=Count("candidate__gold"), valid=Count("candidate__gold", filter=Q(candidate__gold__valid=True)),
                  **sums)
    )
    totals: dict[str, dict[str, float]] = {}
    scorers = set()
    for row in groups:
        scorers.add(row["scorer_version"])
        total = totals.setdefault(row["candidate__generator"], defaultdict(float))
        for name in ("n", "pqi_squares", "labelled", "valid", *sums):
            total[name] += row[name] or 0
    out: dict[str, Any] = {}
    for name in sorted(totals):
        total = totals[name]
        summary: dict[str, Any] = {"n": int(total["n"])}
        for key in METRIC_KEYS:
            count = total[f"count_{key}"]
            summary[key] = round(total[f"sum_{key}"] / count, 4) if count else None
        mean_pqi = total["sum_PQI"] / total["count_PQI"] if total["count_PQI"] else 0.0
        variance = max(0.0, total["pqi_squares"] / total["n"] - mean_pqi ** 2) if total["n"] else 0.0
        summary["PQI_sd"] = round(math.sqrt(variance), 4) if total["n"] > 1 else 0.0
        labelled, valid = int(total["labelled"]), int(total["valid"])
        summary["labelled"] = labelled
        summary["human_valid_share"] = round(valid / labelled, 4) if labelled else None
        out[name] = summary
    return {"dataset": dataset.name, "by_generator": out, "scorers": sorted(scorers)}
