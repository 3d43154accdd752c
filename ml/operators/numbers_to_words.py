"""f3: numbers written in words (ParaQD 3.2, "Num2Words").

>>> f3_numbers_to_words("Alex drove 2.5 km at 20kmph.", random.Random(0)).text
'Alex drove two point five km at twenty kmph.'
"""
from __future__ import annotations

import random
import re

from ..text.number_mentions import find_all_numbers
from ..text.number_words import number_to_words, ordinal_words
from ..text.units import UNITS, find_units
from .base import OperatorNotApplicable, OperatorResult, make_result, replace_spans

__all__ = ["f3_numbers_to_words", "spell_numeral"]

_NO_SPACE_BEFORE = set(".,;:?!)]}'\"-/%")
_ORDINAL_SUFFIX = re.compile(r"(st|nd|rd|th)(?![A-Za-z])", re.IGNORECASE)


def spell_numeral(numeral: str, kind: str) -> str:
    """Words for a numeral as ``ml.text.numbers`` reports it (integer, decimal, fraction, mixed, percent).

    >>> spell_numeral("1 1/2", "mixed"), spell_numeral("25%", "percent")
    ('one and one half', 'twenty-five percent')
    """
    if kind == "percent":
        return spell_numeral(numeral.rstrip().rstrip("%").rstrip(), "decimal") + " percent"
    if kind == "mixed":
        whole, _, fraction = numeral.strip().rpartition(" ")
        return number_to_words(whole.strip()) + " and " + number_to_words(fraction)
    return number_to_words(numeral.strip())


def f3_numbers_to_words(text: str, rng: random.Random) -> OperatorResult:
    """Positive f3: every number written in digits is written in words.

    A number glued to a word gets a space ("20kmph" -> "twenty kmph"); a prefixed currency
    reads as words ("$20" -> "twenty dollars"); "21st" becomes "twenty-first". Digits inside
    identifiers ("x2", "H2O") are left alone: they are names, not quantities.
    """
    numbers = [n for n in find_all_numbers(text, words=False)
               if not (n.start > 0 and text[n.start - 1].isalpha())]
    if not numbers:
        raise OperatorNotApplicable("no number written in digits", operator="f3")
    prefix_units = {m.number.start: m for m in find_units(text) if m.prefix and m.number is not None}
    edits, spelled = [], []
    for n in numbers:
        start, end = n.start, n.end
        try:
            suffix = _ORDINAL_SUFFIX.match(text, end) if n.kind in ("integer", "fraction") else None
            if suffix and n.kind == "integer":
                words = ordinal_words(int(n.text.replace(",", "")))
            else:
                words = spell_numeral(n.text, n.kind)
            if suffix:
                end = suffix.end()  # "21st" -> "twenty-first", "1/59th" -> "one fifty-ninth"
        except ValueError:
            continue  # too large to spell: leave it as digits
        unit = prefix_units.get(n.start)
        if unit is not None:
            start = unit.start
            words = f"{words} {UNITS[unit.unit_key].full(n.value != 1)}"
        if end < len(text) and not (text[end].isspace() or text[end] in _NO_SPACE_BEFORE):
            words += " "  # "20kmph" -> "twenty kmph", "50¢" -> "fifty ¢"
        edits.append((start, end, words))
        spelled.append((text[start:end], words.strip()))
    if not edits:
        raise OperatorNotApplicable("no number that can be spelled out", operator="f3")
    return make_result(text, replace_spans(text, edits), "f3", True, spelled=spelled)
