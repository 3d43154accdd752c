"""Reading a file: its bytes as text (UTF-8, checked), and the JSON and CSV primitives the parsers
read records with, each record with the 1-based line it starts on."""

from __future__ import annotations

import codecs
import csv
import io
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .records import ImportFormatError, Progress


def read_text(path: str | Path, *, max_bytes: int | None = None, name: str | None = None) -> str:
    """The file's text, decoded as UTF-8 (a byte-order mark is dropped).

    Raises ImportFormatError when the file is missing, over ``max_bytes``, empty, or not UTF-8
    (naming the line of the first bad byte). ``name`` is how messages call the file (default:
    its base name; an upload saved under a temporary name passes the name the user gave it).
    """
    path = Path(path)
    name = name or path.name
    if not path.exists():
        raise ImportFormatError(name, "no such file")
    if not path.is_file():
        raise ImportFormatError(name, "not a regular file")
    if max_bytes is not None and path.stat().st_size > max_bytes:
        raise ImportFormatError(
            name, f"the file is {path.stat().st_size} bytes, over the upload limit of {max_bytes} bytes"
        )
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ImportFormatError(name, f"cannot read the file ({exc.strerror})") from exc
    if max_bytes is not None and len(data) > max_bytes:  # it grew since stat()
        raise ImportFormatError(name, f"the file is {len(data)} bytes, over the upload limit of {max_bytes} bytes")
    if data.startswith(codecs.BOM_UTF8):
        data = data[len(codecs.BOM_UTF8) :]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line_start = data.rfind(b"\n", 0, exc.start) + 1
        raise ImportFormatError(
            name,
            f"not valid UTF-8 (byte 0x{data[exc.start]:02x} at column {exc.start - line_start + 1}); "
            "save the file as UTF-8",
            line=data.count(b"\n", 0, exc.start) + 1,
        ) from None
    if not text.strip():
        raise ImportFormatError(name, "the file is empty")
    nul = text.find("\x00")
    if nul >= 0:
        raise ImportFormatError(name, "contains a NUL character", line=text.count("\n", 0, nul) + 1)
    return text


# --- JSON and CSV primitives --------------------------------------------------------------------

_JSON_SPACE = re.compile(r"[ \t\n\r]*")


def type_name(value: Any) -> str:
    return {dict: "an object", list: "an array", str: "a string", bool: "a boolean", type(None): "null"}.get(
        type(value), "a number"
    )


def iter_json_lines(name: str, text: str, progress: Progress | None) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line, object) for each non-blank line; every line must be one JSON object."""
    lines = text.split("\n")
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            obj = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise ImportFormatError(name, f"invalid JSON ({exc.msg})", line=number) from None
        if not isinstance(obj, dict):
            raise ImportFormatError(name, f"expected a JSON object, found {type_name(obj)}", line=number)
        if progress and number % 1000 == 0:
            progress(number / len(lines))
        yield number, obj


def iter_json_array(
    name: str, text: str, progress: Progress | None, decoder: json.JSONDecoder | None = None
) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line where the item starts, object) for each item of a top-level JSON array."""
    decoder = decoder or json.JSONDecoder()
    pos = _JSON_SPACE.match(text).end()
    line, counted_to = 1, 0

    def line_at(index: int) -> int:
        nonlocal line, counted_to
        line += text.count("\n", counted_to, index)
        counted_to = index
        return line

    def fail(message: str, index: int) -> ImportFormatError:
        return ImportFormatError(name, message, line=text.count("\n", 0, index) + 1)

    if not text.startswith("[", pos):
        raise fail("expected a JSON array of objects", pos)
    pos = _JSON_SPACE.match(text, pos + 1).end()
    if text.startswith("]", pos):
        pos = _JSON_SPACE.match(text, pos + 1).end()
    else:
        count = 0
        while True:
            try:
                obj, end = decoder.raw_decode(text, pos)
            except json.JSONDecodeError as exc:
                raise ImportFormatError(name, f"invalid JSON ({exc.msg})", line=exc.lineno) from None
            if not isinstance(obj, dict):
                raise fail(f"expected a JSON object, found {type_name(obj)}", pos)
            count += 1
            if progress and count % 1000 == 0:
                progress(pos / len(text))
            yield line_at(pos), obj
            pos = _JSON_SPACE.match(text, end).end()
            if text.startswith(",", pos):
                pos = _JSON_SPACE.match(text, pos + 1).end()
            elif text.startswith("]", pos):
                pos = _JSON_SPACE.match(text, pos + 1).end()
                break
            else:
                raise fail("invalid JSON (Expecting ',' delimiter)", pos)
    if pos != len(text):
        raise fail("invalid JSON (unexpected data after the array)", pos)


class CsvTable:
    """A CSV file's header (matched case-insensitively) and its rows with their first line."""

    def __init__(self, name: str, text: str):
        self.name = name
        self._reader = csv.reader(io.StringIO(text, newline=""), strict=True)
        self._total_lines = text.count("\n") + 1
        self._next_line = 1
        header: list[str] = []
        self.header_line = 1
        for line, row in self._rows():
            if any(cell.strip() for cell in row):
                header, self.header_line = row, line
                break
        if not header:
            raise ImportFormatError(name, "no header row")
        self.header = [cell.strip() for cell in header]
        self.columns: dict[str, int] = {}
        for index, column in enumerate(self.header):
            if column and column.lower() in self.columns:
                raise ImportFormatError(name, f"column '{column}' appears twice in the header", line=self.header_line)
            self.columns[column.lower()] = index

    def _rows(self) -> Iterator[tuple[int, list[str]]]:
        try:
            for row in self._reader:
                start, self._next_line = self._next_line, self._reader.line_num + 1
                yield start, row
        except csv.Error as exc:
            raise ImportFormatError(self.name, f"malformed CSV ({exc})", line=self._next_line) from None

    def column(self, *names: str) -> str | None:
        """The first of ``names`` present in the header, as the header spells it."""
        for candidate in names:
            if candidate.lower() in self.columns:
                return self.header[self.columns[candidate.lower()]]
        return None

    def records(self, progress: Progress | None = None) -> Iterator[tuple[int, dict[str, str]]]:
        """(line, {column: cell}) for every non-blank row after the header."""
        width = len(self.header)
        count = 0
        for line, row in self._rows():
            if not any(row):  # a blank line, or a row of empty cells (",,,") from a spreadsheet
                continue
            if len(row) > width:
                raise ImportFormatError(
                    self.name, f"{len(row)} fields but the header has {width} (an unquoted comma?)", line=line
                )
            row = row + [""] * (width - len(row))
            count += 1
            if progress and count % 1000 == 0:
                progress(min(1.0, line / self._total_lines))
            yield line, dict(zip(self.header, row, strict=True))
