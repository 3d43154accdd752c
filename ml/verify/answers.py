"""Comparing answers with tolerance, and reading the datasets' gold answers as numbers.

Why not ``math-verify``: it is built to pull a final answer out of free model text, mostly
LaTeX (``\\boxed{\\frac{3}{4}}``), and to compare symbolic expressions; it brings an ANTLR LaTeX
grammar and SymPy parsing of that text along. Here the model's answer is already a float from the
safe evaluator, and the gold answers are plain numerals ("35", "$4.50", "1,200", "3/4", "12.5%",
AQuA's option letters, GSM8K's "#### 72"), which :mod:`ml.text.numbers` reads exactly. A
tolerance and two dataset habits (percentages, rounded decimals) are all that is left to decide.

>>> same_answer(4.5, "$4.50"), same_answer(0.125, "12.5%"), same_answer(35, 35.01)
(True, True, False)
>>> gold_value("C", ["A)21", "B)24", "C)27.5", "D)30", "E)None"])
27.5
"""
from __future__ import annotations

import math
import re
from collections.abc import Sequence
from fractions import Fraction

from ml.text.number_mentions import numeral_value
from ml.text.numbers import find_numbers

__all__ = ["format_answer", "gold_value", "parse_answer", "same_answer"]

_LETTER_RE = re.compile(r"^\(?([A-Ea-e])\)?[.):]?$")
_LABELLED_RE = re.compile(r"^\s*\(?([A-Ea-e])\s*[).:]\s*(.*)$", re.S)

Answer = float | int | Fraction | str | None


def parse_answer(text: str) -> float | None:
    """The first number written in ``text`` (a percentage as written: "12.5%" -> 12.5), or None.

    >>> parse_answer("Rs. 1,200"), parse_answer("1 1/2 hours"), parse_answer("none")
    (1200.0, 1.5, None)
    """
    mentions = find_numbers(text)
    if not mentions:
        return None
    return float(numeral_value(mentions[0].text))


def gold_value(answer: Answer, options: Sequence[str] | None = None) -> float | None:
    """A dataset's gold answer as a number: GSM8K's ``#### 72`` (the whole solution text too),
    an AQuA letter looked up in ``options`` (labelled "A)21" or given in order), "A) 24", or a
    plain numeral. None when there is no number (a letter without options, "None of these").

    >>> gold_value("Natalia sold 48/2 = 24 clips.\\n#### 72"), gold_value("A) 24"), gold_value("B")
    (72.0, 24.0, None)
    """
    if answer is None:
        return None
    if isinstance(answer, (int, float, Fraction)) and not isinstance(answer, bool):
        value = float(answer)
        return value if math.isfinite(value) else None
    text = str(answer).strip()
    if "####" in text:
        text = text.rsplit("####", 1)[1].strip()
    letter = _LETTER_RE.match(text)
    if letter:
        return _option_value(letter.group(1).upper(), options) if options else None
    labelled = _LABELLED_RE.match(text)
    if labelled and labelled.group(2):
        text = labelled.group(2)
    return parse_answer(text)


def _option_value(letter: str, options: Sequence[str]) -> float | None:
    for option in options:
        labelled = _LABELLED_RE.match(option)
        if labelled and labelled.group(1).upper() == letter:
            return parse_answer(labelled.group(2))
    index = "ABCDE".index(letter)
    # Options given without labels are in order, A first.
    if index < len(options) and not any(_LABELLED_RE.match(option) for option in options):
        return parse_answer(options[index])
    return None


def _decimals(text: str) -> int:
    mentions = find_numbers(text)
    if not mentions or "." not in mentions[0].text:
        return 0
    return len(mentions[0].text.rstrip("%").strip().split(".")[1])


def _readings(answer: Answer) -> list[tuple[float, int]]:
    """Every value ``answer`` may stand for, each with the decimals it was rounded to (0: exact)."""
    if isinstance(answer, str):
        value = gold_value(answer)
        if value is None:
            return []
        decimals = _decimals(answer)
        readings = [(value, decimals)]
        mentions = find_numbers(answer)
        if mentions and mentions[0].kind == "percent":
            # A solver asked "what percent" may well answer 0.125 for "12.5%".
            readings.append((value / 100, decimals + 2 if decimals else 0))
        return readings
    value = gold_value(answer)
    return [] if value is None else [(value, 0)]


def same_answer(a: Answer, b: Answer, rel: float = 1e-4, abs_: float = 1e-6) -> bool:
    """Whether two answers are the same number: within ``rel``/``abs_``, or, when one is written
    with two or more decimals ("33.33"), equal to the other rounded to those decimals. Strings are
    read with :func:`gold_value`; None or an unreadable string is never the same as anything.

    >>> same_answer(33.3333333, "33.33"), same_answer(2.54, "2.5"), same_answer(None, None)
    (True, False, False)
    """
    for x, x_decimals in _readings(a):
        for y, y_decimals in _readings(b):
            if math.isclose(x, y, rel_tol=rel, abs_tol=abs_):
                return True
            # Options like "33.33" round the exact answer; one decimal ("2.5") is too coarse to tell.
            if x_decimals >= 2 and math.isclose(round(y, x_decimals), x, rel_tol=1e-12, abs_tol=abs_):
                return True
            if y_decimals >= 2 and math.isclose(round(x, y_decimals), y, rel_tol=1e-12, abs_tol=abs_):
                return True
    return False


def format_answer(value: float | int | None) -> str:
    """A number as a person would write it: 35, 4.5, 0.25, not 35.000000001.

    >>> format_answer(35.000000001), format_answer(4.5), format_answer(1 / 3), format_answer(None)
    ('35', '4.5', '0.333333', 'none')
    """
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "none"
    value = float(value)
    if value != 0 and abs(value) < 1e-4:
        return f"{value:.3g}"
    if abs(value - round(value)) <= max(1e-6, 1e-12 * abs(value)):  # float noise, not a fraction
        return str(int(round(value)))
    return f"{value:.6f}".rstrip("0").rstrip(".")
