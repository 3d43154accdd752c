"""Readers for word-problem corpora and labelled paraphrase pairs (pure: no database).

Every reader validates the whole file and returns plain records, or raises
:class:`ImportFormatError` naming the file, the 1-based line and the field at fault. Texts are
kept exactly as written (only stripped at the ends); the one rewrite is MAWPS, whose masked
``number0``… placeholders are put back from its ``Numbers`` column.

Formats (see ../shared/data/README.md for the public corpora):

- ``aqua``: JSON lines ``question``, ``options``, ``rationale``, ``correct``.
- ``gsm8k``: JSON lines ``question``, ``answer`` (a solution ending in ``#### <number>``).
- ``svamp``: a JSON array of ``ID``, ``Body``, ``Question``, ``Equation``, ``Answer``, ``Type``.
- ``mawps``: CSV ``Question`` (masked), ``Numbers``, ``Equation`` (prefix, masked), ``Answer``.
- ``jsonl``: JSON lines (or a JSON array) of objects with ``text`` and optionally the other
  fields of :class:`ProblemRecord` (``id`` for ``source_id``); this is also the export format.
- ``csv``: CSV with a ``text`` column and optionally the same extra columns.
- ``paraqd`` (pairs): CSV ``question``, ``augmented`` or ``paraphrase``, ``final_label`` or ``label``.
- ``paraqd-wide`` (pairs): CSV ``question`` and any number of ``positive<N>`` and ``neg_<N>`` (or
  ``negative<N>``) columns, one paraphrase per cell (empty cells are skipped), as in the ParaQD
  paper's validation set ``aqua_val.csv``: positives are valid pairs, negatives invalid ones.
"""

from __future__ import annotations

import codecs
import csv
import io
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ml.text.numbers import extract_numbers, normalize_number

__all__ = [
    "PROBLEM_FORMATS",
    "PAIR_FORMATS",
    "SPLITS",
    "ImportFormatError",
    "ProblemRecord",
    "PairRecord",
    "ProblemFile",
    "read_problems",
    "read_pairs",
    "read_text",
    "detect_format",
]

PROBLEM_FORMATS = ("auto", "aqua", "gsm8k", "svamp", "mawps", "jsonl", "csv")
PAIR_FORMATS = ("paraqd", "paraqd-wide")
SPLITS = ("train", "dev", "test")

# Lengths of the Problem columns they end up in; checked here so that a long value is a clear
# error on its line rather than a database error (SQLite would silently keep it).
MAX_SOURCE_LENGTH = 32
MAX_SOURCE_ID_LENGTH = 64

# Keys an export carries that describe the database row rather than the problem.
_ROW_ONLY_KEYS = frozenset({"dataset", "text_hash", "created_at"})
_GENERIC_FIELDS = ("text", "source", "source_id", "id", "split", "answer", "equation", "numbers", "metadata")

Progress = Callable[[float], None]


class ImportFormatError(ValueError):
    """Bad input, with a message naming the file and, where known, the line and field.

    >>> str(ImportFormatError("data.csv", "column 'text' is empty", line=3, field="text"))
    "data.csv, line 3: column 'text' is empty"
    """

    def __init__(self, filename: str, message: str, *, line: int | None = None, field: str | None = None):
        self.filename = filename
        self.line = line
        self.field = field
        self.reason = message
        where = filename if line is None else f"{filename}, line {line}"
        super().__init__(f"{where}: {message}")


@dataclass
class ProblemRecord:
    """One problem as read from a file, ready to become a ``corpus.Problem``."""

    text: str
    source: str
    source_id: str = ""
    split: str = ""
    answer: str = ""
    equation: str = ""
    numbers: list[str] = field(default_factory=list)
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass
class PairRecord:
    """A question and a paraphrase of it; ``valid`` is None when the pair has no gold label."""

    question: str
    paraphrase: str
    valid: bool | None
    line: int


@dataclass
class ProblemFile:
    """What :func:`read_problems` found: the format it read (``auto`` resolved) and the records."""

    format: str
    records: list[ProblemRecord]


# --- reading bytes ------------------------------------------------------------------------------


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


def _type_name(value: Any) -> str:
    return {dict: "an object", list: "an array", str: "a string", bool: "a boolean", type(None): "null"}.get(
        type(value), "a number"
    )


def _iter_json_lines(name: str, text: str, progress: Progress | None) -> Iterator[tuple[int, dict[str, Any]]]:
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
            raise ImportFormatError(name, f"expected a JSON object, found {_type_name(obj)}", line=number)
        if progress and number % 1000 == 0:
            progress(number / len(lines))
        yield number, obj


