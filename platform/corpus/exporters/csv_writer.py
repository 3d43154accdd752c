"""The CSV writer: rows to CSV (csv.writer, "\r\n"), cells flattened and escaped, in pieces of
about ``PIECE_CHARS``."""
from __future__ import annotations

import csv
import io
import json
from datetime import date, datetime
from typing import Any, Iterable, Iterator

from paraphrases.models import Score

from ..models import Dataset
from .common import (
    FORMULA_PREFIXES,
    LABEL_FIELDS,
    PARAPHRASE_FIELDS,
    PIECE_CHARS,
    PROBLEM_FIELDS,
    SCORE_FIELDS,
    export_source,
)


def csv_escape(value: str) -> str:
    """Neutralise a text cell a spreadsheet would evaluate as a formula.

    >>> csv_escape("=1+2"), csv_escape("-5 apples"), csv_escape("Tom has -5")
    ("'=1+2", "'-5 apples", 'Tom has -5')
    """
    if value and value.startswith(FORMULA_PREFIXES):
        return "'" + value
    return value


def csv_cell(value: Any) -> str | int | float:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return value
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    if isinstance(value, (dict, list, tuple)):
        return csv_escape(json.dumps(value, ensure_ascii=False, sort_keys=isinstance(value, dict)))
    return csv_escape(str(value))


def csv_header(*, dataset: Dataset, what: str) -> tuple[list[str], list[str]]:
    """(columns, scorer versions): the score columns depend on the scorers used in the dataset."""
    if what == "problems":
        return list(PROBLEM_FIELDS), []
    if what == "labels":
        return list(LABEL_FIELDS), []
    if what == "variants":
        return list(export_source("variants").fields), []
    versions = list(
        Score.objects.filter(candidate__problem__dataset=dataset)
        .order_by("scorer_version")
        .values_list("scorer_version", flat=True)
        .distinct()
    )
    score_columns = [f"score.{v}.{f}" for v in versions for f in [*SCORE_FIELDS, "model_version_id", "extra"]]
    return [*PARAPHRASE_FIELDS, *score_columns], versions


def _flatten(row: dict[str, Any], versions: list[str]) -> dict[str, Any]:
    scores = row.pop("scores", None)
    if scores is None:
        return row
    for version in versions:
        score = scores.get(version) or {}
        for field in [*SCORE_FIELDS, "model_version_id", "extra"]:
            row[f"score.{version}.{field}"] = score.get(field)
    return row


def csv_pieces(rows: Iterable[dict[str, Any]], columns: list[str], versions: list[str]) -> Iterator[tuple[str, int]]:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(columns)  # the header is ours: plain identifiers, never user text
    count = 0
    for row in rows:
        flat = _flatten(row, versions)
        writer.writerow([csv_cell(flat.get(column)) for column in columns])
        count += 1
        if out.tell() >= PIECE_CHARS:
            yield out.getvalue(), count
            out.seek(0)
            out.truncate(0)
            count = 0
    if out.tell():
        yield out.getvalue(), count
