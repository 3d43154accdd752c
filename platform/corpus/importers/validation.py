"""The checks every parser applies to a field, a cell or a whole record, each failing with an
``ImportFormatError`` on the record's line."""

from __future__ import annotations

import json
from typing import Any

from ml.text.numbers import normalize_number

from .readers import CsvTable, type_name
from .records import MAX_SOURCE_ID_LENGTH, MAX_SOURCE_LENGTH, SPLITS, ImportFormatError, ProblemRecord


def string_field(
    name: str,
    line: int,
    obj: dict[str, Any],
    key: str,
    *,
    required: bool = False,
    prose: bool = False,
    noun: str = "field",
) -> str:
    """A string field, stripped. Numbers are accepted as their JSON spelling unless ``prose``
    (a problem text must be text). ``noun`` is "field" for JSON, "column" for CSV."""
    value = obj.get(key)
    if value is None:
        value = ""
    elif not isinstance(value, str) and (prose or isinstance(value, bool) or not isinstance(value, (int, float))):
        raise ImportFormatError(
            name, f"{noun} '{key}' must be a string, found {type_name(value)}", line=line, field=key
        )
    value = str(value).strip()
    if required and not value:
        what = "is missing" if key not in obj else "is empty"
        raise ImportFormatError(name, f"{noun} '{key}' {what}", line=line, field=key)
    return value


def required_cell(table: CsvTable, line: int, row: dict[str, str], column: str) -> str:
    value = row[column].strip()
    if not value:
        raise ImportFormatError(table.name, f"column '{column}' is empty", line=line, field=column)
    return value


def split_value(name: str, line: int, value: str, override: str, noun: str = "field") -> str:
    if override:
        return override
    value = value.strip().lower()
    if value and value not in SPLITS:
        raise ImportFormatError(
            name, f"{noun} 'split' is {value!r}; expected one of {', '.join(SPLITS)}", line=line, field="split"
        )
    return value


def numeric_answer(value: str) -> str:
    """A numeric answer in canonical form ("51.0" -> "51"); anything else as written."""
    try:
        return normalize_number(value)
    except ValueError:
        return value


def check_lengths(name: str, line: int, record: ProblemRecord) -> ProblemRecord:
    for key, limit in (("source", MAX_SOURCE_LENGTH), ("source_id", MAX_SOURCE_ID_LENGTH)):
        if len(getattr(record, key)) > limit:
            raise ImportFormatError(name, f"field '{key}' is longer than {limit} characters", line=line, field=key)
    if "\\u0000" in json.dumps(record.metadata) or any(
        "\x00" in value for value in (record.text, record.answer, record.equation, record.source_id, *record.numbers)
    ):
        raise ImportFormatError(name, "contains a NUL character", line=line)
    return record


def missing_columns(table: CsvTable, expected: str) -> ImportFormatError:
    found = ", ".join(table.header) or "none"
    return ImportFormatError(table.name, f"missing columns: expected {expected}; found {found}", line=table.header_line)


def pairs_not_problems(name: str) -> ImportFormatError:
    return ImportFormatError(
        name, "this is a file of question/paraphrase pairs: import it with import_pairs (format paraqd)", line=1
    )
