"""Numbers spelled as English words: cardinals, ordinals, decimals and fractions, and the
canonical digit string of an exact value. The word tables here are the ones
:mod:`ml.text.number_parsing` reads words back with.

>>> number_to_words("1,200")
'one thousand two hundred'
>>> number_to_words("2.5")
'two point five'
"""
from __future__ import annotations

import re
from decimal import Decimal
from fractions import Fraction

__all__ = [
    "CARDINAL_WORDS",
    "SCALE_WORDS",
    "TENS_WORDS",
    "UNIT_WORDS",
    "NumberLike",
    "format_number",
    "number_to_words",
    "ordinal_words",
]

UNIT_WORDS = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen"
).split()
TENS_WORDS = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()
# Short scale, as in every AWP corpus we import.
SCALE_WORDS = [(10**12, "trillion"), (10**9, "billion"), (10**6, "million"), (10**3, "thousand")]
_MAX_INTEGER = 10**15 - 1
# The words that state a number on their own ("one", "twenty", "dozen", "half"): what a decoder
# must not add when the text it paraphrases does not say them (ordinals are not numbers here).
CARDINAL_WORDS = frozenset(
    tuple(UNIT_WORDS) + tuple(w for w in TENS_WORDS if w != "_") + tuple(name for _, name in SCALE_WORDS)
    + ("hundred", "dozen", "half", "halves", "quarter", "quarters")
)

_ORDINAL_IRREGULAR = {
    "one": "first", "two": "second", "three": "third", "five": "fifth", "eight": "eighth",
    "nine": "ninth", "twelve": "twelfth",
}

NumberLike = int | float | str | Decimal | Fraction


def _int_to_words(n: int) -> str:
    if n < 0:
        return "minus " + _int_to_words(-n)
    if n > _MAX_INTEGER:
        raise ValueError(f"{n} is too large to spell out (limit {_MAX_INTEGER})")
    if n < 20:
        return UNIT_WORDS[n]
    if n < 100:
        tens, rest = divmod(n, 10)
        return TENS_WORDS[tens] + ("-" + UNIT_WORDS[rest] if rest else "")
    if n < 1000:
        hundreds, rest = divmod(n, 100)
        return UNIT_WORDS[hundreds] + " hundred" + (" " + _int_to_words(rest) if rest else "")
    for scale, name in SCALE_WORDS:
        if n >= scale:
            head, rest = divmod(n, scale)
            return _int_to_words(head) + " " + name + (" " + _int_to_words(rest) if rest else "")
    raise AssertionError("unreachable")


def ordinal_words(n: int) -> str:
    """Spell a non-negative integer as an ordinal.

    >>> ordinal_words(21)
    'twenty-first'
    """
    if n < 0:
        raise ValueError("ordinals are defined for non-negative integers")
    words = _int_to_words(n)
    # Only the last word takes the ordinal form: "one hundred twenty-three" -> "... twenty-third".
    head, sep, last = max(words.rpartition(" "), words.rpartition("-"), key=lambda p: len(p[0]))
    if last in _ORDINAL_IRREGULAR:
        last = _ORDINAL_IRREGULAR[last]
    elif last.endswith("y"):
        last = last[:-1] + "ieth"
    else:
        last = last + "th"
    return head + sep + last


_NUMERIC_STRING = re.compile(
    r"""^\s*(?P<sign>[-+\u2212])?\s*
    (?:(?P<num>\d+)\s*/\s*(?P<den>\d+)          # a simple fraction 3/4
      |(?P<int>\d{1,3}(?:,\d{3})+|\d*)           # 1,200 or 1200 (or empty before .5)
       (?:\.(?P<frac>\d+))?)\s*$""",
    re.VERBOSE,
)


def _fraction_words(numerator: int, denominator: int) -> str:
    if denominator == 2:
        noun = "half" if numerator == 1 else "halves"
    elif denominator == 4:
        noun = "quarter" if numerator == 1 else "quarters"
    else:
        noun = ordinal_words(denominator) + ("" if numerator == 1 else "s")
    return _int_to_words(numerator) + " " + noun


def number_to_words(value: NumberLike, *, ordinal: bool = False) -> str:
    """Spell a number in English words.

    Strings keep the digits as written after the decimal point ("2.50" -> "two point five zero"),
    so the words carry exactly the information of the digits. Fractions are spelled as fractions.

    >>> number_to_words("-3")
    'minus three'
    >>> number_to_words("3/4")
    'three quarters'
    >>> number_to_words(3, ordinal=True)
    'third'
    """
    if isinstance(value, bool):
        raise TypeError("booleans are not numbers here")
    if isinstance(value, int):
        return ordinal_words(value) if ordinal else _int_to_words(value)
    if isinstance(value, Fraction):
        if value.denominator == 1:
            return number_to_words(int(value), ordinal=ordinal)
        if ordinal:
            raise ValueError(f"{value} has no ordinal form")
        sign = "minus " if value < 0 else ""
        den = value.denominator
        # Terminating decimals read as decimals (5/2 -> "two point five"), the rest as fractions.
        stripped = den
        for p in (2, 5):
            while stripped % p == 0:
                stripped //= p
        if stripped == 1:
            return sign + number_to_words(format_number(abs(value)))
        return sign + _fraction_words(abs(value.numerator), den)
    if isinstance(value, float):
        value = repr(value)
    if isinstance(value, Decimal):
        value = format(value, "f")
    if not isinstance(value, str):
        raise TypeError(f"cannot spell {type(value).__name__}")
    match = _NUMERIC_STRING.match(value)
    if not match or not (match["num"] or match["int"] or match["frac"]):
        raise ValueError(f"not a number: {value!r}")
    sign = "minus " if match["sign"] in ("-", "\u2212") else ""
    if match["num"]:
        if ordinal:
            raise ValueError(f"{value!r} has no ordinal form")
        num, den = int(match["num"]), int(match["den"])
        if den == 0:
            raise ValueError(f"zero denominator in {value!r}")
        return sign + _fraction_words(num, den)
    integer = int(match["int"].replace(",", "")) if match["int"] else 0
    if match["frac"] is None:
        words = ordinal_words(integer) if ordinal else _int_to_words(integer)
        return sign + words
    if ordinal:
        raise ValueError(f"{value!r} has no ordinal form")
    digits = " ".join(UNIT_WORDS[int(d)] for d in match["frac"])
    return sign + _int_to_words(integer) + " point " + digits


def format_number(value: Fraction | int) -> str:
    """Canonical digit string of an exact value: integers plainly, terminating decimals without
    trailing zeros, other fractions as ``p/q``.

    >>> format_number(Fraction(5, 2)), format_number(Fraction(1, 3)), format_number(12)
    ('2.5', '1/3', '12')
    """
    value = Fraction(value)
    if value.denominator == 1:
        return str(value.numerator)
    den = value.denominator
    for p in (2, 5):
        while den % p == 0:
            den //= p
    if den != 1:
        return f"{value.numerator}/{value.denominator}"
    text = format(Decimal(value.numerator) / Decimal(value.denominator), "f")
    return text.rstrip("0").rstrip(".") if "." in text else text
