"""The problem parsers, one per format: ``aqua``, ``gsm8k``, ``svamp``, ``mawps``, and the generic
``jsonl`` and ``csv`` (the export's own format). Each takes (file name, text, split, progress) and
returns the file's records, or raises ``ImportFormatError``."""

from __future__ import annotations

import json
import re
from typing import Any

from ml.text.numbers import extract_numbers, normalize_number

from .readers import CsvTable, iter_json_array, iter_json_lines, type_name
from .records import ImportFormatError, ProblemRecord, Progress
from .validation import (
    check_lengths,
    missing_columns,
    numeric_answer,
    pairs_not_problems,
    required_cell,
    split_value,
    string_field,
)

# Keys an export carries that describe the database row rather than the problem.
_ROW_ONLY_KEYS = frozenset({"dataset", "text_hash", "created_at"})
_GENERIC_FIELDS = ("text", "source", "source_id", "id", "split", "answer", "equation", "numbers", "metadata")


def read_aqua(name: str, text: str, split: str, progress: Progress | None) -> list[ProblemRecord]:
    records = []
    for line, obj in iter_json_lines(name, text, progress):
        question = string_field(name, line, obj, "question", required=True, prose=True)
        options = obj.get("options")
        if not isinstance(options, list) or not options or not all(isinstance(o, str) for o in options):
            raise ImportFormatError(name, "field 'options' must be a list of strings", line=line, field="options")
        correct = string_field(name, line, obj, "correct", required=True).upper()
        chosen = next((o for o in options if re.match(rf"\s*{re.escape(correct)}\s*\)", o)), None)
        if chosen is None:
            letters = ", ".join(o.strip()[:1] for o in options)
            raise ImportFormatError(
                name, f"field 'correct' is {correct!r}, not one of the options ({letters})", line=line, field="correct"
            )
        record = ProblemRecord(
            text=question,
            source="aqua",
            source_id=str(line),
            split=split,
            answer=chosen.strip(),
            numbers=extract_numbers(question),
            metadata={"options": options, "rationale": string_field(name, line, obj, "rationale"), "correct": correct},
        )
        records.append(check_lengths(name, line, record))
    return records


def read_gsm8k(name: str, text: str, split: str, progress: Progress | None) -> list[ProblemRecord]:
    records = []
    for line, obj in iter_json_lines(name, text, progress):
        question = string_field(name, line, obj, "question", required=True, prose=True)
        solution = string_field(name, line, obj, "answer", required=True)
        if "####" not in solution:
            raise ImportFormatError(name, "field 'answer' has no '#### <answer>' at its end", line=line, field="answer")
        answer = solution.rsplit("####", 1)[1].strip().replace(",", "")
        if not answer:
            raise ImportFormatError(name, "field 'answer' is empty after '####'", line=line, field="answer")
        record = ProblemRecord(
            text=question,
            source="gsm8k",
            source_id=str(line),
            split=split,
            answer=answer,
            numbers=extract_numbers(question),
            metadata={"solution": solution},
        )
        records.append(check_lengths(name, line, record))
    return records


def read_svamp(name: str, text: str, split: str, progress: Progress | None) -> list[ProblemRecord]:
    # Floats are kept as written ("51.0"), not as Python floats.
    decoder = json.JSONDecoder(parse_float=str)
    records = []
    for line, obj in iter_json_array(name, text, progress, decoder):
        body = string_field(name, line, obj, "Body", required=True, prose=True)
        question = string_field(name, line, obj, "Question", required=True, prose=True)
        problem = f"{body} {question}"
        record = ProblemRecord(
            text=problem,
            source="svamp",
            source_id=string_field(name, line, obj, "ID") or str(line),
            split=split,
            answer=numeric_answer(string_field(name, line, obj, "Answer")),
            equation=string_field(name, line, obj, "Equation"),
            numbers=extract_numbers(problem),
            metadata={"type": string_field(name, line, obj, "Type")},
        )
        records.append(check_lengths(name, line, record))
    return records


_PLACEHOLDER = re.compile(r"\bnumber(\d+)\b")


def _unmask(name: str, line: int, column: str, masked: str, values: list[str], numbers_column: str) -> str:
    """``masked`` with each ``numberK`` replaced by ``values[K]``; an unknown K is an error."""

    def value(match: re.Match[str]) -> str:
        index = int(match.group(1))
        if index >= len(values):
            raise ImportFormatError(
                name,
                f"column '{column}' refers to {match.group(0)} but '{numbers_column}' has "
                f"{len(values)} value{'s' if len(values) != 1 else ''}",
                line=line,
                field=column,
            )
        return values[index]

    return _PLACEHOLDER.sub(value, masked)


