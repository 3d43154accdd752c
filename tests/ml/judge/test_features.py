"""The numeracy-aware judge's features on hand-made pairs, and the judge's fit, refit, save, load
and explanations. The alignment features use the packaged MiniLM's token embeddings."""
import json

import numpy as np
import pytest

from ml.judge import FEATURE_NAMES, NumeracyJudge, batch_features, pair_features, sentence_transformer_tokens
from ml.judge.features import alignment, entity_difference, foreign_words, number_difference, unit_difference

ORIGINAL = "Sara drove 12 km to buy 3 apples for $4."


def test_a_changed_number_is_seen_by_value():
    assert number_difference(ORIGINAL, "Sara drove 15 km to buy 3 apples for $4.") == (["12"], ["15"])
    # The same values written differently are the same numbers.
    assert number_difference("Tom has 3 pens and 1,200 cards.", "Tom has three pens and 1200 cards.") == ([], [])
    f = pair_features(ORIGINAL, "Sara drove 15 km to buy 3 apples for $4.", cosine=0.98)
    assert f.values["numbers_missing"] == 1 and f.values["numbers_added"] == 1 and f.values["numeracy"] < 0.5


def test_a_dropped_or_changed_unit():
    kept, missing = unit_difference(ORIGINAL, "Sara drove 12 miles to buy 3 apples for $4.")
    assert kept == 0.5 and missing == ["kilometre"]  # km gone; the dollar sign kept
    assert unit_difference(ORIGINAL, "To buy 3 apples for 4 dollars, Sara drove 12 kilometres.") == (1.0, [])


def test_a_replaced_name(spacy_model):
    kept, missing = entity_difference(ORIGINAL, "Priya drove 12 km to buy 3 apples for $4.", spacy_model=spacy_model)
    assert kept == 0.0 and missing == ["Sara"]
    assert entity_difference(ORIGINAL, "For $4, Sara bought 3 apples after a 12 km drive.",
                             spacy_model=spacy_model) == (1.0, [])
    # Single-letter variables are not names.
    assert entity_difference("If x + y = 12 and X is 3, find Y.", "Find Y if x + y = 12 and X is 3.",
                             spacy_model=spacy_model) == (1.0, [])


def test_a_foreign_word(spacy_model):
    share, words, _ = foreign_words(ORIGINAL, "Sara drove 12 km to buy 3 bananas for $4.", spacy_model=spacy_model)
    assert words == ["bananas"] and 0 < share < 0.5
    share, words, wordnet = foreign_words(ORIGINAL, "Sara drove 12 km to purchase 3 apples for $4.",
                                          spacy_model=spacy_model)
    if wordnet:  # "purchase" is a WordNet synonym of "buy"
        assert words == [] and share == 0.0
    else:
        assert words == ["purchase"]


def test_the_identical_pair_passes_every_check(spacy_model):
    f = pair_features(ORIGINAL, ORIGINAL, cosine=1.0, spacy_model=spacy_model)
    assert f.values["numeracy"] == 1.0 and f.values["units_kept"] == 1.0 and f.values["entities_kept"] == 1.0
    assert f.values["foreign"] == 0.0 and f.values["length_ratio"] == 0.0
    assert f.missing_numbers == f.added_numbers == f.missing_units == f.missing_entities == f.foreign_words == []
    assert list(f.values) == list(FEATURE_NAMES) and len(f.vector()) == len(FEATURE_NAMES)


def test_alignment_on_hand_made_embeddings():
    a = np.eye(3)  # three orthogonal tokens
    b = np.eye(3)[:2]  # the candidate has two of them
    p, r, f = alignment(a, b)
    assert (p, r) == (1.0, pytest.approx(2 / 3)) and f == pytest.approx(0.8)
    assert alignment(a, np.zeros((0, 3))) == (0.0, 0.0, 0.0)


@pytest.fixture(scope="module")
def encoder():
    from ml.paraqd.model import get_scorer, resolve_encoder_path

    return get_scorer(resolve_encoder_path("packaged:all-MiniLM-L6-v2"), "cpu")


PAIRS = [
    ("To buy 3 apples for $4, Sara drove 12 km.", 1),
    ("Sara drove 12 km in order to buy 3 apples for $4.", 1),
    ("Sara drove 15 km to buy 3 apples for $4.", 0),
    ("Sara drove 12 miles to buy 3 apples for $4.", 0),
    ("Priya drove 12 km to buy 3 apples for $4.", 0),
    ("Sara drove 12 km to buy 3 apples for $9.", 0),
]


@pytest.fixture(scope="module")
def features(encoder, spacy_model):
    cosines = encoder.score([ORIGINAL] * len(PAIRS), [p for p, _ in PAIRS])
    return batch_features([ORIGINAL] * len(PAIRS), [p for p, _ in PAIRS], cosines=list(cosines),
                          token_embedder=sentence_transformer_tokens(encoder.model), spacy_model=spacy_model)


def test_token_alignment_from_the_encoder(features):
    reordered, copy_like = features[0].values, features[1].values
    assert 0.8 < reordered["align_f"] <= 1.0 and 0.8 < copy_like["align_f"] <= 1.0
    assert features[4].values["align_r"] < reordered["align_r"]  # a replaced name aligns worse


def test_judge_fit_explain_save_load(features, tmp_path):
    labels = [y for _, y in PAIRS]
    judge = NumeracyJudge(regularisation=10.0).fit(features * 3, labels * 3)
    probs = judge.probability(features)
    assert min(p for p, y in zip(probs, labels) if y) > max(p for p, y in zip(probs, labels) if not y)
    # Same data, same seed: the same weights.
    again = NumeracyJudge(regularisation=10.0).fit(features * 3, labels * 3)
    assert again.weights == judge.weights
    # Explanations name the failed check.
    checks = {c["check"]: c for c in judge.explain(features[2], probability=probs[2])}
    assert not checks["numbers"]["passed"] and "12 missing" in checks["numbers"]["detail"]
    assert "15 added" in checks["numbers"]["detail"]
    assert not {c["check"]: c for c in judge.explain(features[3])}["units"]["passed"]
    names = {c["check"]: c for c in judge.explain(features[4])}["names"]
    assert not names["passed"] and "'Sara'" in names["detail"]
    assert all(c["passed"] for c in judge.explain(features[0]) if c["check"] in ("numbers", "units", "names"))
    # Calibration on top, then JSON persistence (no pickle).
    judge.calibrate(features, labels, method="platt")
    path = judge.save(tmp_path / "judge")
    assert json.loads(path.read_text())["features"] == list(FEATURE_NAMES)
    loaded = NumeracyJudge.load(tmp_path / "judge")
    assert loaded.probability(features) == pytest.approx(judge.probability(features))
    assert loaded.threshold == judge.threshold


def test_refit_on_gold_labels_moves_the_decision(features):
    labels = [y for _, y in PAIRS]
    judge = NumeracyJudge().fit(features * 2, labels * 2)
    # Humans say the renamed person is fine: refitting with that gold, weighted up, raises it.
    gold = [features[4]] * 4
    refitted = NumeracyJudge().fit(features * 2, labels * 2).refit(gold, [1] * 4, weight=3.0,
                                                                   base=(features * 2, labels * 2))
    assert refitted.raw([features[4]])[0] > judge.raw([features[4]])[0]
    assert refitted.trained_on["refit_gold"] == 4
    with pytest.raises(ValueError, match="valid and invalid"):
        NumeracyJudge().fit(features[:2], [1, 1])
