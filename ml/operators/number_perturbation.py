"""Negatives that attack the numbers: f8 (ParaQD 3.3) and a single-number change.

f8 replaces at most two numbers with one vague quantity word: "some", "a few", "many",
"a lot of", or nothing. ``number_change`` writes a different value in place of one number
("John ate 5 apples" -> "John ate 7 apples", the paper's title example).
"""
from __future__ import annotations

import random
import re
from dataclasses import dataclass
from fractions import Fraction

from ..text.number_mentions import NumberSpan, find_all_numbers
from ..text.number_words import number_to_words
from ..text.units import UNITS, find_units
from .base import OperatorNotApplicable, OperatorResult, capitalize_first, choose_some, edit_text, make_result

__all__ = ["F8_REPLACEMENTS", "NumberReplacementConfig", "f8_number_replacement", "number_change"]

F8_REPLACEMENTS = ("some", "a few", "many", "a lot of", "")
_ARTICLE_BEFORE = re.compile(r"\b(?:a|an|the)\s+$", re.IGNORECASE)
_SENTENCE_END = re.compile(r"[.?!]\s*$")


@dataclass(frozen=True)
class NumberReplacementConfig:
    """replacements: the strings S a number may become ("" deletes it).
    max_numbers: at most this many numbers are replaced (the paper's |max(N_i)| = 2).
    include_number_words: also replace numbers written in words ("three birds")."""

    replacements: tuple[str, ...] = F8_REPLACEMENTS
    max_numbers: int = 2
    include_number_words: bool = True

    def __post_init__(self) -> None:
        if not self.replacements:
            raise ValueError("replacements must hold at least one string")
        if self.max_numbers < 1:
            raise ValueError("max_numbers must be >= 1")


def _quantities(text: str, words: bool) -> list[NumberSpan]:
    # Digits glued after letters are identifiers ("x2", "H2O"), not quantities.
    return [n for n in find_all_numbers(text, words=words) if not (n.start > 0 and text[n.start - 1].isalpha())]


def f8_number_replacement(
    text: str, rng: random.Random, *, config: NumberReplacementConfig | None = None
) -> OperatorResult:
    """Negative f8: 1 or 2 numbers become one string s from S.

    >>> f8_number_replacement("John ate 5 apples.", random.Random(0),
    ...                       config=NumberReplacementConfig(replacements=("some",))).text
    'John ate some apples.'
    """
    config = config or NumberReplacementConfig()
    numbers = _quantities(text, config.include_number_words)
    if not numbers:
        raise OperatorNotApplicable("no number", operator="f8")
    chosen = choose_some(rng, numbers, config.max_numbers, lambda n: n.start)
    s = rng.choice(config.replacements)
    prefix_units = {m.number.start: m for m in find_units(text) if m.prefix and m.number is not None}
    edits, replaced = [], []
    for n in chosen:
        start, end, words = n.start, n.end, s
        unit = prefix_units.get(n.start)
        if unit is not None:  # "$20" -> "some dollars", not "$some"
            start = unit.start
            words = f"{s} {UNITS[unit.unit_key].plural}".strip()
        if n.kind == "percent" and s:
            words = f"{s} percent"
        article = _ARTICLE_BEFORE.search(text, 0, start)
        if article and words:  # "a 5 kg bag" -> "some kg bag", not "a some kg bag"
            start = article.start()
        if words and end < len(text) and text[end].isalnum():
            words += " "  # "20kmph" -> "some kmph"
        at_sentence_start = start == 0 or bool(_SENTENCE_END.search(text, 0, start))
        if words and at_sentence_start and text[start:start + 1].isupper():
            words = capitalize_first(words)
        edits.append((start, end, words))
        replaced.append({"number": n.text, "replacement": s})
    return make_result(text, edit_text(text, edits), "f8", False, replaced=replaced, string=s)


def _changed_integer(n: int, rng: random.Random) -> int:
    """A different integer of the same sign, within about half of it."""
    spread = max(2, abs(n) // 2)
    # Same sign, and never 1 in place of a plural amount ("5 apples" -> "1 apples").
    options = [n + d for d in range(-spread, spread + 1) if d and (n + d > 0 or n <= 0) and (n + d != 1 or n < 1)]
    return rng.choice(options)


def _changed_numeral(n: NumberSpan, rng: random.Random) -> str:
    """A different value written the way ``n`` is (digits with the same decimals, a fraction
    with the same denominator, or words)."""
    if n.source == "words":
        if n.value.denominator == 1:
            new = number_to_words(_changed_integer(int(n.value), rng))
        else:
            new = number_to_words(n.value + _changed_integer(1, rng))
        return capitalize_first(new) if n.text[:1].isupper() else new
    if n.kind == "fraction":
        numerator, _, denominator = n.text.partition("/")
        return f"{_changed_integer(int(numerator), rng)}/{denominator.strip()}"
    if n.kind == "decimal":
        places = len(n.text.split(".")[1])
        step = Fraction(1, 10**places)
        options = [n.value + k * step for k in range(-9, 10) if k and n.value + k * step > 0]
        new_value = float(rng.choice(options))
        return f"{new_value:,.{places}f}" if "," in n.text else f"{new_value:.{places}f}"
    new = _changed_integer(int(n.value), rng)
    return f"{new:,}" if "," in n.text else str(new)


def number_change(text: str, rng: random.Random) -> OperatorResult:
    """Negative: one number takes a different value, written the same way (digits or words).

    >>> number_change("John ate 5 apples.", random.Random(0)).text != "John ate 5 apples."
    True
    """
    numbers = [n for n in _quantities(text, True) if n.kind in ("integer", "decimal", "fraction")]
    if not numbers:
        raise OperatorNotApplicable("no plain number to change", operator="number_change")
    n = rng.choice(numbers)
    new = _changed_numeral(n, rng)
    return make_result(text, text[:n.start] + new + text[n.end:], "number_change", False,
                       number=n.text, replacement=new)
