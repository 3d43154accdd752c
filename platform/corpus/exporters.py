"""Export of a dataset: problems, paraphrase candidates or labels, as JSON lines or CSV.

Everything here streams. Rows are read in keyset-paginated chunks of ``CHUNK_SIZE`` (``id > last``
ordered by id, one query per chunk plus one per prefetched relation), turned into dicts one at a
time and written out in pieces of about ``PIECE_CHARS`` characters, so memory stays flat whether
a dataset has a hundred rows or a hundred thousand, and no transaction stays open while a slow
client reads a streamed response.

On PostgreSQL the database writes the lines of the big exports: JSON lines of ``paraphrases``
and ``labels`` (the same keys, order and values as the Python rows through ``json.dumps``, with
PostgreSQL's spacing) and CSV lines of ``problems``, ``paraphrases`` and ``labels`` (byte for byte
what csv.writer makes of the Python rows). SQLite, and the other exports, go through Python.

What each ``what`` writes (one row per object; JSONL keeps JSON types, CSV flattens them):

``problems``
    ``id, text, source, source_id, split, answer, equation, numbers, metadata``. The JSONL form
    is exactly what ``import_problems --format jsonl`` reads back (``id`` is informational).
``paraphrases``
    ``candidate_id, problem_id, problem_text, paraphrase_text, generator, operator, prompt,
    noise_combination, model_version_id, intended_valid, gold_valid, gold_source`` and the
    candidate's scores. A candidate has at most one Score per ``scorer_version`` (e.g.
    ``paraqd:v12``, ``metrics:1``). JSONL nests them: ``"scores": {"<scorer_version>":
    {"paraqd", "similarity", "numeracy", "bleu_diversity", "wpd", "diversity", "pqi",
    "model_version_id", "extra"}}``. CSV flattens them into columns
    ``score.<scorer_version>.<field>``, one group per scorer version present in the dataset
    (sorted), ``extra`` as a JSON string; a candidate without that score has empty cells.
``labels``
    Human labels first, then gold labels, each row ``kind`` (``human`` | ``gold``), ``label_id``,
    ``item_id, candidate_id, problem_id, problem_text, paraphrase_text, annotator, valid,
    solvability, diversity, fluency, comment, time_spent_ms, gold_source, created_at,
    updated_at``. ``annotator`` is the username and nothing else about the user (for gold rows:
    the staff member who adjudicated, or empty). For gold rows ``comment`` is the gold note,
    ``item_id`` the candidate's annotation item if it has one, and the ratings are empty.
``variants``
    Per problem (in id order), its accepted variants, best PQI first: ``problem_id, problem_text,
    rank, variant_text, status, candidate_id, generator, prompt, S, D, N, PQI, bleu_div, wpd,
    paraqd, scorer, gold_source``. Accepted = gold valid (``status`` ``gold``), or no gold yet with
    every number kept (N = 1), above the deciding judge's line (a numeracy-aware judge's
    calibrated probability above its handout floor; a ParaQD cosine above its threshold, S above
    (threshold + 1) / 2) and not a copy of the problem (``status`` ``unreviewed``). Scores are each
    candidate's newest complete score row (``paraphrases.selectors.variant_queryset``).

CSV cells: ``None`` is empty, booleans are ``true``/``false``, lists and dicts (``numbers``,
``metadata``, ``extra``) are JSON strings, datetimes ISO 8601. Any text cell starting with
``= + - @``, tab, carriage return or NUL gets a leading ``'`` so spreadsheets do not run it as a
formula (OWASP "CSV injection"); the rule looks at the first character of the whole cell only,
so "-5 apples" is escaped and "Tom has -5" is not. Cells the exporter writes from numeric fields
(ids, scores such as ``-0.31``) are numbers, not text, and are left as they are. Because of the
escaping, JSONL — not CSV — is the lossless round-trip format.

Example::

    for chunk in export_stream(dataset=ds, what="problems", fmt="jsonl"):
        out.write(chunk)
"""
from __future__ import annotations

