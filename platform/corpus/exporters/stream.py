"""An export as text: PostgreSQL writes the lines where it can, the Python writers the rest.

On PostgreSQL the database writes the JSON lines of ``paraphrases`` and ``labels`` and the CSV
lines of ``problems``, ``paraphrases`` and ``labels`` (``postgres``). SQLite, and the other
exports, go through the row readers (``rows``) and the format writers (``jsonl_writer``,
``csv_writer``).
"""
from __future__ import annotations

import csv
import io
from typing import Iterator

from django.db import connection

from ..models import Dataset
from .common import CHUNK_SIZE, SQL_CHUNK_SIZE, export_validate, line_pieces
from .csv_writer import csv_header, csv_pieces
from .jsonl_writer import jsonl_pieces
from .postgres import SQL_CSV, SQL_LINES
from .rows import dataset_export_rows


def export_pieces(*, dataset: Dataset, what: str, fmt: str, chunk_size: int = CHUNK_SIZE) -> Iterator[tuple[str, int]]:
    """(piece, rows in it) of the export, pieces of about ``PIECE_CHARS`` characters."""
    export_validate(what=what, fmt=fmt)
    if fmt == "jsonl" and what in SQL_LINES and connection.vendor == "postgresql":
        rows = SQL_CHUNK_SIZE if chunk_size == CHUNK_SIZE else chunk_size
        yield from line_pieces(SQL_LINES[what](dataset, rows))
        return
    if fmt == "csv" and what in SQL_CSV and connection.vendor == "postgresql":
        columns, versions = csv_header(dataset=dataset, what=what)
        header = io.StringIO()
        csv.writer(header, lineterminator="\r\n").writerow(columns)  # our identifiers, never user text
        yield header.getvalue(), 0
        rows = SQL_CHUNK_SIZE if chunk_size == CHUNK_SIZE else chunk_size
        yield from line_pieces(SQL_CSV[what](dataset, versions, rows), "\r\n")
        return
    rows = dataset_export_rows(dataset=dataset, what=what, chunk_size=chunk_size)
    if fmt == "jsonl":
        yield from jsonl_pieces(rows)
    else:
        columns, versions = csv_header(dataset=dataset, what=what)
        yield from csv_pieces(rows, columns, versions)


def export_stream(*, dataset: Dataset, what: str, fmt: str, chunk_size: int = CHUNK_SIZE) -> Iterator[str]:
    """The export as text chunks of about 64 KiB, for a StreamingHttpResponse or a file.

    Validates ``what`` and ``fmt`` up front (raises ``ExportError``), then streams lazily.
    """
    export_validate(what=what, fmt=fmt)
    return (piece for piece, _ in export_pieces(dataset=dataset, what=what, fmt=fmt, chunk_size=chunk_size))
