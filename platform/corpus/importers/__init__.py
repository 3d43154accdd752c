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

The package's parts: ``records`` (the row model and
``ImportFormatError``), ``readers`` (the file's text, JSON and CSV primitives), ``validation`` (the
checks of a field or record), ``problem_parsers`` and ``pair_parsers`` (one parser per format) and
``catalog`` (the registered formats, format detection, ``read_problems`` and ``read_pairs``).
Everything public is importable from ``corpus.importers``.
"""

from __future__ import annotations

from .catalog import PAIR_FORMATS, PROBLEM_FORMATS, detect_format, read_pairs, read_problems
from .readers import read_text
from .records import SPLITS, ImportFormatError, PairRecord, ProblemFile, ProblemRecord

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