import csv
import io
import json
import logging
import os
import tempfile
from collections import defaultdict
from datetime import date, datetime
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

from django.conf import settings
from django.core.exceptions import SuspiciousFileOperation
from django.db.models import QuerySet
from django.utils.text import get_valid_filename

from jobs import tasks

from .models import Dataset, Problem

logger = logging.getLogger("paralab.corpus.export")

WHATS = ("problems", "paraphrases", "labels", "variants")
FORMATS = ("jsonl", "csv")
CONTENT_TYPES = {"jsonl": "application/x-ndjson; charset=utf-8", "csv": "text/csv; charset=utf-8"}

CHUNK_SIZE = 2000
# Rows per query when PostgreSQL writes the JSON lines: 10,000 rows of about 1.2 KB (12 MB) a
# round trip; 57,000 rows/s against 51,000 with 2,000 (benchmarks/scale.py, 500,000 paraphrases).
SQL_CHUNK_SIZE = 10_000
PIECE_CHARS = 64 * 1024

PROBLEM_FIELDS = ["id", "text", "source", "source_id", "split", "answer", "equation", "numbers", "metadata"]
PARAPHRASE_FIELDS = [
    "candidate_id", "problem_id", "problem_text", "paraphrase_text", "generator", "operator", "prompt",
    "noise_combination", "model_version_id", "intended_valid", "gold_valid", "gold_source",
]
SCORE_FIELDS = ["paraqd", "similarity", "numeracy", "bleu_diversity", "wpd", "diversity", "pqi"]
LABEL_FIELDS = [
    "kind", "label_id", "item_id", "candidate_id", "problem_id", "problem_text", "paraphrase_text",
    "annotator", "valid", "solvability", "diversity", "fluency", "comment", "time_spent_ms",
    "gold_source", "created_at", "updated_at",
]

# OWASP: a spreadsheet treats a cell starting with one of these as a formula.
FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r", "\0")


class ExportError(ValueError):
    """A bad export request (unknown ``what`` or format)."""


def export_validate(*, what: str, fmt: str) -> None:
    if what not in WHATS:
        raise ExportError(f"what must be one of {', '.join(WHATS)}, got {what!r}")
    if fmt not in FORMATS:
        raise ExportError(f"format must be one of {', '.join(FORMATS)}, got {fmt!r}")


def safe_filename(name: str, default: str) -> str:
    """``name`` reduced to letters, digits, ``-``, ``_`` and ``.``; ``default`` when nothing is left."""
    try:
        return get_valid_filename(name.replace(" ", "-"))
    except SuspiciousFileOperation:  # "", "." or ".." once cleaned
        return default


def export_filename(*, dataset: Dataset, what: str, fmt: str) -> str:
    """``gsm8k-train-problems.jsonl``: a name safe for Content-Disposition and the file system."""
    return f"{safe_filename(dataset.name, f'dataset-{dataset.pk}')}-{what}.{fmt}"


# --- reading rows ------------------------------------------------------------------------------


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
    from paraphrases.models import Candidate, Score

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
    from annotation.models import GoldLabel, Label

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


def _variant_judge() -> dict[str, Any]:
    """The deciding judge's line (``modelhub.judging``): a ParaQD version's calibrated cosine
    threshold, or a numeracy-aware judge's handout floor (the probability a variant must exceed to
    be handed out, chosen on validation labels for a target valid share) with its version id."""
    from modelhub.judging import decision, decision_version, handout_floor

    judge = decision()
    if judge.column == "paraqd":
        return {"threshold": judge.threshold}
    return {"threshold": handout_floor(decision_version()), "judge_version_id": judge.version_id}


def _variant_rows(dataset: Dataset, chunk_size: int) -> Iterator[dict[str, Any]]:
    from paraphrases.selectors import variant_rows

    return variant_rows(dataset=dataset, chunk_size=chunk_size, **_variant_judge())


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
    from annotation.models import GoldLabel, Label
    from paraphrases.models import Candidate

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
        from paraphrases.selectors import variant_queryset

        return variant_queryset(dataset=dataset, **_variant_judge()).count()
    raise ExportError(f"what must be one of {', '.join(WHATS)}, got {what!r}")


