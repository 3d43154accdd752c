"""Comparing answers with tolerance and reading the datasets' gold answers."""
from __future__ import annotations

from fractions import Fraction

import pytest

from ml.verify import format_answer, gold_value, parse_answer, same_answer

AQUA_OPTIONS = ["A)21", "B)21.5", "C)24", "D)Rs. 1,200", "E)None of these"]


def test_same_answer_within_tolerance_only():
    assert same_answer(35, 35.0)
    assert same_answer(0.1 + 0.2, 0.3)
    assert same_answer(1_000_000, 1_000_050)  # relative 5e-5 < 1e-4
    assert not same_answer(35, 35.01)
    assert not same_answer(35, 40)
    assert same_answer(0.0, 5e-7) and not same_answer(0.0, 1e-5)  # the absolute tolerance near zero
    assert same_answer(35, 35.01, rel=1e-3)  # the tolerance is a parameter


def test_same_answer_reads_strings_and_refuses_nothing_as_a_match():
    assert same_answer(4.5, "$4.50")
    assert same_answer("1,200", 1200)
    assert same_answer(0.75, "3/4")
    assert same_answer(12.5, "12.5%") and same_answer(0.125, "12.5%")
    assert same_answer(33.3333333, "33.33")  # an option rounded to two decimals
    assert not same_answer(2.54, "2.5")  # one decimal is too coarse to claim a rounding
    assert not same_answer(None, None)
    assert not same_answer(None, 3) and not same_answer("no number", 3)
    assert not same_answer(float("nan"), float("nan"))


@pytest.mark.parametrize("answer, options, expected", [
    ("35", None, 35.0),
    ("$4.50", None, 4.5),
    ("$1,200", None, 1200.0),
    ("3/4", None, 0.75),
    ("12.5%", None, 12.5),
    ("-3", None, -3.0),
    ("1 1/2", None, 1.5),
    ("A) 24", None, 24.0),
    ("#### 72", None, 72.0),
    ("Natalia sold 48/2 = 24 clips in May.\n#### 72", None, 72.0),
    ("#### 1,000", None, 1000.0),
    ("C", AQUA_OPTIONS, 24.0),
    ("(B)", AQUA_OPTIONS, 21.5),
    ("d", AQUA_OPTIONS, 1200.0),
    ("E", AQUA_OPTIONS, None),  # "None of these" has no number
    ("B", ["10", "20", "30"], 20.0),  # options without labels are in order
    ("C", None, None),  # a letter means nothing without its options
    (Fraction(7, 2), None, 3.5),
    (12, None, 12.0),
    (None, None, None),
])
def test_gold_value(answer, options, expected):
    assert gold_value(answer, options) == expected


def test_parse_answer():
    assert parse_answer("5 1/3 hours") == pytest.approx(16 / 3)
    assert parse_answer("no digits here") is None


@pytest.mark.parametrize("value, text", [
    (35.000000001, "35"), (4.5, "4.5"), (0.25, "0.25"), (1 / 3, "0.333333"), (-2.0, "-2"),
    (1234567.5, "1234567.5"), (1e-9, "1e-09"), (None, "none"),
])
def test_format_answer(value, text):
    assert format_answer(value) == text
