"""English number words read back as exact values: ``words_to_number`` for a phrase that is one
number, ``find_number_words`` for every number written in words inside a text.

>>> words_to_number("twenty-five")
Fraction(25, 1)
>>> [(m.text, m.value) for m in find_number_words("She paid a dozen coins and two thirds of it.")]
[('a dozen', Fraction(12, 1)), ('two thirds', Fraction(2, 3))]
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

from .number_spelling import SCALE_WORDS, TENS_WORDS, UNIT_WORDS, format_number, ordinal_words

__all__ = [
    "DENOMINATOR_WORDS",
    "NumberWordMention",
    "find_number_words",
    "words_to_number",
]

_UNIT_VALUES = {w: i for i, w in enumerate(UNIT_WORDS)}
_TENS_VALUES = {w: 10 * i for i, w in enumerate(TENS_WORDS) if w != "_"}
_SCALE_VALUES = {name: scale for scale, name in SCALE_WORDS}
_DIGIT_WORDS = {**{w: i for i, w in enumerate(UNIT_WORDS[:10])}, "oh": 0, "o": 0}

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