# --- writing rows ------------------------------------------------------------------------------


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


def _json_default(value: Any) -> Any:
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")


def _jsonl_pieces(rows: Iterable[dict[str, Any]]) -> Iterator[tuple[str, int]]:
    """(piece, rows in it) for JSON lines, pieces of about PIECE_CHARS characters."""
    buf: list[str] = []
    size = count = 0
    for row in rows:
        line = json.dumps(row, ensure_ascii=False, default=_json_default) + "\n"
        buf.append(line)
        size += len(line)
        count += 1
        if size >= PIECE_CHARS:
            yield "".join(buf), count
            buf, size, count = [], 0, 0
    if buf:
        yield "".join(buf), count


def _csv_header(*, dataset: Dataset, what: str) -> tuple[list[str], list[str]]:
    """(columns, scorer versions): the score columns depend on the scorers used in the dataset."""
    if what == "problems":
        return list(PROBLEM_FIELDS), []
    if what == "labels":
        return list(LABEL_FIELDS), []
    if what == "variants":
        from paraphrases.selectors import VARIANT_FIELDS

        return list(VARIANT_FIELDS), []
    from paraphrases.models import Score

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


def _csv_pieces(rows: Iterable[dict[str, Any]], columns: list[str], versions: list[str]) -> Iterator[tuple[str, int]]:
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


def _paraphrase_lines_sql(dataset: Dataset, chunk_size: int) -> Iterator[str]:
    """The paraphrase rows as JSON lines written by PostgreSQL (``json_build_object``): the same
    keys, in the same order, and values as ``_paraphrase_rows`` through ``json.dumps``, with
    PostgreSQL's spacing (``"key" : value``). Serialising 500,000 rows in Python ran at 20,000
    rows/s here; in PostgreSQL the process only moves text (benchmarks/scale.py)."""
    from annotation.models import GoldLabel
    from paraphrases.models import Candidate, Score

    candidate, problem = Candidate._meta.db_table, Problem._meta.db_table
    gold, score = GoldLabel._meta.db_table, Score._meta.db_table
    score_fields = ", ".join(f"'{field}', s.{field}" for field in [*SCORE_FIELDS, "model_version_id", "extra"])
    sql = f"""
        SELECT c.id, json_build_object(
            'candidate_id', c.id, 'problem_id', c.problem_id, 'problem_text', p.text, 'paraphrase_text', c.text,
            'generator', c.generator, 'operator', c.operator, 'prompt', c.prompt,
            'noise_combination', c.noise_combination, 'model_version_id', c.model_version_id,
            'intended_valid', c.intended_valid, 'gold_valid', g.valid, 'gold_source', g.source,
            'scores', COALESCE((SELECT json_object_agg(s.scorer_version, json_build_object({score_fields})
                                                        ORDER BY s.scorer_version, s.id)
                                FROM {score} s WHERE s.candidate_id = c.id), '{{}}'::json)
        )::text
        FROM {candidate} c JOIN {problem} p ON p.id = c.problem_id LEFT JOIN {gold} g ON g.candidate_id = c.id
        WHERE p.dataset_id = %(dataset)s AND c.id > %(last)s ORDER BY c.id LIMIT %(limit)s"""
    yield from _keyset_lines(sql, {"dataset": dataset.pk}, chunk_size)


def _iso(column: str) -> str:
    """SQL writing a timestamptz as Python's ``datetime.isoformat()`` does in UTC: microseconds
    only when there are some, ``+00:00`` for the zone."""
    utc = f"({column} AT TIME ZONE 'UTC')"
    return (f"to_char({utc}, 'YYYY-MM-DD\"T\"HH24:MI:SS') || CASE WHEN "
            f"mod(date_part('microseconds', {utc})::bigint, 1000000) = 0 THEN '' ELSE to_char({utc}, '.US') END "
            "|| '+00:00'")