def _iter_json_array(
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
                raise fail(f"expected a JSON object, found {_type_name(obj)}", pos)
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


class _CsvTable:
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


# --- field helpers ------------------------------------------------------------------------------


def _string(
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
            name, f"{noun} '{key}' must be a string, found {_type_name(value)}", line=line, field=key
        )
    value = str(value).strip()
    if required and not value:
        what = "is missing" if key not in obj else "is empty"
        raise ImportFormatError(name, f"{noun} '{key}' {what}", line=line, field=key)
    return value


def _required_cell(table: _CsvTable, line: int, row: dict[str, str], column: str) -> str:
    value = row[column].strip()
    if not value:
        raise ImportFormatError(table.name, f"column '{column}' is empty", line=line, field=column)
    return value


def _split(name: str, line: int, value: str, override: str, noun: str = "field") -> str:
    if override:
        return override
    value = value.strip().lower()
    if value and value not in SPLITS:
        raise ImportFormatError(
            name, f"{noun} 'split' is {value!r}; expected one of {', '.join(SPLITS)}", line=line, field="split"
        )
    return value


def _numeric_answer(value: str) -> str:
    """A numeric answer in canonical form ("51.0" -> "51"); anything else as written."""
    try:
        return normalize_number(value)
    except ValueError:
        return value


def _check_lengths(name: str, line: int, record: ProblemRecord) -> ProblemRecord:
    for key, limit in (("source", MAX_SOURCE_LENGTH), ("source_id", MAX_SOURCE_ID_LENGTH)):
        if len(getattr(record, key)) > limit:
            raise ImportFormatError(name, f"field '{key}' is longer than {limit} characters", line=line, field=key)
    if "\\u0000" in json.dumps(record.metadata) or any(
        "\x00" in value for value in (record.text, record.answer, record.equation, record.source_id, *record.numbers)
    ):
        raise ImportFormatError(name, "contains a NUL character", line=line)
    return record


def _missing_columns(table: _CsvTable, expected: str) -> ImportFormatError:
    found = ", ".join(table.header) or "none"
    return ImportFormatError(table.name, f"missing columns: expected {expected}; found {found}", line=table.header_line)


# --- problem formats ----------------------------------------------------------------------------


def _read_aqua(name: str, text: str, split: str, progress: Progress | None) -> list[ProblemRecord]:
    records = []
    for line, obj in _iter_json_lines(name, text, progress):
        question = _string(name, line, obj, "question", required=True, prose=True)
        options = obj.get("options")
        if not isinstance(options, list) or not options or not all(isinstance(o, str) for o in options):
            raise ImportFormatError(name, "field 'options' must be a list of strings", line=line, field="options")
        correct = _string(name, line, obj, "correct", required=True).upper()
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
            metadata={"options": options, "rationale": _string(name, line, obj, "rationale"), "correct": correct},
        )
        records.append(_check_lengths(name, line, record))
    return records


def _read_gsm8k(name: str, text: str, split: str, progress: Progress | None) -> list[ProblemRecord]:
    records = []
    for line, obj in _iter_json_lines(name, text, progress):
        question = _string(name, line, obj, "question", required=True, prose=True)
        solution = _string(name, line, obj, "answer", required=True)
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
        records.append(_check_lengths(name, line, record))
    return records


def _read_svamp(name: str, text: str, split: str, progress: Progress | None) -> list[ProblemRecord]:
    # Floats are kept as written ("51.0"), not as Python floats.
    decoder = json.JSONDecoder(parse_float=str)
    records = []
    for line, obj in _iter_json_array(name, text, progress, decoder):
        body = _string(name, line, obj, "Body", required=True, prose=True)
        question = _string(name, line, obj, "Question", required=True, prose=True)
        problem = f"{body} {question}"
        record = ProblemRecord(
            text=problem,
            source="svamp",
            source_id=_string(name, line, obj, "ID") or str(line),
            split=split,
            answer=_numeric_answer(_string(name, line, obj, "Answer")),
            equation=_string(name, line, obj, "Equation"),
            numbers=extract_numbers(problem),
            metadata={"type": _string(name, line, obj, "Type")},
        )
        records.append(_check_lengths(name, line, record))
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


def _read_mawps(name: str, text: str, split: str, progress: Progress | None) -> list[ProblemRecord]:
    table = _CsvTable(name, text)
    columns = {key: table.column(key) for key in ("Question", "Numbers", "Equation", "Answer")}
    if None in columns.values():
        raise _missing_columns(table, "Question, Numbers, Equation, Answer")
    q_col, n_col, e_col, a_col = columns.values()
    records = []
    for line, row in table.records(progress):
        masked = _required_cell(table, line, row, q_col)
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
            answer=_numeric_answer(row[a_col].strip()),
            equation=_unmask(name, line, e_col, masked_equation, values, n_col),
            numbers=extract_numbers(problem),
            metadata={"masked_question": masked, "masked_equation": masked_equation, "numbers": raw_numbers},
        )
        records.append(_check_lengths(name, line, record))
    return records


