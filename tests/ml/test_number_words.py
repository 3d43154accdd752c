from fractions import Fraction

import pytest

from ml.text.number_words import find_number_words, format_number, number_to_words, ordinal_words, words_to_number


@pytest.mark.parametrize(("number", "words"), [
    ("2.5", "two point five"),
    ("1,200", "one thousand two hundred"),
    ("0", "zero"),
    ("15", "fifteen"),
    ("21", "twenty-one"),
    ("100", "one hundred"),
    ("101", "one hundred one"),
    ("12,345,678", "twelve million three hundred forty-five thousand six hundred seventy-eight"),
    ("3000000000", "three billion"),
    ("-42", "minus forty-two"),
    ("0.05", "zero point zero five"),
    (".5", "zero point five"),
    ("3/4", "three quarters"),
    ("1/2", "one half"),
    ("2/3", "two thirds"),
])
def test_number_to_words(number, words):
    assert number_to_words(number) == words


def test_number_to_words_accepts_numbers_and_ordinals():
    assert number_to_words(7) == "seven"
    assert number_to_words(Fraction(5, 2)) == "two point five"
    assert number_to_words(Fraction(1, 3)) == "one third"
    assert number_to_words(2.25) == "two point two five"
    assert number_to_words(21, ordinal=True) == "twenty-first"
    assert [ordinal_words(n) for n in (1, 2, 3, 12, 20, 100)] == [
        "first", "second", "third", "twelfth", "twentieth", "one hundredth"]


@pytest.mark.parametrize("bad", ["", "abc", "1,20", "1/0", "10" * 10])
def test_number_to_words_rejects_non_numbers_and_huge_numbers(bad):
    with pytest.raises(ValueError):
        number_to_words(bad)


@pytest.mark.parametrize("number", ["0", "7", "13", "40", "99", "100", "110", "999", "1,001", "20,000", "123,456",
                                    "7,000,000", "2.5", "0.75", "-3", "3/4", "2/3", "1/8"])
def test_round_trip_digits_words_digits(number):
    value = words_to_number(number_to_words(number))
    assert value == Fraction(number.replace(",", ""))


@pytest.mark.parametrize("n", [1, 2, 3, 5, 8, 9, 11, 12, 20, 21, 42, 99, 101, 123])
def test_round_trip_ordinals(n):
    assert words_to_number(ordinal_words(n)) == n


@pytest.mark.parametrize(("words", "value"), [
    ("twenty-five", 25),
    ("Twenty Five", 25),
    ("one hundred and five", 105),
    ("a dozen", 12),
    ("two dozen", 24),
    ("a hundred", 100),
    ("minus two point five", Fraction(-5, 2)),
    ("one and a half", Fraction(3, 2)),
    ("one-third", Fraction(1, 3)),
])
def test_words_to_number(words, value):
    assert words_to_number(words) == value


@pytest.mark.parametrize("bad", ["five six", "two and three", "hundred five", "a", "apples", "one thirds"])
def test_words_to_number_rejects_non_numbers(bad):
    with pytest.raises(ValueError):
        words_to_number(bad)


def test_find_number_words_spans_and_values():
    text = "Three birds flew one hundred and five km; two and three more, a dozen eggs, two thirds of it."
    found = find_number_words(text)
    assert [(m.text, m.value) for m in found] == [
        ("Three", 3), ("one hundred and five", 105), ("two", 2), ("three", 3), ("a dozen", 12),
        ("two thirds", Fraction(2, 3)),
    ]
    assert all(text[m.start:m.end] == m.text for m in found)
    assert found[0].kind == "integer" and found[-1].kind == "fraction"


def test_find_number_words_leaves_out_ordinals_and_lone_articles_unless_asked():
    text = "A man came second on the third day, a third of them."
    assert [m.text for m in find_number_words(text)] == ["a third"]
    assert [m.text for m in find_number_words(text, ordinals=True)] == ["second", "third", "a third"]


def test_coins_are_not_fractions():
    assert [(m.text, m.value) for m in find_number_words("Alice has twenty quarters.")] == [("twenty", 20)]


def test_format_number_is_canonical():
    assert [format_number(v) for v in (Fraction(5, 2), Fraction(1, 3), 12, Fraction(-1, 4))] == ["2.5", "1/3", "12", "-0.25"]
