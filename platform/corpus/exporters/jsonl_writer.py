"""The JSON lines writer: rows to JSON lines (``json.dumps``), in pieces of about ``PIECE_CHARS``."""
from __future__ import annotations

import json
from datetime import date, datetime
from typing import Any, Iterable, Iterator

from .common import PIECE_CHARS


def json_default(value: Any) -> Any:
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")


def jsonl_pieces(rows: Iterable[dict[str, Any]]) -> Iterator[tuple[str, int]]:
    """(piece, rows in it) for JSON lines, pieces of about PIECE_CHARS characters."""
    buf: list[str] = []
    size = count = 0
    for row in rows:
        line = json.dumps(row, ensure_ascii=False, default=json_default) + "\n"
        buf.append(line)
        size += len(line)
        count += 1
        if size >= PIECE_CHARS:
            yield "".join(buf), count
            buf, size, count = [], 0, 0
    if buf:
        yield "".join(buf), count
