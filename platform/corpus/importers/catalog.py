"""The catalog of import formats: each format's parser, the detection of a problem file's format,
and the two entry points that read and validate a whole file (``read_problems``, ``read_pairs``).

A format is offered once its parser is registered here: ``PROBLEM_FORMATS`` and ``PAIR_FORMATS``
(what the commands, the API and the dataset page offer) are the registered names.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from .pair_parsers import read_paraqd, read_paraqd_wide
from .problem_parsers import read_aqua, read_csv, read_gsm8k, read_jsonl, read_mawps, read_svamp
from .readers import CsvTable, iter_json_array, iter_json_lines, read_text
from .records import SPLITS, ImportFormatError, PairRecord, ProblemFile, ProblemRecord, Progress
from .validation import missing_columns, pairs_not_problems

PROBLEM_PARSERS: dict[str, Callable[[str, str, str, Progress | None], list[ProblemRecord]]] = {
    "aqua": read_aqua,
    "gsm8k": read_gsm8k,
    "svamp": read_svamp,
    "mawps": read_mawps,
    "jsonl": read_jsonl,
    "csv": read_csv,
}
PAIR_PARSERS: dict[str, Callable[[str, str, Progress | None], list[PairRecord]]] = {
    "paraqd": read_paraqd,
    "paraqd-wide": read_paraqd_wide,
}

# "auto": detect_format picks the problem format from the file's name and first record.
PROBLEM_FORMATS = ("auto", *PROBLEM_PARSERS)
PAIR_FORMATS = tuple(PAIR_PARSERS)


def detect_format(name: str, text: str) -> str:
    """The problem format of a file, from its name and its first record.

    >>> detect_format("x.jsonl", '{"question": "Q?", "answer": "so 4.\\\\n#### 4"}')
    'gsm8k'
    """
    suffix = Path(name).suffix.lower()
    stripped = text.lstrip(" \t\r\n")
    if stripped.startswith("["):
        first = next(iter_json_array(name, text, None), None)
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
        line, keys = next(iter_json_lines(name, text, None))
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
    table = CsvTable(name, text)
    if table.column("Question") and table.column("Numbers") and table.column("Equation"):
        return "mawps"
    if table.column("text"):
        return "csv"
    if table.column("question") and table.column("augmented", "paraphrase"):
        raise pairs_not_problems(name)
    raise missing_columns(table, "a 'text' column (csv), or Question, Numbers, Equation and Answer (mawps)")


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
    records = PROBLEM_PARSERS[resolved](name, text, split, progress)
    if not records:
        raise ImportFormatError(name, "no problems in the file")
    return ProblemFile(format=resolved, records=records)


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
    pairs = PAIR_PARSERS[fmt](name, read_text(path, max_bytes=max_bytes, name=name), progress)
    if not pairs:
        raise ImportFormatError(name, "no pairs in the file")
    return pairs