def read_mawps(name: str, text: str, split: str, progress: Progress | None) -> list[ProblemRecord]:
    table = CsvTable(name, text)
    columns = {key: table.column(key) for key in ("Question", "Numbers", "Equation", "Answer")}
    if None in columns.values():
        raise missing_columns(table, "Question, Numbers, Equation, Answer")
    q_col, n_col, e_col, a_col = columns.values()
    records = []
    for line, row in table.records(progress):
        masked = required_cell(table, line, row, q_col)
        masked_equation = row[e_col].strip()
        raw_numbers = row[n_col].split()
        try:
            # "56.0" -> "56": the value as a person would write it in the sentence.
            values = [normalize_number(value) for value in raw_numbers]
        except ValueError as exc:
            raise ImportFormatError(name, f"column '{n_col}': {exc}", line=line, field=n_col) from None
        problem = _unmask(name, line, q_col, masked, values, n_col)
        record = ProblemRecord(
            text=problem,
            source="mawps",
            source_id=str(line),
            split=split,
            answer=numeric_answer(row[a_col].strip()),
            equation=_unmask(name, line, e_col, masked_equation, values, n_col),
            numbers=extract_numbers(problem),
            metadata={"masked_question": masked, "masked_equation": masked_equation, "numbers": raw_numbers},
        )
        records.append(check_lengths(name, line, record))
    return records


def _generic_record(
    name: str, line: int, obj: dict[str, Any], *, default_source: str, split: str, cells: bool
) -> ProblemRecord:
    """A record from the ``jsonl``/``csv`` fields; unknown fields are kept in ``metadata``.

    ``cells``: values come from CSV cells, so ``numbers`` and ``metadata`` are JSON in a string
    (``numbers`` may also be space-separated).
    """
    noun = "column" if cells else "field"
    problem = string_field(name, line, obj, "text", required=True, prose=True, noun=noun)

    numbers: Any = obj.get("numbers")
    if cells and isinstance(numbers, str):
        cell = numbers.strip()
        if cell.startswith("["):
            try:
                numbers = json.loads(cell)
            except json.JSONDecodeError as exc:
                raise ImportFormatError(
                    name, f"column 'numbers' is not a JSON list ({exc.msg})", line=line, field="numbers"
                ) from None
        else:
            numbers = cell.split() or None
    if numbers is None:
        numbers = extract_numbers(problem)
    elif not isinstance(numbers, list) or not all(
        isinstance(n, (str, int, float)) and not isinstance(n, bool) for n in numbers
    ):
        raise ImportFormatError(name, f"{noun} 'numbers' must be a list of numbers", line=line, field="numbers")
    else:
        numbers = [str(n) for n in numbers]

    metadata: Any = obj.get("metadata")
    if cells and isinstance(metadata, str):
        try:
            metadata = json.loads(metadata) if metadata.strip() else None
        except json.JSONDecodeError as exc:
            raise ImportFormatError(
                name, f"column 'metadata' is not a JSON object ({exc.msg})", line=line, field="metadata"
            ) from None
    if metadata is None:
        metadata = {}
    if not isinstance(metadata, dict):
        raise ImportFormatError(
            name, f"{noun} 'metadata' must be an object, found {type_name(metadata)}", line=line, field="metadata"
        )
    for key, value in obj.items():
        if key not in _GENERIC_FIELDS and key not in _ROW_ONLY_KEYS and value not in ("", None):
            metadata.setdefault(key, value)

    # An export carries both the database id and the source id; a plain file may name it "id".
    source_id = string_field(name, line, obj, "source_id") if "source_id" in obj else string_field(name, line, obj, "id")
    return check_lengths(
        name,
        line,
        ProblemRecord(
            text=problem,
            source=string_field(name, line, obj, "source") or default_source,
            source_id=source_id or str(line),
            split=split_value(name, line, string_field(name, line, obj, "split"), split, noun),
            answer=string_field(name, line, obj, "answer"),
            equation=string_field(name, line, obj, "equation"),
            numbers=numbers,
            metadata=metadata,
        ),
    )


def read_jsonl(name: str, text: str, split: str, progress: Progress | None) -> list[ProblemRecord]:
    is_array = text.lstrip(" \t\r\n").startswith("[")
    items = iter_json_array(name, text, progress) if is_array else iter_json_lines(name, text, progress)
    return [_generic_record(name, line, obj, default_source="jsonl", split=split, cells=False) for line, obj in items]


def read_csv(name: str, text: str, split: str, progress: Progress | None) -> list[ProblemRecord]:
    table = CsvTable(name, text)
    if table.column("text") is None:
        if table.column("question") and table.column("augmented", "paraphrase"):
            raise pairs_not_problems(name)
        raise missing_columns(
            table, "a 'text' column (optional: source, source_id or id, split, answer, equation, numbers, metadata)"
        )
    records = []
    for line, row in table.records(progress):
        fields = {key.lower(): value for key, value in row.items()}
        records.append(_generic_record(name, line, fields, default_source="csv", split=split, cells=True))
    return records
