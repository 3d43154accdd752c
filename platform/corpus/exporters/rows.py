"""Row readers: the queries that yield an export's rows as dicts, in keyset-paginated chunks.

Rows are read ``CHUNK_SIZE`` at a time (``id > last`` ordered by id, one query per chunk plus one
per prefetched relation) and handed on one at a time, so memory stays flat however big the dataset.
"""
from __future__ import annotations

from collections import defaultdict
from typing import Any, Callable, Iterator

from django.db.models import QuerySet

from annotation.models import GoldLabel, Label
from paraphrases.models import Candidate, Score

from ..models import Dataset, Problem
from .common import CHUNK_SIZE, PROBLEM_FIELDS, SCORE_FIELDS, WHATS, ExportError, export_source


def _keyset_chunks(
    qs: QuerySet, chunk_size: int = CHUNK_SIZE, *, pk: Callable[[Any], int] = lambda o: o.pk
) -> Iterator[list]:
    """Lists of at most ``chunk_size`` rows in id order, one query (+ prefetches) per list.

    Keyset pagination rather than OFFSET: every chunk is an index range scan, however deep.
    ``pk`` reads the id of a row (objects by default; pass one for ``.values()`` querysets).
    """
    last_pk = 0
    while True:
        chunk = list(qs.filter(pk__gt=last_pk).order_by("pk")[:chunk_size])
        if not chunk:
            return
        yield chunk
        if len(chunk) < chunk_size:
            return
        last_pk = pk(chunk[-1])


def _problem_rows(dataset: Dataset, chunk_size: int) -> Iterator[dict[str, Any]]:
    # Plain dicts straight from .values(): building model instances was a third of the time.
    qs = Problem.objects.filter(dataset=dataset).values(*PROBLEM_FIELDS)
    for chunk in _keyset_chunks(qs, chunk_size, pk=lambda row: row["id"]):
        yield from chunk


# What a paraphrase row reads of its candidate (plain .values(): no model instances, no prefetch
# objects; 500,000 rows went at 6,400 rows/s through instances, benchmarks/scale.py).
_CANDIDATE_VALUES = ["id", "problem_id", "problem__text", "text", "generator", "operator", "prompt",
                     "noise_combination", "model_version_id", "intended_valid", "gold__valid", "gold__source"]


def _paraphrase_rows(dataset: Dataset, chunk_size: int) -> Iterator[dict[str, Any]]:
    candidates = Candidate.objects.filter(problem__dataset=dataset).values(*_CANDIDATE_VALUES)
    for chunk in _keyset_chunks(candidates, chunk_size, pk=lambda row: row["id"]):
        scores: dict[int, dict[str, dict[str, Any]]] = defaultdict(dict)
        for score in (
            Score.objects.filter(candidate_id__in=[row["id"] for row in chunk])
            .order_by("scorer_version", "id")
            .values("candidate_id", "scorer_version", *SCORE_FIELDS, "model_version_id", "extra")
        ):
            candidate_id, version = score.pop("candidate_id"), score.pop("scorer_version")
            scores[candidate_id][version] = score
        for c in chunk:
            yield {
                "candidate_id": c["id"],
                "problem_id": c["problem_id"],
                "problem_text": c["problem__text"],
                "paraphrase_text": c["text"],
                "generator": c["generator"],
                "operator": c["operator"],
                "prompt": c["prompt"],
                "noise_combination": c["noise_combination"],
                "model_version_id": c["model_version_id"],
                "intended_valid": c["intended_valid"],
                "gold_valid": c["gold__valid"],
                "gold_source": c["gold__source"],
                "scores": scores.get(c["id"], {}),
            }


def _label_rows(dataset: Dataset, chunk_size: int) -> Iterator[dict[str, Any]]:
    # Only the username of a user is ever read: no e-mail, name or password hash leaves the
    # database. Plain .values() rows (model instances cost most of the time at 100,000 labels).
    labels = Label.objects.filter(item__dataset=dataset).values(
        "id", "item_id", "item__candidate_id", "item__candidate__problem_id", "item__candidate__problem__text",
        "item__candidate__text", "annotator__username", "valid", "solvability", "diversity", "fluency", "comment",
        "time_spent_ms", "created_at", "updated_at",
    )
    for chunk in _keyset_chunks(labels, chunk_size, pk=lambda row: row["id"]):
        for label in chunk:
            yield {
                "kind": "human",
                "label_id": label["id"],
                "item_id": label["item_id"],
                "candidate_id": label["item__candidate_id"],
                "problem_id": label["item__candidate__problem_id"],
                "problem_text": label["item__candidate__problem__text"],
                "paraphrase_text": label["item__candidate__text"],
                "annotator": label["annotator__username"],
                "valid": label["valid"],
                "solvability": label["solvability"],
                "diversity": label["diversity"],
                "fluency": label["fluency"],
                "comment": label["comment"],
                "time_spent_ms": label["time_spent_ms"],
                "gold_source": None,
                "created_at": label["created_at"],
                "updated_at": label["updated_at"],
            }

    golds = GoldLabel.objects.filter(candidate__problem__dataset=dataset).values(
        "id", "candidate_id", "candidate__annotation_item__id", "candidate__problem_id", "candidate__problem__text",
        "candidate__text", "decided_by__username", "valid", "note", "source", "created_at", "updated_at",
    )
    for chunk in _keyset_chunks(golds, chunk_size, pk=lambda row: row["id"]):
        for gold in chunk:
            yield {
                "kind": "gold",
                "label_id": gold["id"],
                "item_id": gold["candidate__annotation_item__id"],
                "candidate_id": gold["candidate_id"],
                "problem_id": gold["candidate__problem_id"],
                "problem_text": gold["candidate__problem__text"],
                "paraphrase_text": gold["candidate__text"],
                "annotator": gold["decided_by__username"],
                "valid": gold["valid"],
                "solvability": None,
                "diversity": None,
                "fluency": None,
                "comment": gold["note"],
                "time_spent_ms": None,
                "gold_source": gold["source"],
                "created_at": gold["created_at"],
                "updated_at": gold["updated_at"],
            }


def _variant_rows(dataset: Dataset, chunk_size: int) -> Iterator[dict[str, Any]]:
    return export_source("variants").rows(dataset, chunk_size)


_ROWS = {"problems": _problem_rows, "paraphrases": _paraphrase_rows, "labels": _label_rows,
         "variants": _variant_rows}


def dataset_export_rows(*, dataset: Dataset, what: str, chunk_size: int = CHUNK_SIZE) -> Iterator[dict[str, Any]]:
    """The rows of an export as dicts (JSON types, datetimes as ``datetime``), lazily.

    >>> next(dataset_export_rows(dataset=ds, what="problems"))["text"]
    'Natalia sold clips to 48 of her friends…'
    """
    if what not in WHATS:
        raise ExportError(f"what must be one of {', '.join(WHATS)}, got {what!r}")
    return _ROWS[what](dataset, chunk_size)


def export_count(*, dataset: Dataset, what: str) -> int:
    """How many rows ``dataset_export_rows`` yields (one COUNT query per table)."""
    if what == "problems":
        return Problem.objects.filter(dataset=dataset).count()
    if what == "paraphrases":
        return Candidate.objects.filter(problem__dataset=dataset).count()
    if what == "labels":
        return (
            Label.objects.filter(item__dataset=dataset).count()
            + GoldLabel.objects.filter(candidate__problem__dataset=dataset).count()
        )
    if what == "variants":
        return export_source("variants").count(dataset)
    raise ExportError(f"what must be one of {', '.join(WHATS)}, got {what!r}")
