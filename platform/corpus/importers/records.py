"""The row model of an import: the records a parser returns, and the error naming the file, the
line and the field at fault."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from core.errors import UserError

SPLITS = ("train", "dev", "test")

# Lengths of the Problem columns they end up in; checked here so that a long value is a clear
# error on its line rather than a database error (SQLite would silently keep it).
MAX_SOURCE_LENGTH = 32
MAX_SOURCE_ID_LENGTH = 64

Progress = Callable[[float], None]


class ImportFormatError(UserError):
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