def _generic_record(
    name: str, line: int, obj: dict[str, Any], *, default_source: str, split: str, cells: bool
) -> ProblemRecord:
    """A record from the ``jsonl``/``csv`` fields; unknown fields are kept in ``metadata``.

    ``cells``: values come from CSV cells, so ``numbers`` and ``metadata`` are JSON in a string
    (``numbers`` may also be space-separated).
    """
    noun = "column" if cells else "field"
    problem = _string(name, line, obj, "text", required=True, prose=True, noun=noun)

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
            name, f"{noun} 'metadata' must be an object, found {_type_name(metadata)}", line=line, field="metadata"
        )
    for key, value in obj.items():
        if key not in _GENERIC_FIELDS and key not in _ROW_ONLY_KEYS and value not in ("", None):
            metadata.setdefault(key, value)

    # An export carries both the database id and the source id; a plain file may name it "id".
    source_id = _string(name, line, obj, "source_id") if "source_id" in obj else _string(name, line, obj, "id")
    return _check_lengths(
        name,
        line,
        ProblemRecord(
            text=problem,
            source=_string(name, line, obj, "source") or default_source,
            source_id=source_id or str(line),
            split=_split(name, line, _string(name, line, obj, "split"), split, noun),
            answer=_string(name, line, obj, "answer"),
            equation=_string(name, line, obj, "equation"),
            numbers=numbers,
            metadata=metadata,
        ),
    )


def _read_jsonl(name: str, text: str, split: str, progress: Progress | None) -> list[ProblemRecord]:
    is_array = text.lstrip(" \t\r\n").startswith("[")
    items = _iter_json_array(name, text, progress) if is_array else _iter_json_lines(name, text, progress)
    return [_generic_record(name, line, obj, default_source="jsonl", split=split, cells=False) for line, obj in items]


def _read_csv(name: str, text: str, split: str, progress: Progress | None) -> list[ProblemRecord]:
    table = _CsvTable(name, text)
    if table.column("text") is None:
        if table.column("question") and table.column("augmented", "paraphrase"):
            raise _pairs_not_problems(name)
        raise _missing_columns(
            table, "a 'text' column (optional: source, source_id or id, split, answer, equation, numbers, metadata)"
        )
    records = []
    for line, row in table.records(progress):
        fields = {key.lower(): value for key, value in row.items()}
        records.append(_generic_record(name, line, fields, default_source="csv", split=split, cells=True))
    return records


_PROBLEM_READERS: dict[str, Callable[[str, str, str, Progress | None], list[ProblemRecord]]] = {
    "aqua": _read_aqua,
    "gsm8k": _read_gsm8k,
    "svamp": _read_svamp,
    "mawps": _read_mawps,
    "jsonl": _read_jsonl,
    "csv": _read_csv,
}


def _pairs_not_problems(name: str) -> ImportFormatError:
    return ImportFormatError(
        name, "this is a file of question/paraphrase pairs: import it with import_pairs (format paraqd)", line=1
    )


def detect_format(name: str, text: str) -> str:
    """The problem format of a file, from its name and its first record.

    >>> detect_format("x.jsonl", '{"question": "Q?", "answer": "so 4.\\\\n#### 4"}')
    'gsm8k'
    """
    suffix = Path(name).suffix.lower()
    stripped = text.lstrip(" \t\r\n")
    if stripped.startswith("["):
        first = next(_iter_json_array(name, text, None), None)
        if first is None:
            raise ImportFormatError(name, "the JSON array is empty")
        keys = first[1]
        if "Body" in keys and "Question" in keys:
            return "svamp"
        if "text" in keys:
            return "jsonl"
        raise ImportFormatError(
            name,
            f"cannot tell the format from the keys {sorted(keys)}: expected Body and Question (svamp) or text (jsonl)",
            line=first[0],
        )
    if stripped.startswith("{") or suffix in {".json", ".jsonl"}:
        line, keys = next(_iter_json_lines(name, text, None))
        answer = keys.get("answer")
        if "question" in keys and isinstance(answer, str) and "####" in answer:
            return "gsm8k"
        if "question" in keys and "options" in keys:
            return "aqua"
        if "text" in keys:
            return "jsonl"
        raise ImportFormatError(
            name,
            f"cannot tell the format from the keys {sorted(keys)}: expected text (jsonl), question and "
            "options (aqua), or question and an answer ending in '####' (gsm8k)",
            line=line,
        )
    table = _CsvTable(name, text)
    if table.column("Question") and table.column("Numbers") and table.column("Equation"):
        return "mawps"
    if table.column("text"):
        return "csv"
    if table.column("question") and table.column("augmented", "paraphrase"):
        raise _pairs_not_problems(name)
    raise _missing_columns(table, "a 'text' column (csv), or Question, Numbers, Equation and Answer (mawps)")


