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
    candidate's newest complete score row (``paraphrases.selectors.variant_queryset``). The
    generation app reads these rows and registers them here when Django starts
    (``export_source_register``): corpus imports neither it nor the judge.

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

The package's parts: ``common`` (what is exported, its columns and names), ``rows`` (the row
readers), ``jsonl_writer`` and ``csv_writer`` (the format writers), ``postgres`` (the PostgreSQL
writer), ``stream`` (which writer writes an export) and ``service`` (files and export jobs).
Everything public is importable from ``corpus.exporters``.
"""
from __future__ import annotations

from .common import (
    CHUNK_SIZE,
    CONTENT_TYPES,
    FORMATS,
    FORMULA_PREFIXES,
    LABEL_FIELDS,
    PARAPHRASE_FIELDS,
    PIECE_CHARS,
    PROBLEM_FIELDS,
    SCORE_FIELDS,
    SQL_CHUNK_SIZE,
    WHATS,
    ExportError,
    ExportSource,
    export_filename,
    export_source,
    export_source_register,
    export_validate,
    safe_filename,
)
from .csv_writer import csv_cell, csv_escape, csv_header, csv_pieces
from .jsonl_writer import json_default, jsonl_pieces
from .rows import dataset_export_rows, export_count
from .service import (
    dataset_export_run,
    dataset_export_start,
    dataset_export_to_file,
    export_job_file,
    export_job_get,
    export_job_path,
)
from .stream import export_pieces, export_stream

__all__ = [
    "CHUNK_SIZE",
    "CONTENT_TYPES",
    "FORMATS",
    "FORMULA_PREFIXES",
    "LABEL_FIELDS",
    "PARAPHRASE_FIELDS",
    "PIECE_CHARS",
    "PROBLEM_FIELDS",
    "SCORE_FIELDS",
    "SQL_CHUNK_SIZE",
    "WHATS",
    "ExportError",
    "ExportSource",
    "csv_cell",
    "csv_escape",
    "csv_header",
    "csv_pieces",
    "dataset_export_rows",
    "dataset_export_run",
    "dataset_export_start",
    "dataset_export_to_file",
    "export_count",
    "export_filename",
    "export_job_file",
    "export_job_get",
    "export_job_path",
    "export_pieces",
    "export_source",
    "export_source_register",
    "export_stream",
    "export_validate",
    "json_default",
    "jsonl_pieces",
    "safe_filename",
]
