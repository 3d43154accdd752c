"""Numbers, units and symbols written out, as a teacher would vary them: the same quantities, every
one of them, in words where that reads naturally.

- unit abbreviations and currency symbols in full, agreeing with their number ("60 km/hr" -> "60
  kilometres per hour", "Rs.6400" -> "6400 rupees", "$20" -> "20 dollars"; ParaQD's f4 with number
  agreement);
- a percent sign as a word ("15%" -> "15 percent");
- a small count before a word in words ("5 pens" -> "five pens", "15 percent" -> "fifteen
  percent"), never a measure ("9 seconds", "5 km"), a label ("Box 5", "x2"), part of an expression
  ("2s > 8", where no unit is expanded either), a list of figures or a decimal.

The guidelines call "five" for "5" and "4.50 dollars" for "$4.50" the same problem; the rewrite must
still keep every number, unit and name (checked like every generator's). Where nothing applies the
generator refuses.

>>> write_out("A man buys 5 pens for $20 and sells them at a 15% profit.")
'A man buys five pens for 20 dollars and sells them at a fifteen percent profit.'
"""
from __future__ import annotations

import random
import re
from dataclasses import dataclass

from ..operators.base import OperatorNotApplicable
from ..operators.unit_expansion import UnitExpansionConfig, f4_unit_expansion
from ..text.number_mentions import find_all_numbers
from ..text.number_spelling import number_to_words
from ..text.units import find_units
from .base import GeneratedCandidate, GenerationResources, one_rewrite

__all__ = ["NumberFormatGenerator", "write_out"]

_PERCENT = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)\s?%")
_MAX_SPELLED = 20
# A count is spelled only before a plain word; not after these (a label, an expression, a figure).
_NOT_AFTER = re.compile(r"(?:[A-Za-z]|[-+*/=<>^$€£¥#:]\s?|\d[.,])$")
# Algebra in the text ("2s > 8", "x = 5t"): a letter after a number is a variable, not a unit.
_ALGEBRA = re.compile(r"[<>=≤≥^]|\d[a-zA-Z]\b\s*[-+*/]")
# A currency symbol before a scaled amount ("$10 million") would read "10 dollars million" (labelled
# garbled): such a text keeps its symbols.
_SCALED_MONEY = re.compile(r"(?:[$€£¥]|Rs\.?)\s?\d[\d,.]*\s*(?:thousand|million|billion|trillion|lakh|crore)", re.I)
_WORD_AFTER = re.compile(r" ([a-z][a-z'-]*)")
_LABEL_BEFORE = re.compile(r"\b(?:[A-Z][a-z]*|[Nn]o\.?|[Nn]umber|[Pp]age|[Ss]tep|[Rr]oom|[Gg]rade|[Cc]lass)\s$")


def _spell_counts(text: str) -> str:
    """Small counts before a word written in words ("5 pens" -> "five pens")."""
    unit_starts = {m.start for m in find_units(text)}
    edits = []
    for n in find_all_numbers(text, words=False):
        if n.kind != "integer" or not n.text.isdigit() or int(n.text) > _MAX_SPELLED:
            continue
        before, after = text[:n.start], text[n.end:]
        word = _WORD_AFTER.match(after)
        if word is None or n.end + 1 in unit_starts or _NOT_AFTER.search(before) or _LABEL_BEFORE.search(before):
            continue
        if re.match(r" (?:and|or|to|by|x|times)\b\s*\d", after) or re.search(r"\d\s*(?:,|and|or|to|-)\s*$", before):
            continue  # a list or range of figures ("21, 36 and 56", "2 to 5") stays in digits
        spelled = number_to_words(n.text)
        at_start = not before.strip() or before.rstrip()[-1:] in ".!?"
        edits.append((n.start, n.end, spelled.capitalize() if at_start else spelled))
    for start, end, words in reversed(edits):
        text = text[:start] + words + text[end:]
    return text


def write_out(text: str) -> str:
    """``text`` with its unit abbreviations, currency symbols, percent signs and small counts
    written out (unchanged where none applies)."""
    if not _ALGEBRA.search(text) and not _SCALED_MONEY.search(text):
        try:
            text = f4_unit_expansion(text, random.Random(0), config=UnitExpansionConfig(number_agreement=True)).text
        except OperatorNotApplicable:
            pass
    text = _PERCENT.sub(lambda m: f"{m.group(1)} percent", text)
    return _spell_counts(text)


@dataclass(frozen=True)
class NumberFormatGenerator:
    """The problem with its numbers' units, symbols and small counts written out."""

    name: str = "number_format"
    description: str = ("Units, symbols and small counts written out: '5 pens for $20 at 15%' becomes "
                        "'five pens for 20 dollars at 15 percent'")
    kind: str = "rule"

    def unavailable_reason(self, resources: GenerationResources) -> str | None:
        return None

    def generate(self, text: str, rng: random.Random, resources: GenerationResources) -> list[GeneratedCandidate]:
        return one_rewrite(text, write_out(text), generator=self.name, prompt="numbers",
                           refusal="no unit abbreviation, symbol or small count to write out",
                           spacy_model=resources.spacy_model)