def _keyset_rows(sql: str, params: dict[str, Any], chunk_size: int) -> Iterator[tuple]:
    """Rows of ``sql`` (selecting the keyset id first, with ``%(last)s`` for the last id and
    ``%(limit)s`` for the chunk's size among its named parameters), chunk after chunk."""
    from django.db import connection

    last = 0
    while True:
        with connection.cursor() as cursor:
            cursor.execute(sql, {**params, "last": last, "limit": chunk_size})
            rows = cursor.fetchall()
        if not rows:
            return
        yield from rows
        if len(rows) < chunk_size:
            return
        last = rows[-1][0]


def _keyset_lines(sql: str, params: dict[str, Any], chunk_size: int) -> Iterator[str]:
    """The lines of ``sql`` selecting ``id, line`` (``_keyset_rows``)."""
    for _, line in _keyset_rows(sql, params, chunk_size):
        yield line


def _label_from() -> tuple[str, str]:
    """(human, gold): the FROM … LIMIT of the label rows (``%(dataset)s``, ``%(last)s``, ``%(limit)s``)."""
    from django.contrib.auth import get_user_model

    from annotation.models import AnnotationItem, GoldLabel, Label
    from paraphrases.models import Candidate

    label, item, gold_table = Label._meta.db_table, AnnotationItem._meta.db_table, GoldLabel._meta.db_table
    candidate, problem, user = Candidate._meta.db_table, Problem._meta.db_table, get_user_model()._meta.db_table
    human = f"""
        FROM {label} l JOIN {item} i ON i.id = l.item_id JOIN {candidate} c ON c.id = i.candidate_id
        JOIN {problem} p ON p.id = c.problem_id JOIN {user} u ON u.id = l.annotator_id
        WHERE i.dataset_id = %(dataset)s AND l.id > %(last)s ORDER BY l.id LIMIT %(limit)s"""
    gold = f"""
        FROM {gold_table} g JOIN {candidate} c ON c.id = g.candidate_id JOIN {problem} p ON p.id = c.problem_id
        LEFT JOIN {item} i ON i.candidate_id = c.id LEFT JOIN {user} u ON u.id = g.decided_by_id
        WHERE p.dataset_id = %(dataset)s AND g.id > %(last)s ORDER BY g.id LIMIT %(limit)s"""
    return human, gold


def _label_lines_sql(dataset: Dataset, chunk_size: int) -> Iterator[str]:
    """The label rows as JSON lines written by PostgreSQL, as ``_label_rows`` through ``json.dumps``:
    human labels, then gold labels, the same keys, order and values."""
    human_from, gold_from = _label_from()
    human = f"""
        SELECT l.id, json_build_object(
            'kind', 'human', 'label_id', l.id, 'item_id', l.item_id, 'candidate_id', c.id, 'problem_id', c.problem_id,
            'problem_text', p.text, 'paraphrase_text', c.text, 'annotator', u.username, 'valid', l.valid,
            'solvability', l.solvability, 'diversity', l.diversity, 'fluency', l.fluency, 'comment', l.comment,
            'time_spent_ms', l.time_spent_ms, 'gold_source', NULL,
            'created_at', {_iso('l.created_at')}, 'updated_at', {_iso('l.updated_at')})::text {human_from}"""
    golds = f"""
        SELECT g.id, json_build_object(
            'kind', 'gold', 'label_id', g.id, 'item_id', i.id, 'candidate_id', c.id, 'problem_id', c.problem_id,
            'problem_text', p.text, 'paraphrase_text', c.text, 'annotator', u.username, 'valid', g.valid,
            'solvability', NULL, 'diversity', NULL, 'fluency', NULL, 'comment', g.note, 'time_spent_ms', NULL,
            'gold_source', g.source, 'created_at', {_iso('g.created_at')}, 'updated_at', {_iso('g.updated_at')})::text
        {gold_from}"""
    yield from _keyset_lines(human, {"dataset": dataset.pk}, chunk_size)
    yield from _keyset_lines(golds, {"dataset": dataset.pk}, chunk_size)


