from collections import Counter
from fractions import Fraction

from ml.text.number_mentions import find_all_numbers, number_signature, numeral_value


def test_digits_and_words_are_merged_in_order_with_exact_values():
    spans = find_all_numbers("Three men paid $1,200 for 2.5 kg and 1 1/2 hours, 20% more.")
    assert [(s.text, s.source, s.value) for s in spans] == [
        ("Three", "words", 3), ("1,200", "digits", 1200), ("2.5", "digits", Fraction(5, 2)),
        ("1 1/2", "digits", Fraction(3, 2)), ("20%", "digits", 20),
    ]


def test_signature_is_the_same_however_numbers_are_written():
    assert number_signature("He ran 2.5 km in twenty minutes.") == number_signature("He ran two point five km in 20 minutes.")
    assert number_signature("John ate 5 apples.") == Counter({Fraction(5): 1})
    assert number_signature("John ate some apples.") == Counter()


def test_numeral_value():
    assert numeral_value("-3.5") == Fraction(-7, 2)
    assert numeral_value("3/4") == Fraction(3, 4)
