"""Sentence BLEU on the 0-1 scale, checked against BLEU computed by hand (13a tokens)."""
import pytest

from ml.metrics import BLEU_SETTINGS, bleu_against, sentence_bleu


def test_settings_name_tokenizer_and_smoothing():
    assert "tokenize=13a" in BLEU_SETTINGS and "smooth=exp" in BLEU_SETTINGS and "effective_order=True" in BLEU_SETTINGS


def test_copy_is_exactly_one():
    text = "A train covers 300 km in 5 hours. What is its speed?"
    assert sentence_bleu(text, text) == 1.0
    assert sentence_bleu(f"  {text}\n", text) == 1.0
    assert sentence_bleu("", "") == 1.0


def test_one_word_changed():
    # Tokens: A train runs 300 km in 5 hours . (9, reference 9, BP = 1).
    # Matches: 1-grams 8/9, 2-grams 6/8, 3-grams 4/7, 4-grams 3/6.
    expected = (8 / 9 * 6 / 8 * 4 / 7 * 3 / 6) ** 0.25
    assert sentence_bleu("A train runs 300 km in 5 hours.", "A train covers 300 km in 5 hours.") == pytest.approx(expected)


def test_exp_smoothing_of_orders_without_match():
    # Candidate: 5 apples , Tom has . (6); reference: Tom has 5 apples . (5).
    # 1-grams 5/6, 2-grams 2/5 (5 apples, Tom has); 3-grams 0/4 -> 1/(2*4); 4-grams 0/3 -> 1/(4*3).
    expected = (5 / 6 * 2 / 5 * 1 / 8 * 1 / 12) ** 0.25
    assert sentence_bleu("5 apples, Tom has.", "Tom has 5 apples.") == pytest.approx(expected)


def test_brevity_penalty():
    # Candidate: A train covers 300 km . (6) against 9 reference tokens: BP = exp(1 - 9/6).
    # 1-grams 6/6, 2-grams 4/5, 3-grams 3/4, 4-grams 2/3.
    expected = (1 * 4 / 5 * 3 / 4 * 2 / 3) ** 0.25 * 2.718281828459045 ** (1 - 9 / 6)
    assert sentence_bleu("A train covers 300 km.", "A train covers 300 km in 5 hours.") == pytest.approx(expected)


def test_disjoint_is_zero_and_several_references():
    assert sentence_bleu("How fast?", "Tom has apples.") == 0.0
    assert bleu_against("Tom has apples.", ["How fast?", "Tom has apples."]) == 1.0
    with pytest.raises(ValueError):
        bleu_against("x", [])