# --- CSV written by PostgreSQL -----------------------------------------------------------------
#
# The same text as ``_csv_pieces`` (csv.writer, QUOTE_MINIMAL, "\r\n") cell for cell: each cell an
# SQL expression by its kind, a line one concatenation. A JSON cell other than NULL, {} and []
# comes back as jsonb text and is written by Python as ``csv_cell`` writes it (keys sorted; jsonb
# orders keys by length first). Through Python rows, 500,000 paraphrases went at 16,500 rows/s.

# FORMULA_PREFIXES as SQL (a PostgreSQL text never holds NUL).
_FORMULA_SQL = "(" + ", ".join(f"chr({ord(c)})" for c in FORMULA_PREFIXES if c != "\0") + ")"


def _csv_cell_sql(kind: str, x: str) -> str:
    """An SQL expression writing the value ``x`` as ``csv_cell`` and csv.writer do."""
    if kind == "raw":  # an SQL literal that needs no quoting
        return x
    if kind == "int":
        return f"COALESCE(({x})::text, '')"
    if kind == "bool":
        return f"CASE WHEN {x} THEN 'true' WHEN NOT {x} THEN 'false' ELSE '' END"
    if kind == "timestamp":
        return f"CASE WHEN {x} IS NULL THEN '' ELSE {_iso(x)} END"
    if kind == "float":
        # repr(float): '1.0' for integral values, fixed notation below 1e16 (PostgreSQL's shortest
        # form takes an exponent from 1e15), 'nan' and 'inf'; otherwise PostgreSQL's shortest
        # round-trip digits, which are Python's.
        mantissa = f"replace(split_part(abs({x})::text, 'e', 1), '.', '')"
        return (f"CASE WHEN {x} IS NULL THEN '' WHEN {x} = 'NaN'::float8 THEN 'nan' "
                f"WHEN {x} = 'Infinity'::float8 THEN 'inf' WHEN {x} = '-Infinity'::float8 THEN '-inf' "
                f"WHEN {x} = 0 THEN CASE WHEN ({x})::text = '-0' THEN '-0.0' ELSE '0.0' END "
                f"WHEN {x} = trunc({x}) AND abs({x}) < 1e16 THEN ({x})::bigint::text || '.0' "
                f"WHEN abs({x}) >= 1e15 AND abs({x}) < 1e16 THEN CASE WHEN {x} < 0 THEN '-' ELSE '' END "
                f"|| left({mantissa}, 16) || '.' || substr({mantissa}, 17) "
                f"ELSE ({x})::text END")
    if kind == "text":
        escaped = f"CASE WHEN left({x}, 1) IN {_FORMULA_SQL} THEN '''' || {x} ELSE {x} END"
        special = f"strpos({x}, ',') + strpos({x}, '\"') + strpos({x}, chr(10)) + strpos({x}, chr(13)) > 0"
        return (f"CASE WHEN {x} IS NULL THEN '' "
                f"WHEN {special} THEN '\"' || replace({escaped}, '\"', '\"\"') || '\"' ELSE {escaped} END")
    raise ValueError(f"unknown CSV cell kind {kind!r}")


def _csv_select(cells: list[tuple[str, str]]) -> tuple[str, int]:
    """(select list, JSON cells) for a CSV line of ``cells`` ((kind, SQL expression) pairs): the
    line's text between JSON cells and, per JSON cell, its finished text (NULL, {} and []) or
    else its jsonb text for Python. ``_csv_line`` joins them."""
    parts: list[str] = []
    current: list[str] = []
    for i, (kind, x) in enumerate(cells):
        if i:
            current.append("','")
        if kind == "json":
            parts.append(" || ".join(current) or "''")
            current = []
            trivial = f"({x}) IN ('{{}}'::jsonb, '[]'::jsonb)"
            parts.append(f"CASE WHEN {x} IS NULL THEN '' WHEN {trivial} THEN ({x})::text END")
            parts.append(f"CASE WHEN {x} IS NOT NULL AND NOT {trivial} THEN ({x})::text END")
        else:
            current.append(_csv_cell_sql(kind, x))
    parts.append(" || ".join(current) or "''")
    return ", ".join(f"({part})" for part in parts), (len(parts) - 1) // 3


