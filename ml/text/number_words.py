"""Numbers written as English words, both ways.

Digits are ``ml.text.numbers``' job; this module handles the word side so that a later ``analyze``
step can merge both into one list of number mentions. Values are exact ``fractions.Fraction``
objects (``Fraction(5, 2) == 2.5 == Decimal("2.5")`` and ``hash(Fraction(25)) == hash(25)``), so
"two point five", "2.5" and "5/2" normalise to the same value.

Numbers -> words live in :mod:`ml.text.number_spelling`, words -> numbers in
:mod:`ml.text.number_parsing`; both are re-exported here.

>>> number_to_words("1,200")
'one thousand two hundred'
>>> number_to_words("2.5")
'two point five'
>>> words_to_number("twenty-five")
Fraction(25, 1)
>>> [(m.text, m.value) for m in find_number_words("She paid a dozen coins and two thirds of it.")]
[('a dozen', Fraction(12, 1)), ('two thirds', Fraction(2, 3))]
"""
from __future__ import annotations

from .number_parsing import DENOMINATOR_WORDS, NumberWordMention, find_number_words, words_to_number
from .number_spelling import CARDINAL_WORDS, NumberLike, format_number, number_to_words, ordinal_words  # noqa: F401

__all__ = [
    "CARDINAL_WORDS",
    "DENOMINATOR_WORDS",
    "NumberWordMention",
    "find_number_words",
    "format_number",
    "number_to_words",
    "ordinal_words",
    "words_to_number",
]