def read_problems(
    path: str | Path,
    fmt: str = "auto",
    *,
    split: str = "",
    max_bytes: int | None = None,
    progress: Progress | None = None,
    name: str | None = None,
) -> ProblemFile:
    """Read and validate a whole problem file.

    ``split`` (train, dev or test), when given, overrides the split the file names.
    ``progress(fraction)`` is called now and then while reading. ``name``: see :func:`read_text`;
    with ``auto`` its extension also guides the detection.
    """
    if fmt not in PROBLEM_FORMATS:
        raise ValueError(f"unknown format {fmt!r}; expected one of {', '.join(PROBLEM_FORMATS)}")
    if split and split not in SPLITS:
        raise ValueError(f"unknown split {split!r}; expected one of {', '.join(SPLITS)}")
    name = name or Path(path).name
    text = read_text(path, max_bytes=max_bytes, name=name)
    resolved = detect_format(name, text) if fmt == "auto" else fmt
    records = _PROBLEM_READERS[resolved](name, text, split, progress)
    if not records:
        raise ImportFormatError(name, "no problems in the file")
    return ProblemFile(format=resolved, records=records)


# --- pairs --------------------------------------------------------------------------------------

_LABELS = {"1": True, "true": True, "valid": True, "0": False, "false": False, "invalid": False}


def _read_paraqd(name: str, text: str, progress: Progress | None) -> list[PairRecord]:
    table = _CsvTable(name, text)
    question = table.column("question")
    paraphrase = table.column("augmented", "paraphrase")
    label = table.column("final_label", "label")
    if question is None or paraphrase is None:
        raise _missing_columns(table, "question, augmented (or paraphrase), and optionally final_label (or label)")
    pairs = []
    for line, row in table.records(progress):
        raw_label = row[label].strip().lower() if label else ""
        if raw_label and raw_label not in _LABELS:
            raise ImportFormatError(
                name,
                f"column '{label}' is {row[label].strip()!r}; expected 1 or 0 (true/false, valid/invalid) or empty",
                line=line,
                field=label,
            )
        pairs.append(
            PairRecord(
                question=_required_cell(table, line, row, question),
                paraphrase=_required_cell(table, line, row, paraphrase),
                valid=_LABELS.get(raw_label),
                line=line,
            )
        )
    return pairs


_WIDE_COLUMN = re.compile(r"^(?P<kind>positive|pos|negative|neg)[ _-]?(?P<n>\d+)$", re.IGNORECASE)


def _read_paraqd_wide(name: str, text: str, progress: Progress | None) -> list[PairRecord]:
    table = _CsvTable(name, text)
    question = table.column("question")
    labelled = []  # (column, valid) in header order
    for column in table.header:
        match = _WIDE_COLUMN.match(column)
        if match:
            labelled.append((column, match["kind"].lower().startswith("pos")))
    if question is None or not labelled:
        raise _missing_columns(table, "question and paraphrase columns named positive1, positive2, … and neg_1, neg_2, …")
    pairs = []
    for line, row in table.records(progress):
        text_q = _required_cell(table, line, row, question)
        cells = [(row[column].strip(), valid) for column, valid in labelled if row[column].strip()]
        if not cells:
            raise ImportFormatError(name, "no paraphrase in any positive or negative column", line=line)
        pairs += [PairRecord(question=text_q, paraphrase=cell, valid=valid, line=line) for cell, valid in cells]
    return pairs


_PAIR_READERS = {"paraqd": _read_paraqd, "paraqd-wide": _read_paraqd_wide}


def read_pairs(
    path: str | Path,
    fmt: str = "paraqd",
    *,
    max_bytes: int | None = None,
    progress: Progress | None = None,
    name: str | None = None,
) -> list[PairRecord]:
    """Read and validate a whole file of question/paraphrase pairs (``name``: see :func:`read_text`)."""
    if fmt not in PAIR_FORMATS:
        raise ValueError(f"unknown pair format {fmt!r}; expected one of {', '.join(PAIR_FORMATS)}")
    name = name or Path(path).name
    pairs = _PAIR_READERS[fmt](name, read_text(path, max_bytes=max_bytes, name=name), progress)
    if not pairs:
        raise ImportFormatError(name, "no pairs in the file")
    return pairs