def _csv_quote(cell: str) -> str:
    """csv.writer's QUOTE_MINIMAL with "\r\n" lines, for one cell."""
    if "," in cell or '"' in cell or "\r" in cell or "\n" in cell:
        return '"' + cell.replace('"', '""') + '"'
    return cell


def _json_csv_cell(text: str) -> str:
    cell = csv_cell(json.loads(text))
    return _csv_quote(cell) if isinstance(cell, str) else repr(cell)


def _csv_line(row: tuple, json_cells: int) -> str:
    if not json_cells:
        return row[1]
    parts = [row[1]]
    for k in range(json_cells):
        finished, text, after = row[2 + 3 * k:5 + 3 * k]
        parts.append(finished if finished is not None else _json_csv_cell(text))
        parts.append(after)
    return "".join(parts)


def _keyset_csv_lines(cells: list[tuple[str, str]], from_sql: str, id_sql: str, params: dict[str, Any],
                      chunk_size: int) -> Iterator[str]:
    """CSV lines (no terminator) of ``cells`` over ``from_sql`` (FROM … LIMIT, with ``%(last)s``
    and ``%(limit)s`` among its named parameters), keyset-paginated on ``id_sql``."""
    select, json_cells = _csv_select(cells)
    for row in _keyset_rows(f"SELECT {id_sql}, {select} {from_sql}", params, chunk_size):
        yield _csv_line(row, json_cells)


def _problem_csv_sql(dataset: Dataset, versions: list[str], chunk_size: int) -> Iterator[str]:
    cells = [("int", "p.id"), ("text", "p.text"), ("text", "p.source"), ("text", "p.source_id"),
             ("text", "p.split"), ("text", "p.answer"), ("text", "p.equation"), ("json", "p.numbers"),
             ("json", "p.metadata")]
    from_sql = (f"FROM {Problem._meta.db_table} p WHERE p.dataset_id = %(dataset)s AND p.id > %(last)s "
                "ORDER BY p.id LIMIT %(limit)s")
    yield from _keyset_csv_lines(cells, from_sql, "p.id", {"dataset": dataset.pk}, chunk_size)


def _paraphrase_csv_sql(dataset: Dataset, versions: list[str], chunk_size: int) -> Iterator[str]:
    """The candidate's columns, then per scorer version in ``versions`` its Score's (at most one
    per candidate and version: ``score_unique_per_scorer``; one gold label per candidate). The
    chunk's candidates are chosen first and their scores looked up one by one (LATERAL … LIMIT
    1): joined to the whole score table, each chunk's merge or hash join read the scores from the
    first candidate on, and 500,000 rows went at 42,000 rows/s instead of 91,000."""
    from annotation.models import GoldLabel
    from paraphrases.models import Candidate, Score

    cells = [("int", "c.id"), ("int", "c.problem_id"), ("text", "c.problem_text"), ("text", "c.text"),
             ("text", "c.generator"), ("text", "c.operator"), ("text", "c.prompt"), ("text", "c.noise_combination"),
             ("int", "c.model_version_id"), ("bool", "c.intended_valid"), ("bool", "g.valid"), ("text", "g.source")]
    joins = []
    for k in range(len(versions)):
        cells += [("float", f"s{k}.{field}") for field in SCORE_FIELDS]
        cells += [("int", f"s{k}.model_version_id"), ("json", f"s{k}.extra")]
        joins.append(f"LEFT JOIN LATERAL (SELECT * FROM {Score._meta.db_table} s WHERE s.candidate_id = c.id "
                     f"AND s.scorer_version = %(v{k})s LIMIT 1) s{k} ON true")
    from_sql = f"""
        FROM (SELECT c.id, c.problem_id, p.text AS problem_text, c.text, c.generator, c.operator, c.prompt,
                     c.noise_combination, c.model_version_id, c.intended_valid
              FROM {Candidate._meta.db_table} c JOIN {Problem._meta.db_table} p ON p.id = c.problem_id
              WHERE p.dataset_id = %(dataset)s AND c.id > %(last)s ORDER BY c.id LIMIT %(limit)s) c
        LEFT JOIN LATERAL (SELECT g.valid, g.source FROM {GoldLabel._meta.db_table} g
                           WHERE g.candidate_id = c.id LIMIT 1) g ON true {" ".join(joins)}
        ORDER BY c.id"""
    params = {"dataset": dataset.pk, **{f"v{k}": version for k, version in enumerate(versions)}}
    yield from _keyset_csv_lines(cells, from_sql, "c.id", params, chunk_size)


