"""Word position deviation (Liu & Soh 2022) on hand-worked pairs."""
import pytest

from ml.metrics import cache_lemmas, position_lemmas, word_position_deviation, wpd
from ml.text.nlp import parse


def test_permutation():
    # "a b c d": a 0, b 1/3, c 2/3, d 1; "d b c a": d 0, b 1/3, c 2/3, a 1.
    # |a| = 1, |b| = 0, |c| = 0, |d| = 1 -> WPD = 2/4.
    assert word_position_deviation(list("abcd"), list("dbca")) == 0.5
    assert word_position_deviation(list("abcd"), list("abcd")) == 0.0


def test_repeated_lemma():
    # a: the 0, cat 1/4, saw 2/4, the 3/4, dog 1;  b: the 0, dog 1/3, saw 2/3, cat 1.
    # "the": 2 occurrences in a, 1 in b: start from a, nearest distances 0 and 3/4 -> 3/8.
    # cat |1/4 - 1| = 3/4; saw |1/2 - 2/3| = 1/6; dog |1 - 1/3| = 2/3.
    # WPD = (3/8 + 3/4 + 1/6 + 2/3) / 4 = (47/24) / 4 = 47/96.
    a = ["the", "cat", "saw", "the", "dog"]
    b = ["the", "dog", "saw", "cat"]
    assert word_position_deviation(a, b) == pytest.approx(47 / 96)
    assert word_position_deviation(b, a) == pytest.approx(47 / 96)  # the side with more occurrences leads


def test_start_from_the_side_with_more_occurrences():
    # x at [0] against x at [0, 1]: from the two-occurrence side, distances 0 and 1 -> 0.5
    # (starting from the single one would give 0).
    assert word_position_deviation(["x", "y"], ["x", "z", "x"]) == 0.5
    assert word_position_deviation(["x", "z", "x"], ["x", "y"]) == 0.5


def test_tie_starts_from_the_first_text():
    # x at [0, 1] (a) and at [0, 1/4] (b). From a: 0 and 3/4 -> 3/8; from b: 0 and 1/4 -> 1/8.
    a = ["x", "q", "x"]
    b = ["x", "x", "r", "s", "t"]
    assert word_position_deviation(a, b) == pytest.approx(3 / 8)
    assert word_position_deviation(b, a) == pytest.approx(1 / 8)


def test_no_shared_lemma_and_one_token_texts():
    assert word_position_deviation(["a", "b"], ["c", "d"]) == 1.0
    assert word_position_deviation([], ["c"]) == 1.0
    assert word_position_deviation(["x"], ["y", "x"]) == 1.0  # one token sits at position 0
    assert word_position_deviation(["x"], ["x"]) == 0.0


def test_wpd_on_text_drops_punctuation_and_case(spacy_model):
    # tom have 5 apple -> 5 apple tom have: every lemma moves by 2/3 (the comma is not counted).
    assert position_lemmas("5 apples, Tom has.", spacy_model=spacy_model) == ("5", "apple", "tom", "have")
    assert wpd("Tom has 5 apples.", "5 apples, Tom has.", spacy_model=spacy_model) == pytest.approx(2 / 3)
    assert wpd("Tom has 5 apples.", "tom has 5 apples!", spacy_model=spacy_model) == 0.0
    assert wpd("Tom has 5 apples.", "Tom has 5 apples.", spacy_model=spacy_model) == 0.0
    assert wpd("Tom has 5 apples.", "Why?", spacy_model=spacy_model) == 1.0


def test_batched_lemmas_equal_full_parse(spacy_model):
    texts = [
        "Mr. Smith leaves at 3:30 pm and drives 120 miles at 40 mph. When does he arrive?",
        "The trains were running faster than the buses; how many minutes are saved?",
        "Mary's 2.5 kg of apples cost $4.50, didn't they?",
    ]
    cache_lemmas(texts, spacy_model=spacy_model)
    for text in texts:
        full = tuple(t.lemma_.lower() for t in parse(text, spacy_model) if any(c.isalnum() for c in t.text))
        assert position_lemmas(text, spacy_model=spacy_model) == full
