"""Numbers written as English words, both ways.

Digits are ``ml.text.numbers``' job; this module handles the word side so that a later ``analyze``
step can merge both into one list of number mentions. Values are exact ``fractions.Fraction``
objects (``Fraction(5, 2) == 2.5 == Decimal("2.5")`` and ``hash(Fraction(25)) == hash(25)``), so
"two point five", "2.5" and "5/2" normalise to the same value.

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

import re
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Literal

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

_UNITS = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen"
).split()
_TENS = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()
# Short scale, as in every AWP corpus we import.
_SCALES = [(10**12, "trillion"), (10**9, "billion"), (10**6, "million"), (10**3, "thousand")]
_MAX_INTEGER = 10**15 - 1
# The words that state a number on their own ("one", "twenty", "dozen", "half"): what a decoder
# must not add when the text it paraphrases does not say them (ordinals are not numbers here).
CARDINAL_WORDS = frozenset(
    tuple(_UNITS) + tuple(w for w in _TENS if w != "_") + tuple(name for _, name in _SCALES)
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
        return _UNITS[n]
    if n < 100:
        tens, rest = divmod(n, 10)
        return _TENS[tens] + ("-" + _UNITS[rest] if rest else "")
    if n < 1000:
        hundreds, rest = divmod(n, 100)
        return _UNITS[hundreds] + " hundred" + (" " + _int_to_words(rest) if rest else "")
    for scale, name in _SCALES:
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
    digits = " ".join(_UNITS[int(d)] for d in match["frac"])
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


# ---------------------------------------------------------------------------------------------
# Words -> numbers

_UNIT_VALUES = {w: i for i, w in enumerate(_UNITS)}
_TENS_VALUES = {w: 10 * i for i, w in enumerate(_TENS) if w != "_"}
_SCALE_VALUES = {name: scale for scale, name in _SCALES}
_DIGIT_WORDS = {**{w: i for i, w in enumerate(_UNITS[:10])}, "oh": 0, "o": 0}

_ORDINAL_VALUES: dict[str, int] = {}
for _n in list(range(1, 20)) + list(range(20, 100, 10)):
    _ORDINAL_VALUES[ordinal_words(_n)] = _n
_ORDINAL_VALUES.update({"hundredth": 100, "thousandth": 1000, "millionth": 10**6})

# Denominator words usable after a cardinal ("two thirds"). "second" is deliberately absent:
# "two seconds" is a duration, never 2/2.
_DENOMINATORS = {"half": 2, "halves": 2, "quarter": 4, "quarters": 4}
for _word, _n in _ORDINAL_VALUES.items():
    if _n >= 3:
        _DENOMINATORS[_word] = _n
        _DENOMINATORS[_word + "s"] = _n
_DENOMINATORS["fourths"] = 4
# The words that make a fraction after "a" or a cardinal ("a fifth", "two thirds"): ν reads
# them, so a decoder must not add them either when the text it paraphrases does not say them.
DENOMINATOR_WORDS = frozenset(_DENOMINATORS)

_WORD_RE = re.compile(r"[A-Za-z]+")
# Between two words of one number: spaces or one hyphen ("twenty-five", "one-third").
_JOINER_RE = re.compile(r"\s*-\s*|\s+")


@dataclass(frozen=True)
class NumberWordMention:
    """A number written in words inside a text: ``text[start:end] == mention.text``.

    Field names and order follow ``ml.text.numbers.NumberMention`` (text, start, end, kind) so the two
    kinds of mention can be merged by position; ``value`` is the exact value.
    """

    text: str
    start: int
    end: int
    kind: Literal["integer", "decimal", "fraction", "ordinal"]
    value: Fraction
    source: Literal["words"] = "words"

    @property
    def normalized(self) -> str:
        """The canonical digit string of the value (same convention for digits and words)."""
        return format_number(self.value)


@dataclass(frozen=True)
class _Tok:
    word: str  # lower case
    start: int
    end: int


def _tokenize(text: str) -> list[list[_Tok]]:
    """Word tokens grouped into runs joined only by spaces/hyphens (a comma or other character
    ends a run, so "one, two" never parses as one number)."""
    runs: list[list[_Tok]] = []
    current: list[_Tok] = []
    prev_end = None
    for m in _WORD_RE.finditer(text):
        if prev_end is not None and not _JOINER_RE.fullmatch(text[prev_end:m.start()]):
            runs.append(current)
            current = []
        current.append(_Tok(m.group().lower(), m.start(), m.end()))
        prev_end = m.end()
    if current:
        runs.append(current)
    return runs


def _parse_integer(words: list[str]) -> int | None:
    """Value of a complete cardinal phrase, or None when the words are not one well-formed
    number ("five six" and "two and three" are not)."""
    if not words:
        return None
    if words == ["zero"]:
        return 0
    total = 0
    group = 0  # value below the current scale word (< 1000)
    group_has_hundred = False
    last_scale = None
    prev = None  # class of the previous word
    i = 0
    if words[0] in ("a", "an"):
        if len(words) < 2 or words[1] not in ("hundred", "thousand", "million", "billion", "trillion", "dozen"):
            return None
        group, prev, i = 1, "unit", 1
    while i < len(words):
        w = words[i]
        if w in _UNIT_VALUES and w != "zero":
            n = _UNIT_VALUES[w]
            if n < 10:
                ok = prev in (None, "hundred", "scale", "and") or (prev == "tens" and group % 10 == 0)
            else:
                ok = prev in (None, "hundred", "scale", "and")
            if not ok:
                return None
            group += n
            prev = "unit"
        elif w in _TENS_VALUES:
            if prev not in (None, "hundred", "scale", "and"):
                return None
            group += _TENS_VALUES[w]
            prev = "tens"
        elif w == "hundred":
            if prev not in ("unit", "tens") or group_has_hundred or group >= 100:
                return None
            group *= 100
            group_has_hundred = True
            prev = "hundred"
        elif w in _SCALE_VALUES:
            scale = _SCALE_VALUES[w]
            if prev not in ("unit", "tens", "hundred") or (last_scale is not None and scale >= last_scale):
                return None
            total += group * scale
            group, group_has_hundred, last_scale = 0, False, scale
            prev = "scale"
        elif w == "and":
            # British "one hundred and five": only after hundred/scale, before something < 100.
            if prev not in ("hundred", "scale") or i + 1 >= len(words):
                return None
            nxt = words[i + 1]
            if not (nxt in _TENS_VALUES or (nxt in _UNIT_VALUES and nxt != "zero")):
                return None
            prev = "and"
        elif w == "dozen":
            if prev != "unit" or i != len(words) - 1 or group >= 10 or total:
                return None
            group *= 12
            prev = "dozen"
        else:
            return None
        i += 1
    if prev == "and":
        return None
    return total + group


def _parse_decimal(words: list[str]) -> Fraction | None:
    """"two point five" -> 5/2."""
    if "point" not in words:
        return None
    k = words.index("point")
    integer = _parse_integer(words[:k]) if k else 0
    digits = words[k + 1:]
    if integer is None or not digits or any(d not in _DIGIT_WORDS for d in digits):
        return None
    frac = "".join(str(_DIGIT_WORDS[d]) for d in digits)
    return Fraction(integer) + Fraction(int(frac), 10 ** len(frac))


def _parse_fraction(words: list[str]) -> Fraction | None:
    """"two thirds", "a half", "one and a half", "half"."""
    if words == ["half"]:
        return Fraction(1, 2)
    if len(words) >= 4 and words[-3:] in (["and", "a", "half"], ["and", "one", "half"]):
        whole = _parse_integer(words[:-3])
        return None if whole is None else whole + Fraction(1, 2)
    if len(words) < 2 or words[-1] not in _DENOMINATORS:
        return None
    head = words[:-1]
    numerator = 1 if head in (["a"], ["an"]) else _parse_integer(head)
    if numerator is None or numerator == 0:
        return None
    plural = words[-1].endswith("s")
    if (numerator == 1) == plural:  # "one thirds" / "two third" are not fractions
        return None
    if numerator >= _DENOMINATORS[words[-1]]:  # "twenty quarters" are coins, not 5
        return None
    return Fraction(numerator, _DENOMINATORS[words[-1]])


def _parse_ordinal(words: list[str]) -> int | None:
    last = words[-1]
    if last not in _ORDINAL_VALUES:
        return None
    n = _ORDINAL_VALUES[last]
    if len(words) == 1:
        return n
    head = _parse_integer(words[:-1])
    if head is None:
        return None
    # The head must leave room for the ordinal: "twenty-first" (20 + 1), "one hundredth" (1 x 100).
    if n in (100, 1000, 10**6):
        return head * n if head < 10 else None
    if n < 10 and head % 10 == 0 and head >= 20:
        return head + n
    if n < 100 and head % 100 == 0 and head >= 100:
        return head + n
    return None


def _parse_words(words: list[str], *, ordinals: bool) -> tuple[Fraction, str] | None:
    sign = 1
    if words and words[0] in ("minus", "negative"):
        sign, words = -1, words[1:]
        if not words:
            return None
    for kind, parser in (("integer", _parse_integer), ("decimal", _parse_decimal), ("fraction", _parse_fraction)):
        value = parser(words)
        if value is not None:
            return sign * Fraction(value), kind
    if ordinals and sign == 1:
        value = _parse_ordinal(words)
        if value is not None:
            return Fraction(value), "ordinal"
    return None


def words_to_number(text: str, *, ordinals: bool = True) -> Fraction:
    """Parse a phrase that is exactly one number in words.

    >>> words_to_number("one hundred and five")
    Fraction(105, 1)
    >>> words_to_number("minus two point five")
    Fraction(-5, 2)
    >>> words_to_number("a dozen")
    Fraction(12, 1)
    """
    runs = _tokenize(text)
    if len(runs) != 1 or runs[0][0].start != len(text) - len(text.lstrip()) or runs[0][-1].end != len(text.rstrip()):
        raise ValueError(f"not a number in words: {text!r}")
    parsed = _parse_words([t.word for t in runs[0]], ordinals=ordinals)
    if parsed is None:
        raise ValueError(f"not a number in words: {text!r}")
    return parsed[0]


# Words that can start a number phrase; anything else is skipped quickly.
_STARTERS = (
    set(_UNIT_VALUES) | set(_TENS_VALUES) | {"a", "an", "minus", "negative", "half", "hundred"}
    | set(_ORDINAL_VALUES)
)
_MAX_PHRASE_WORDS = 14


def find_number_words(text: str, *, ordinals: bool = False) -> list[NumberWordMention]:
    """All numbers written in words in ``text``, longest match first, left to right.

    "a"/"an" count only as part of a larger number ("a dozen", "a hundred", "a half");
    ordinals ("third", "twenty-first") are reported only with ``ordinals=True``.

    >>> [m.text for m in find_number_words("Two hundred and forty men and one-third of them")]
    ['Two hundred and forty', 'one-third']
    """
    mentions: list[NumberWordMention] = []
    for run in _tokenize(text):
        i = 0
        while i < len(run):
            if run[i].word not in _STARTERS:
                i += 1
                continue
            best = None
            for j in range(min(len(run), i + _MAX_PHRASE_WORDS), i, -1):
                words = [t.word for t in run[i:j]]
                parsed = _parse_words(words, ordinals=ordinals)
                if parsed is not None:
                    best = (j, parsed)
                    break
            if best is None:
                i += 1
                continue
            j, (value, kind) = best
            start, end = run[i].start, run[j - 1].end
            mentions.append(NumberWordMention(text[start:end], start, end, kind, value))
            i = j
    return mentions
