"""What every part of an export shares: the exports offered, their columns, sizes and names, and
the exports another app writes (``variants``: the generation app's, registered when Django starts)."""
from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from django.core.exceptions import SuspiciousFileOperation
from django.utils.text import get_valid_filename

from core.errors import UserError

from ..models import Dataset

WHATS = ("problems", "paraphrases", "labels", "variants")
FORMATS = ("jsonl", "csv")
CONTENT_TYPES = {"jsonl": "application/x-ndjson; charset=utf-8", "csv": "text/csv; charset=utf-8"}

CHUNK_SIZE = 2000
# Rows per query when PostgreSQL writes the JSON lines: 10,000 rows of about 1.2 KB (12 MB) a
# round trip; 57,000 rows/s against 51,000 with 2,000 (benchmarks/scale.py, 500,000 paraphrases).
SQL_CHUNK_SIZE = 10_000
PIECE_CHARS = 64 * 1024

PROBLEM_FIELDS = ["id", "text", "source", "source_id", "split", "answer", "equation", "numbers", "metadata"]
PARAPHRASE_FIELDS = [
    "candidate_id", "problem_id", "problem_text", "paraphrase_text", "generator", "operator", "prompt",
    "noise_combination", "model_version_id", "intended_valid", "gold_valid", "gold_source",
]
SCORE_FIELDS = ["paraqd", "similarity", "numeracy", "bleu_diversity", "wpd", "diversity", "pqi"]
LABEL_FIELDS = [
    "kind", "label_id", "item_id", "candidate_id", "problem_id", "problem_text", "paraphrase_text",
    "annotator", "valid", "solvability", "diversity", "fluency", "comment", "time_spent_ms",
    "gold_source", "created_at", "updated_at",
]

# OWASP: a spreadsheet treats a cell starting with one of these as a formula.
FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r", "\0")


class ExportError(UserError):
    """A bad export request (unknown ``what`` or format)."""


@dataclass(frozen=True)
class ExportSource:
    """An export whose rows another app reads: its columns, ``rows(dataset, chunk_size)`` (dicts,
    lazily) and ``count(dataset)``. ``variants`` is one: which variants are accepted is the deciding
    judge's call, read by the generation app (``paraphrases.selectors``), which corpus does not import."""

    fields: Sequence[str]
    rows: Callable[[Dataset, int], Iterator[dict[str, Any]]]
    count: Callable[[Dataset], int]


_SOURCES: dict[str, ExportSource] = {}


def export_source_register(what: str, source: ExportSource) -> None:
    """Called by the app that reads ``what`` (one of ``WHATS``) when Django starts."""
    if what not in WHATS:
        raise ValueError(f"{what!r} is not one of the exports ({', '.join(WHATS)})")
    _SOURCES[what] = source


def export_source(what: str) -> ExportSource:
    """The registered source of ``what``; RuntimeError when no app registered it (Django not set up)."""
    try:
        return _SOURCES[what]
    except KeyError:
        raise RuntimeError(f"no app registered the {what!r} export: the paraphrases app does when Django starts") from None


def export_validate(*, what: str, fmt: str) -> None:
    if what not in WHATS:
        raise ExportError(f"what must be one of {', '.join(WHATS)}, got {what!r}")
    if fmt not in FORMATS:
        raise ExportError(f"format must be one of {', '.join(FORMATS)}, got {fmt!r}")


def safe_filename(name: str, default: str) -> str:
    """``name`` reduced to letters, digits, ``-``, ``_`` and ``.``; ``default`` when nothing is left."""
    try:
        return get_valid_filename(name.replace(" ", "-"))
    except SuspiciousFileOperation:  # "", "." or ".." once cleaned
        return default


def export_filename(*, dataset: Dataset, what: str, fmt: str) -> str:
    """``gsm8k-train-problems.jsonl``: a name safe for Content-Disposition and the file system."""
    return f"{safe_filename(dataset.name, f'dataset-{dataset.pk}')}-{what}.{fmt}"


def line_pieces(lines: Iterable[str], end: str = "\n") -> Iterator[tuple[str, int]]:
    """(piece, lines in it): ``lines`` each ended by ``end``, in pieces of about PIECE_CHARS characters."""
    buf: list[str] = []
    size = count = 0
    for line in lines:
        buf.append(line)
        buf.append(end)
        size += len(line) + len(end)
        count += 1
        if size >= PIECE_CHARS:
            yield "".join(buf), count
            buf, size, count = [], 0, 0
    if buf:
        yield "".join(buf), count
