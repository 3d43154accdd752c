"""Every number of a text, digits and words together, with exact values.

Digits come from :func:`ml.text.numbers.find_numbers`, words from
:func:`ml.text.number_words.find_number_words`; this module merges them by position and gives each
an exact ``Fraction`` value, so operators and checks can compare "2.5", "5/2" and "two point
five". It is the seed of the later ``analyze`` API.

>>> [(n.text, n.source, str(n.value)) for n in find_all_numbers("Three men paid $1,200 and 2.5%.")]
[('Three', 'words', '3'), ('1,200', 'digits', '1200'), ('2.5%', 'digits', '5/2')]
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

from .number_words import find_number_words, format_number
from .numbers import find_numbers, normalize_number

__all__ = ["NumberSpan", "find_all_numbers", "numeral_value", "number_signature"]


@dataclass(frozen=True)
class NumberSpan:
    """One number in a text: ``text[start:end] == span.text``; ``kind`` as in ``ml.text.numbers``
    (integer, decimal, fraction, mixed, percent) or ``ordinal`` for words."""

    text: str
    start: int
    end: int
    kind: str
    value: Fraction
    source: Literal["digits", "words"]

    @property
    def normalized(self) -> str:
        suffix = "%" if self.kind == "percent" else ""
        return format_number(self.value) + suffix


def numeral_value(text: str) -> Fraction:
    """Exact value of a numeral as written ("1,200", "-3.5", "3/4", "1 1/2", "25%" -> 25).

    >>> numeral_value("1 1/2")
    Fraction(3, 2)
    """
    canonical = normalize_number(text)
    if canonical.endswith("%"):
        canonical = canonical[:-1]
    whole, _, fraction = canonical.rpartition(" ")
    value = Fraction(fraction)
    if whole:
        w = Fraction(whole)
        value = w + value if w >= 0 else w - value
    return value


def find_all_numbers(text: str, *, words: bool = True, ordinals: bool = False) -> list[NumberSpan]:
    """Digits and (optionally) number words of ``text``, in order, without overlaps."""
    spans = [
        NumberSpan(m.text, m.start, m.end, m.kind, numeral_value(m.text), "digits")
        for m in find_numbers(text)
    ]
    if words:
        taken = [(s.start, s.end) for s in spans]
        for m in find_number_words(text, ordinals=ordinals):
            if all(m.end <= a or m.start >= b for a, b in taken):
                spans.append(NumberSpan(m.text, m.start, m.end, m.kind, m.value, "words"))
    return sorted(spans, key=lambda s: s.start)


def number_signature(text: str) -> Counter[Fraction]:
    """The multiset of number values in ``text`` (digits and words, ordinals excluded): two
    texts with the same signature state the same numbers, however they are written."""
    return Counter(s.value for s in find_all_numbers(text))
