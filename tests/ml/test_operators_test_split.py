"""The test operators fa-fe (ParaQD 4.2)."""
import random

import pytest

from ml.text.number_mentions import number_signature
from ml.operators import (
    CorruptionConfig,
    OperatorNotApplicable,
    RandomDeletionConfig,
    TfidfConfig,
    corrupt,
    fa_active_to_passive,
    fb_corrupted_reconstruction,
    fc_tfidf_replacement,
    fd_random_deletion,
    fe_seq2seq_paraphraser,
    fit_tfidf,
)

CORPUS = [
    "A train covers 300 km in 5 hours. What is its speed?",
    "A car travels 120 km in 2 hours. Find its speed.",
    "John bought 5 apples and 3 pears. How many fruits did he buy?",
    "A pipe fills a tank in 6 hours. How long do two pipes take?",
    "Mary has 20 dollars and spends 5 dollars on books.",
]


def test_fa_is_the_passive_rule_under_its_own_name(spacy_model):
    result = fa_active_to_passive("John bought 5 apples.", random.Random(0), spacy_model=spacy_model)
    assert result.text == "5 apples were bought by John." and result.operator == "fa" and result.valid
    with pytest.raises(OperatorNotApplicable):
        fa_active_to_passive("How many apples are left?", random.Random(0), spacy_model=spacy_model)


@pytest.mark.parametrize("operator", [fb_corrupted_reconstruction, fe_seq2seq_paraphraser])
def test_fb_and_fe_wait_for_the_platform_generator(operator):
    with pytest.raises(OperatorNotApplicable, match=r"needs the platform generator \(not built yet\)"):
        operator("John bought 5 apples.", random.Random(0))


def test_fb_reconstructs_a_corrupted_question_with_a_given_generator():
    seen = []

    def generator(texts):
        seen.extend(texts)
        return ["John purchased 5 apples."]

    result = fb_corrupted_reconstruction("John bought 5 apples at the market.", random.Random(0), generator=generator)
    assert result.text == "John purchased 5 apples." and result.valid
    assert seen == [result.meta["corrupted"]]


def test_corruption_keeps_numbers_and_units():
    text = "A train covers 300 km in 5 hours and then stops at 2 stations before noon."
    config = CorruptionConfig(delete_probability=0.3, replace_probability=0.3, swap_probability=0.3)
    outputs = set()
    for seed in range(40):
        corrupted = corrupt(text, random.Random(seed), config)
        assert number_signature(corrupted) == number_signature(text) and "km" in corrupted
        outputs.add(corrupted)
    assert len(outputs) > 30


def test_fe_returns_the_generator_output_as_a_negative():
    result = fe_seq2seq_paraphraser("John bought 5 apples.", random.Random(0), generator=lambda t: ["John bought apples."])
    assert result.text == "John bought apples." and not result.valid


def test_fc_replaces_the_highest_tfidf_words_with_vocabulary_words():
    model = fit_tfidf(CORPUS)
    text = "A train covers 300 km in 5 hours. What is its speed?"
    scores = model.scores(text)
    assert "is" not in scores and "300" not in scores  # stop words and numbers are never replaced
    for seed in range(20):
        result = fc_tfidf_replacement(text, random.Random(seed), tfidf=model, config=TfidfConfig(fraction=0.01))
        (old, new), = result.meta["replaced"].items()
        assert scores[old] == max(scores.values())
        assert new in model.vocabulary and new != old
        assert old not in result.text.lower().split() and not result.valid
        assert number_signature(result.text) == number_signature(text)


def test_fc_refuses_without_a_fitted_model():
    with pytest.raises(OperatorNotApplicable, match="TF-IDF"):
        fc_tfidf_replacement("A train covers 300 km.", random.Random(0))


def test_fd_random_deletion():
    text = "A train covers 300 km in 5 hours. What is its speed?"
    words = text.split()
    for seed in range(50):
        result = fd_random_deletion(text, random.Random(seed))
        kept = result.text.split()
        assert 1 <= len(words) - len(kept) == len(result.meta["deleted"])
        assert not result.valid
    heavy = fd_random_deletion(text, random.Random(0), config=RandomDeletionConfig(probability=0.9))
    assert 1 <= len(heavy.text.split()) < len(words) // 2
    with pytest.raises(OperatorNotApplicable):
        fd_random_deletion("Hello", random.Random(0))
    with pytest.raises(ValueError):
        RandomDeletionConfig(probability=1.0)
