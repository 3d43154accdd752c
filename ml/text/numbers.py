"""Numbers as written in word-problem text: find them, and canonicalise them for comparison.

Numbers are the ground truth of solvability: a paraphrase that changes or drops one is a
different problem. Extraction therefore errs on the side of finding a number (digits glued to a
unit or a variable still count) and keeps each one exactly as written, so that callers can check
that a text was stored unchanged. Comparison goes through :func:`normalize_number`.

Only numerals are recognised for now. Number words ("three", "a dozen") will be another kind of
:class:`NumberMention` found by its own matcher and merged by position in :func:`find_numbers`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

__all__ = ["NumberMention", "find_numbers", "extract_numbers", "normalize_number"]

# A minus sign belongs to a number only when it touches the digits and does not follow a word,
# a number or a closing bracket: "-5", "(-3)", "= -2.5", but not "5-3", "x-2" or "5 - 3".
_SIGN = r"(?P<sign>(?<![\w.)\]])[-\u2212](?=\.?\d))?"

_VALUE = r"""
(?P<value>
    (?P<mixed>(?<![\d/])\d+\ \d+/\d+(?![\d/]))          # mixed fraction: 1 1/2
  | (?P<fraction>(?<![\d/])\d+/\d+(?![\d/]))            # fraction: 3/4 (not a date 12/25/2020)
  | (?P<grouped>\d{1,3}(?:,\d{3})+(?:\.\d+)?(?!\d))     # thousands separators: 1,200 and 1,200.50
  | (?P<plain>\d+(?:\.\d+)?)                            # integer or decimal: 56, 0.5, 20 in 20kmph
  | (?P<bare>(?<![\w.])\.\d+)                           # leading-dot decimal: .5 (but not Rs.500)
)
"""

_PERCENT = r"(?P<percent>\ ?%)?"

# The leading lookahead lets the scan skip in one step every position that cannot start a number.
_NUMBER_RE = re.compile(r"(?=[-\u2212.\d])" + _SIGN + _VALUE + _PERCENT, re.VERBOSE)

_MINUS_SIGNS = str.maketrans({"\u2212": "-"})


@dataclass(frozen=True)
class NumberMention:
    """One number in a text: ``text[start:end] == mention.text``.

    ``kind`` is ``integer``, ``decimal``, ``fraction``, ``mixed`` (``1 1/2``) or ``percent``.
    """

    text: str
    start: int
    end: int
    kind: str


def _kind(match: re.Match[str]) -> str:
    if match.group("percent"):
        return "percent"
    if match.group("mixed"):
        return "mixed"
    if match.group("fraction"):
        return "fraction"
    return "decimal" if "." in match.group("value") else "integer"


def find_numbers(text: str) -> list[NumberMention]:
    """Every number in ``text``, in order, with its position.

    >>> [(m.text, m.kind) for m in find_numbers("Save 25% on $1,200.50")]
    [('25%', 'percent'), ('1,200.50', 'decimal')]
    """
    return [NumberMention(m.group(0), m.start(), m.end(), _kind(m)) for m in _NUMBER_RE.finditer(text)]


def extract_numbers(text: str) -> list[str]:
    """The numbers of ``text`` as written, in order; currency symbols and units are left out.

    >>> extract_numbers("A train at 20kmph covers 1 1/2 km; Rs. 500 is -3.5 more than €3.50")
    ['20', '1 1/2', '500', '-3.5', '3.50']
    """
    return [mention.text for mention in find_numbers(text)]


_DECIMAL_RE = re.compile(r"[-+]?(?:\d{1,3}(?:,\d{3})+(?:\.\d*)?|\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?")


def _canonical_decimal(raw: str) -> str:
    raw = raw.strip()
    if not _DECIMAL_RE.fullmatch(raw):
        raise ValueError(f"not a number: {raw!r}")
    try:
        value = Decimal(raw.replace(",", ""))
    except InvalidOperation:  # pragma: no cover - the pattern admits only valid decimals
        raise ValueError(f"not a number: {raw!r}") from None
    text = format(value.normalize(), "f")
    return "0" if text in {"-0", "0"} else text


def normalize_number(number: str) -> str:
    """A canonical spelling of a number, for comparing numbers written differently.

    Thousands separators go, trailing zeros go, a unicode minus becomes ``-``, and a percent
    sign goes: ``25%`` is the number 25 written as a percentage, as ``25 percent`` would be (and as
    the MAWPS ``Numbers`` column lists it). Fractions keep their form (``2/4`` is not ``1/2``
    or ``0.5``).

    >>> [normalize_number(n) for n in ["1,200", "56.0", ".50", "25 %", "1  1/2", "\u22123"]]
    ['1200', '56', '0.5', '25', '1 1/2', '-3']

    Raises ``ValueError`` for text that is not a number.
    """
    text = number.strip().translate(_MINUS_SIGNS)
    if text.endswith("%"):
        return normalize_number(text[:-1])
    whole, _, fraction = text.rpartition(" ") if "/" in text else ("", "", text)
    if "/" in fraction:
        numerator, _, denominator = fraction.partition("/")
        canonical = f"{_canonical_decimal(numerator)}/{_canonical_decimal(denominator)}"
        return f"{_canonical_decimal(whole)} {canonical}" if whole.strip() else canonical
    if " " in text or not text:
        raise ValueError(f"not a number: {number!r}")
    return _canonical_decimal(text)