def _label_csv_sql(dataset: Dataset, versions: list[str], chunk_size: int) -> Iterator[str]:
    human_from, gold_from = _label_from()
    texts = [("text", "p.text"), ("text", "c.text"), ("text", "u.username")]
    human = [("raw", "'human'"), ("int", "l.id"), ("int", "l.item_id"), ("int", "c.id"), ("int", "c.problem_id"),
             *texts, ("bool", "l.valid"), ("int", "l.solvability"), ("int", "l.diversity"), ("int", "l.fluency"),
             ("text", "l.comment"), ("int", "l.time_spent_ms"), ("raw", "''"),
             ("timestamp", "l.created_at"), ("timestamp", "l.updated_at")]
    gold = [("raw", "'gold'"), ("int", "g.id"), ("int", "i.id"), ("int", "c.id"), ("int", "c.problem_id"),
            *texts, ("bool", "g.valid"), ("raw", "''"), ("raw", "''"), ("raw", "''"),
            ("text", "g.note"), ("raw", "''"), ("text", "g.source"),
            ("timestamp", "g.created_at"), ("timestamp", "g.updated_at")]
    yield from _keyset_csv_lines(human, human_from, "l.id", {"dataset": dataset.pk}, chunk_size)
    yield from _keyset_csv_lines(gold, gold_from, "g.id", {"dataset": dataset.pk}, chunk_size)


_SQL_CSV = {"problems": _problem_csv_sql, "paraphrases": _paraphrase_csv_sql, "labels": _label_csv_sql}


_SQL_LINES = {"paraphrases": _paraphrase_lines_sql, "labels": _label_lines_sql}


def _line_pieces(lines: Iterable[str], end: str = "\n") -> Iterator[tuple[str, int]]:
    buf: list[str] = []
    size = count = 0
    for line in lines:
        buf.append(line)
        buf.append(end)
        size += len(line) + len(end)
        count += 1
        if size >= PIECE_CHARS:
            yield "".join(buf), count
            buf, size, count = [], 0, 0
    if buf:
        yield "".join(buf), count


def _export_pieces(*, dataset: Dataset, what: str, fmt: str, chunk_size: int = CHUNK_SIZE) -> Iterator[tuple[str, int]]:
    from django.db import connection

    export_validate(what=what, fmt=fmt)
    if fmt == "jsonl" and what in _SQL_LINES and connection.vendor == "postgresql":
        rows = SQL_CHUNK_SIZE if chunk_size == CHUNK_SIZE else chunk_size
        yield from _line_pieces(_SQL_LINES[what](dataset, rows))
        return
    if fmt == "csv" and what in _SQL_CSV and connection.vendor == "postgresql":
        columns, versions = _csv_header(dataset=dataset, what=what)
        header = io.StringIO()
        csv.writer(header, lineterminator="\r\n").writerow(columns)  # our identifiers, never user text
        yield header.getvalue(), 0
        rows = SQL_CHUNK_SIZE if chunk_size == CHUNK_SIZE else chunk_size
        yield from _line_pieces(_SQL_CSV[what](dataset, versions, rows), "\r\n")
        return
    rows = dataset_export_rows(dataset=dataset, what=what, chunk_size=chunk_size)
    if fmt == "jsonl":
        yield from _jsonl_pieces(rows)
    else:
        columns, versions = _csv_header(dataset=dataset, what=what)
        yield from _csv_pieces(rows, columns, versions)


