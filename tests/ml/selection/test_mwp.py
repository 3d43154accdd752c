from fractions import Fraction

import pytest

from ml.selection import SelectionCandidate, keeps_numbers, mwp_select

SOURCE = "Ann had 5 pens and bought 3 more. How many pens does she have?"
CANDS = [
    SelectionCandidate("Ann had five pens and then bought 3 more. How many now?", {"paraqd": 0.7}),  # 0 keeps 5, 3
    SelectionCandidate("Ann had some pens and bought 3 more. How many pens?", {"paraqd": 0.6}),     # 1 lost 5
    SelectionCandidate("With 5 pens, Ann buys 3 more. How many pens?", {"paraqd": 0.95}),           # 2 keeps
    SelectionCandidate("Ann had 5 pens and bought 3 others. Count them.", {"paraqd": 0.5}),         # 3 not > 0.5
    SelectionCandidate("Having 5 pens, Ann got three more. Total?", {"paraqd": 0.62}),              # 4 keeps
]


def test_hardest_valid_first_and_number_filter():
    # Survivors (numbers kept, score > 0.5): 0 (0.7), 2 (0.95), 4 (0.62); 1 lost the 5 despite
    # its 0.6, 3 sits exactly at the threshold. Lowest score first: 4, 0, 2.
    eq = {Fraction(5), Fraction(3)}
    assert mwp_select(SOURCE, CANDS, k=3, equation_numbers=eq) == [4, 0, 2]
    assert mwp_select(SOURCE, CANDS, equation_numbers=eq) == [4]
    assert mwp_select(SOURCE, CANDS, k=5) == [4, 0, 2]   # no equation: the source's numbers
    assert mwp_select(SOURCE, CANDS, k=5, threshold=0.65) == [0, 2]


def test_only_the_equation_numbers_are_required():
    # equation x = 3 (the 5 is a distractor): candidate 1, which lost the 5, now survives
    assert mwp_select(SOURCE, CANDS, k=5, equation_numbers=[Fraction(3)]) == [1, 4, 0, 2]


def test_equation_constants_and_percentages():
    source = "A shirt costs 40 dollars with a 20% discount. What is the price?"
    cands = [
        SelectionCandidate("With 20% off, a 40 dollar shirt costs what?", {"paraqd": 0.9}),
        SelectionCandidate("With 15% off, a 40 dollar shirt costs what?", {"paraqd": 0.8}),
        SelectionCandidate("With twenty percent off, a forty dollar shirt costs what?", {"paraqd": 0.85}),
    ]
    # equation 40 * (1 - 0.2): 0.2 is the source's 20%; 1 is a constant the text never states
    eq = [Fraction(40), Fraction(1), Fraction(1, 5)]
    assert mwp_select(source, cands, k=3, equation_numbers=eq) == [2, 0]


def test_keeps_numbers():
    assert keeps_numbers("two and 2.5", [Fraction(2), Fraction(5, 2)])
    assert not keeps_numbers("two and 2.4", [Fraction(2), Fraction(5, 2)])
    assert keeps_numbers("no numbers", [])


def test_validation():
    with pytest.raises(ValueError):
        mwp_select(SOURCE, CANDS, k=-1)
    with pytest.raises(ValueError, match="paraqd"):
        mwp_select(SOURCE, [SelectionCandidate("5 and 3")], k=1)
