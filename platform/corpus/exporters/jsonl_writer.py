"""The JSON lines writer: rows to JSON lines (``json.dumps``), in pieces of about ``PIECE_CHARS``."""
from __future__ import annotations

import json
from datetime import date, datetime
from typing import Any, Iterable, Iterator

from .common import line_pieces


def json_default(value: Any) -> Any:
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")


def jsonl_pieces(rows: Iterable[dict[str, Any]]) -> Iterator[tuple[str, int]]:
    """(piece, rows in it) for JSON lines, pieces of about PIECE_CHARS characters."""
    return line_pieces(json.dumps(row, ensure_ascii=False, default=json_default) for row in rows)
