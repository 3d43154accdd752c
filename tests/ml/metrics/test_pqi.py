"""SCANNING's sigma, nu, delta and PQI against the original, on hand-computed values."""
import pytest

from ml.metrics import (
    SCORE_KEYS,
    diversity,
    diversity_parts,
    numeracy,
    pair_diversity,
    paraphrase_scores,
    paraphrase_scores_many,
    pqi,
    sigma,
)

ORIGINAL = "A train covers 300 km in 5 hours."
# a 0, train 1/7, cover 2/7, 300 3/7, km 4/7, in 5/7, 5 6/7, hour 1
# in 0, five 1/7, hour 2/7, a 3/7, train 4/7, cover 5/7, 300 6/7, km 1
# shared: a, train, cover, 300, km move 3/7; in, hour move 5/7 ("5" and "five" differ as lemmas)
# WPD = (5 * 3/7 + 2 * 5/7) / 7 = 25/49
REORDERED = "In five hours, a train covers 300 km."


def test_sigma():
    assert sigma(0.96) == pytest.approx(0.98)
    assert sigma(-1.0) == 0.0 and sigma(1.0) == 1.0 and sigma(1.2) == 1.0 and sigma(-3.0) == 0.0
    with pytest.raises(ValueError):
        sigma(float("nan"))


def test_numeracy_missing_and_hallucinated_numbers():
    assert numeracy("Add 2, 3 and 5.", "Add 2 and 3.") == pytest.approx((2 / 3) ** 3)
    assert numeracy("Tom has 4 pens.", "Tom has 4 pens and 7 pencils.") == pytest.approx((1 / 2) ** 3)
    assert numeracy("Add 2, 3 and 5.", "Add 2 and 3.", p=1) == pytest.approx(2 / 3)
    # Multisets: two 3s against one 3 and a 4 share one of two.
    assert numeracy("3 boxes of 3 pens", "3 boxes of 4 pens") == pytest.approx((1 / 2) ** 3)
    with pytest.raises(ValueError):
        numeracy("1", "1", p=0)


def test_numeracy_compares_values_not_strings():
    x = "He paid $4.50 for 2.5 kg, 3/4 of 1,350 and 25% more."
    y = "He paid 4.50 dollars for two point five kg, 0.75 of 1350 and 25 percent more."
    assert numeracy(x, y) == 1.0
    assert numeracy("It weighs 5/2 kg.", "It weighs two and a half kg.") == 1.0


def test_numeracy_without_numbers():
    assert numeracy("How fast is it?", "What is its speed?") == 1.0
    assert numeracy("It takes 5 hours.", "It takes hours.") == 0.0
    assert numeracy("It takes hours.", "It takes 5 hours.") == 0.0


def test_pqi_formula():
    # Table 2, PAP on AquaRAT: S 0.98, D 0.29, N 1.00 -> PQI reported 0.72.
    assert pqi(0.98, 0.29, 1.0) == pytest.approx(0.98**0.5 * 0.29**0.25)
    assert pqi(0.98, 0.29, 1.0) == pytest.approx(0.72, abs=0.01)
    # 0.0625^0.25 = 0.5 and 0.25^0.5 = 0.5: each weight in turn.
    assert pqi(0.25, 1.0, 1.0) == pytest.approx(0.5)
    assert pqi(1.0, 0.0625, 1.0) == pytest.approx(0.5)
    assert pqi(1.0, 1.0, 0.0625) == pytest.approx(0.5)
    assert pqi(0.9, 0.0, 1.0) == 0.0 and pqi(0.0, 0.5, 1.0) == 0.0 and pqi(0.9, 0.5, 0.0) == 0.0
    with pytest.raises(ValueError):
        pqi(1.2, 0.5, 0.5)


def test_copy_scores_zero_diversity_and_pqi(spacy_model):
    assert diversity_parts(ORIGINAL, f" {ORIGINAL}\n", spacy_model=spacy_model) == (1.0, 0.0, 0.0, 0.0)
    scores = paraphrase_scores(ORIGINAL, ORIGINAL, cosine=0.999, spacy_model=spacy_model)
    assert scores["D"] == 0.0 and scores["PQI"] == 0.0
    assert scores["bleu_div"] == 0.0 and scores["wpd"] == 0.0 and scores["N"] == 1.0
    assert pair_diversity(ORIGINAL, ORIGINAL, spacy_model=spacy_model) == 0.0


def test_diversity_by_hand(spacy_model):
    # BLEU (see test_bleu): (5/6 * 2/5 * 1/8 * 1/12)^(1/4); WPD 2/3 (see test_wpd).
    bleu = (5 / 6 * 2 / 5 * 1 / 8 * 1 / 12) ** 0.25
    expected = 0.6 * (1 - bleu) + 0.4 * 2 / 3
    assert diversity("Tom has 5 apples.", "5 apples, Tom has.", spacy_model=spacy_model) == pytest.approx(expected)


def test_paraphrase_scores(spacy_model):
    scores = paraphrase_scores(ORIGINAL, REORDERED, cosine=0.96, spacy_model=spacy_model)
    assert tuple(scores) == SCORE_KEYS == ("S", "D", "N", "PQI", "bleu_div", "wpd", "paraqd")
    assert scores["paraqd"] == 0.96 and scores["S"] == pytest.approx(0.98)
    assert scores["N"] == 1.0  # "five" is 5
    assert scores["wpd"] == pytest.approx(25 / 49)
    assert scores["D"] == pytest.approx(0.6 * scores["bleu_div"] + 0.4 * 25 / 49)
    assert scores["PQI"] == pytest.approx(0.98**0.5 * scores["D"] ** 0.25)
    assert 0.0 < scores["bleu_div"] < 1.0


def test_many_equals_one_by_one_and_pair_diversity(spacy_model):
    candidates = [REORDERED, ORIGINAL, "In 5 hours a train goes 300 km."]
    many = paraphrase_scores_many(ORIGINAL, candidates, [0.96, 1.0, 0.9], spacy_model=spacy_model)
    assert many == [paraphrase_scores(ORIGINAL, c, cosine=s, spacy_model=spacy_model)
                    for c, s in zip(candidates, [0.96, 1.0, 0.9])]
    assert pair_diversity(REORDERED, candidates[2], spacy_model=spacy_model) == diversity(
        REORDERED, candidates[2], spacy_model=spacy_model)
    with pytest.raises(ValueError):
        paraphrase_scores_many(ORIGINAL, candidates, [0.9], spacy_model=spacy_model)
