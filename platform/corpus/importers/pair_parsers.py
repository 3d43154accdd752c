"""The pair parsers, one per format: ``paraqd`` (a question, a paraphrase and an optional label a
row) and ``paraqd-wide`` (a question and its positive and negative paraphrases a row). Each takes
(file name, text, progress) and returns the file's pairs, or raises ``ImportFormatError``."""

from __future__ import annotations

import re

from .readers import CsvTable
from .records import ImportFormatError, PairRecord, Progress
from .validation import missing_columns, required_cell


_LABELS = {"1": True, "true": True, "valid": True, "0": False, "false": False, "invalid": False}


def read_paraqd(name: str, text: str, progress: Progress | None) -> list[PairRecord]:
    table = CsvTable(name, text)
    question = table.column("question")
    paraphrase = table.column("augmented", "paraphrase")
    label = table.column("final_label", "label")
    if question is None or paraphrase is None:
        raise missing_columns(table, "question, augmented (or paraphrase), and optionally final_label (or label)")
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
                question=required_cell(table, line, row, question),
                paraphrase=required_cell(table, line, row, paraphrase),
                valid=_LABELS.get(raw_label),
                line=line,
            )
        )
    return pairs


_WIDE_COLUMN = re.compile(r"^(?P<kind>positive|pos|negative|neg)[ _-]?(?P<n>\d+)$", re.IGNORECASE)


def read_paraqd_wide(name: str, text: str, progress: Progress | None) -> list[PairRecord]:
    table = CsvTable(name, text)
    question = table.column("question")
    labelled = []  # (column, valid) in header order
    for column in table.header:
        match = _WIDE_COLUMN.match(column)
        if match:
            labelled.append((column, match["kind"].lower().startswith("pos")))
    if question is None or not labelled:
        raise missing_columns(table, "question and paraphrase columns named positive1, positive2, … and neg_1, neg_2, …")
    pairs = []
    for line, row in table.records(progress):
        text_q = required_cell(table, line, row, question)
        cells = [(row[column].strip(), valid) for column, valid in labelled if row[column].strip()]
        if not cells:
            raise ImportFormatError(name, "no paraphrase in any positive or negative column", line=line)
        pairs += [PairRecord(question=text_q, paraphrase=cell, valid=valid, line=line) for cell, valid in cells]
    return pairs
