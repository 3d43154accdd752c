"""Numbers in word-problem text: found as written, compared in canonical form."""

from __future__ import annotations

import pytest

import ml
from ml.text.numbers import extract_numbers, find_numbers, normalize_number


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Tom has 3 apples and buys 12 more.", ["3", "12"]),
        ("It weighs 0.75 kg, or 2.50 pounds.", ["0.75", "2.50"]),
        ("The city has 1,200 houses and a budget of 1,200.50 dollars.", ["1,200", "1,200.50"]),
        ("A lottery pays 2,500,000 to one winner.", ["2,500,000"]),
        ("At night it is -5 degrees, at noon (-2) and later −3.", ["-5", "-2", "−3"]),
        ("She ate 3/4 of the cake and 1 1/2 pies.", ["3/4", "1 1/2"]),
        ("Prices rose by 25% and then by 2.5 %.", ["25%", "2.5 %"]),
        ("A pen costs $12, a book $ 4 and a bag €3.50.", ["12", "4", "3.50"]),
        ("He paid Rs. 500 and then Rs.250 more.", ["500", "250"]),
        ("A train at 20kmph passes a 750m bridge; [1km = 0.6 miles]", ["20", "750", "1", "0.6"]),
        ("A coin is worth $.25 or .5 of a token.", [".25", ".5"]),
        ("It costs 12. It weighs 4.", ["12", "4"]),
        ("He was the 2nd of 10 runners.", ["2", "10"]),
    ],
)
def test_extract_numbers_finds_numbers_as_written(text, expected):
    assert extract_numbers(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Compute 5-3 and x-2 and 5 - 3.", ["5", "3", "2", "5", "3"]),  # minus between terms, not a sign
        ("A 120-page book", ["120"]),
        ("On 12/25/2020 he left.", ["12", "25", "2020"]),  # a date is not a fraction
        ("The list 3,4 and 12,34567", ["3", "4", "12", "34567"]),  # not thousands groups
        ("Version 1.2.3", ["1.2", "3"]),
        ("No numbers here.", []),
        ("", []),
    ],
)
def test_extract_numbers_edge_cases(text, expected):
    assert extract_numbers(text) == expected


def test_numbers_keep_their_spelling_and_position():
    text = "Save 25% on a $1,200.50 sofa, then pay -3/4 of 2 1/3 more"
    mentions = find_numbers(text)
    assert [m.kind for m in mentions] == ["percent", "decimal", "fraction", "mixed"]
    for mention in mentions:
        assert text[mention.start : mention.end] == mention.text


@pytest.mark.parametrize(
    ("raw", "canonical"),
    [
        ("56.0", "56"),
        ("56", "56"),
        ("0.5", "0.5"),
        (".50", "0.5"),
        ("1,200", "1200"),
        ("1,200.50", "1200.5"),
        ("007", "7"),
        ("100", "100"),
        ("-0.0", "0"),
        ("−3", "-3"),
        ("25 %", "25"),
        ("2.50%", "2.5"),
        ("3/4", "3/4"),
        ("1  1/2", "1 1/2"),
        ("1e-4", "0.0001"),
    ],
)
def test_normalize_number(raw, canonical):
    assert normalize_number(raw) == canonical


@pytest.mark.parametrize("raw", ["", "abc", "1,2", "1 2", "nan", "inf", "$5"])
def test_normalize_number_refuses_non_numbers(raw):
    with pytest.raises(ValueError, match="not a number"):
        normalize_number(raw)


def test_extracted_numbers_normalise_to_the_values_they_stand_for():
    text = "A 1,000.0 m track is run in 3.50 minutes, 25 % faster."
    assert [normalize_number(n) for n in extract_numbers(text)] == ["1000", "3.5", "25"]


def test_package_reexports_the_number_functions():
    assert ml.extract_numbers is extract_numbers
    assert ml.normalize_number is normalize_number
    assert ml.find_numbers is find_numbers
