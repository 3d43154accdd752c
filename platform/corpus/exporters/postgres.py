"""The PostgreSQL writer: the database itself writes the lines of the big exports.

JSON lines of ``paraphrases`` and ``labels`` (the same keys, order and values as the Python rows
through ``json.dumps``, with PostgreSQL's spacing) and CSV lines of ``problems``, ``paraphrases``
and ``labels`` (byte for byte what csv.writer makes of the Python rows), read keyset-paginated
``SQL_CHUNK_SIZE`` rows a query.
"""
from __future__ import annotations

import json
from typing import Any, Iterator

from django.contrib.auth import get_user_model
from django.db import connection

from annotation.models import AnnotationItem, GoldLabel, Label
from paraphrases.models import Candidate, Score

from ..models import Dataset, Problem
from .common import FORMULA_PREFIXES, SCORE_FIELDS
from .csv_writer import csv_cell


def paraphrase_lines_sql(dataset: Dataset, chunk_size: int) -> Iterator[str]:
    """The paraphrase rows as JSON lines written by PostgreSQL (``json_build_object``): the same
    keys, in the same order, and values as ``rows._paraphrase_rows`` through ``json.dumps``, with
    PostgreSQL's spacing (``"key" : value``). Serialising 500,000 rows in Python ran at 20,000
    rows/s here; in PostgreSQL the process only moves text (benchmarks/scale.py)."""
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


def label_lines_sql(dataset: Dataset, chunk_size: int) -> Iterator[str]:
    """The label rows as JSON lines written by PostgreSQL, as ``rows._label_rows`` through ``json.dumps``:
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
# The same text as ``csv_writer.csv_pieces`` (csv.writer, QUOTE_MINIMAL, "\r\n") cell for cell: each cell an
# SQL expression by its kind, a line one concatenation. A JSON cell other than NULL, {} and []
# comes back as jsonb text and is written by Python as ``csv_cell`` writes it (keys sorted; jsonb
# orders keys by length first). Through Python rows, 500,000 paraphrases went at 16,500 rows/s.

# FORMULA_PREFIXES as SQL (a PostgreSQL text never holds NUL).
_FORMULA_SQL = "(" + ", ".join(f"chr({ord(c)})" for c in FORMULA_PREFIXES if c != "\0") + ")"


def csv_cell_sql(kind: str, x: str) -> str:
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
            current.append(csv_cell_sql(kind, x))
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


# The exports PostgreSQL writes, by ``what``: CSV lines (dataset, scorer versions, rows per query)
# and JSON lines (dataset, rows per query).
SQL_CSV = {"problems": _problem_csv_sql, "paraphrases": _paraphrase_csv_sql, "labels": _label_csv_sql}
SQL_LINES = {"paraphrases": paraphrase_lines_sql, "labels": label_lines_sql}