def export_stream(*, dataset: Dataset, what: str, fmt: str, chunk_size: int = CHUNK_SIZE) -> Iterator[str]:
    """The export as text chunks of about 64 KiB, for a StreamingHttpResponse or a file.

    Validates ``what`` and ``fmt`` up front (raises ``ExportError``), then streams lazily.
    """
    export_validate(what=what, fmt=fmt)
    return (piece for piece, _ in _export_pieces(dataset=dataset, what=what, fmt=fmt, chunk_size=chunk_size))


# --- services ----------------------------------------------------------------------------------


def dataset_export_to_file(
    *,
    dataset: Dataset,
    what: str,
    fmt: str,
    path: str | os.PathLike,
    progress: Callable[[float], None] | None = None,
) -> dict[str, Any]:
    """Write an export to ``path`` atomically (a temporary file renamed into place).

    Returns ``{"dataset", "what", "format", "rows", "bytes", "path"}``. ``progress(fraction)`` is
    called after each piece.
    """
    export_validate(what=what, fmt=fmt)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    total = export_count(dataset=dataset, what=what) if progress else 0
    rows = 0
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as out:
            for piece, count in _export_pieces(dataset=dataset, what=what, fmt=fmt):
                out.write(piece)
                rows += count
                if progress and total:
                    progress(min(rows / total, 0.99))
        os.chmod(tmp_name, 0o644)  # mkstemp makes it private; the export is an ordinary file
        os.replace(tmp_name, path)
    except BaseException:
        Path(tmp_name).unlink(missing_ok=True)
        raise
    if progress:
        progress(1.0)
    return {
        "dataset": dataset.name,
        "what": what,
        "format": fmt,
        "rows": rows,
        "bytes": path.stat().st_size,
        "path": str(path),
    }


def export_job_path(*, job) -> Path:
    """Where an export job writes: ``MEDIA_ROOT/exports/<dataset>-<what>-job<id>.<format>``."""
    name = export_filename(dataset=job.dataset, what=job.params["what"], fmt=job.params["format"])
    stem, ext = name.rsplit(".", 1)
    return Path(settings.MEDIA_ROOT) / "exports" / f"{stem}-job{job.pk}.{ext}"


def dataset_export_start(*, dataset: Dataset, what: str, fmt: str, user=None):
    """Queue an export as a job (for exports too big for a request); returns the Job.

    The task runs once the surrounding transaction commits; its result holds ``path`` and ``rows``.
    """
    from jobs.models import Job
    from jobs.services import job_create, job_enqueue

    export_validate(what=what, fmt=fmt)
    job = job_create(
        kind=Job.Kind.EXPORT, params={"what": what, "format": fmt}, dataset=dataset, created_by=user, queue="cpu"
    )
    job_enqueue(job=job, task=tasks.EXPORT)
    return job


def dataset_export_run(*, job, progress: Callable[[float], None] | None = None) -> dict[str, Any]:
    """The body of an export job: write the file, return the job's result."""
    from jobs.services import JobError

    if job.dataset is None:
        raise JobError("the dataset of this export no longer exists")
    what, fmt = job.params.get("what", ""), job.params.get("format", "")
    try:
        export_validate(what=what, fmt=fmt)
    except ExportError as exc:
        raise JobError(str(exc)) from exc
    result = dataset_export_to_file(
        dataset=job.dataset, what=what, fmt=fmt, path=export_job_path(job=job), progress=progress
    )
    logger.info("export job %s wrote %s rows to %s", job.pk, result["rows"], result["path"])
    return result


def export_job_get(*, job_id: int):
    """The export job with that id, or None."""
    from jobs.models import Job

    return Job.objects.filter(pk=job_id, kind=Job.Kind.EXPORT).select_related("dataset").first()


def export_job_file(*, job) -> Path | None:
    """The file a succeeded export job wrote, if it is still there and inside the exports folder."""
    root = (Path(settings.MEDIA_ROOT) / "exports").resolve()
    raw = (job.result or {}).get("path")
    if not raw:
        return None
    path = Path(raw).resolve()
    if root not in path.parents or not path.is_file():
        return None
    return path
