"""The judge's English checks (``ml.judge.english``) and the shipped judge on hand-made twins.

The twins are the failures blind labels found in the platform's own candidates: a wrong-sense
synonym, a stacked passive with a pronoun agent, a person renamed to a company. Each broken
variant must score below its clean twin under the judge that ships with the code."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ml.judge import ENGLISH_FEATURE_NAMES, NumeracyJudge, english_features
from ml.judge.english import broken_joins, changed_fluency, changed_words, english_reasons, substitute_fit
from ml.text.nlp import parse

SHIPPED = Path(__file__).resolve().parents[3] / "platform" / "modelhub" / "kinds" / "judge" / "shipped"


def features(original: str, candidate: str, spacy_model: str, **kwargs) -> dict[str, float]:
    return english_features(original, candidate, original_doc=parse(original, spacy_model),
                            candidate_doc=parse(candidate, spacy_model), **kwargs)


def test_changed_words_finds_swaps_and_insertions():
    new, swaps = changed_words("Find the simple interest on the sum.", "Find the simple sake on the whole sum.")
    assert [w for w, _ in new] == ["sake", "whole"]
    assert swaps == [("interest", "sake")]
    assert changed_words("Tom has 5 apples.", "Tom has 5 apples.") == ([], [])


def test_changed_fluency_reads_only_the_changed_tokens():
    # Token offsets and log-probabilities as the LM gives them: "The" "cat" "sat".
    lm = ([(0, 3), (4, 7), (8, 11)], [-1.0, -9.0, -2.0])
    assert changed_fluency(lm, [(4, 7)]) == -9.0
    assert changed_fluency(lm, []) == 0.0


def test_substitute_fit_prefers_the_word_that_belongs_to_the_problem():
    # A toy embedding: "interest" and the problem point the same way, "sake" elsewhere.
    vectors = {"interest": [1.0, 0.0], "sake": [0.0, 1.0], "rate": [0.9, 0.1]}

    def embed(words):
        return np.asarray([vectors.get(w, [1.0, 0.0]) for w in words])

    assert substitute_fit("a problem about interest", [("interest", "sake")], embed) == pytest.approx(-1.0)
    assert substitute_fit("a problem about interest", [("interest", "rate")], embed) == pytest.approx(-0.1)
    assert substitute_fit("x", [], embed) == 0.0


def test_broken_joins_counts_imperatives_glued_after_that(spacy_model):
    bad = "Find the length, given that consider a train of 100 m and that let its speed be 5 m/s."
    good = "Find the length, given that a train is 100 m long and that its speed is 5 m/s."
    assert broken_joins(bad, parse(bad, spacy_model)) == 2
    assert broken_joins(good, parse(good, spacy_model)) == 0


def test_english_features_see_each_failure(spacy_model):
    original = "Mary sold 27 bags of chips. How many bags did Mary sell?"
    stacked = "27 bags of chips were sold by her. How many bags were sold by Mary?"
    f = features(original, stacked, spacy_model)
    assert set(f) == set(ENGLISH_FEATURE_NAMES)
    assert f["pronoun_agent"] == 1.0
    renamed = "Blue Ocean Shipping sold 27 bags of chips. How many bags did Blue Ocean Shipping sell?"
    assert features(original, renamed, spacy_model)["names_added"] >= 2
    interest = "Find the simple interest on Rs. 500 at 5% per annum for 2 years."
    sake = "Find the simple sake on Rs. 500 at 5% per annum for 2 years."
    assert features(interest, sake, spacy_model)["domain_terms_lost"] == 1.0
    assert features(interest, interest, spacy_model)["domain_terms_lost"] == 0.0
    assert features(original, original, spacy_model)["passive_stack"] == 0.0


def test_english_reasons_name_the_failed_checks():
    rows = english_reasons({"substitute_fit": -0.3, "domain_terms_lost": 1, "broken_joins": 0, "longest_sentence": 0.0,
                            "passive_stack": 0, "pronoun_agent": 1, "names_added": 0, "question_lost": 0.0})
    failed = {r["check"] for r in rows if not r["passed"]}
    assert failed == {"word choice", "quantity words", "passive voice"}


def test_a_judge_with_english_checks_needs_the_fluency_lm():
    with pytest.raises(ValueError, match="fluency"):
        NumeracyJudge(english=True)


@pytest.fixture(scope="module")
def shipped_judge_scores():
    """Probabilities of pairs under the shipped judge, featurised as the platform does."""
    from ml.judge import batch_features, sentence_transformer_tokens, sentence_transformer_words
    from ml.noise.fluency import CausalLMFluency
    from ml.paraqd.model import get_scorer, resolve_encoder_path

    judge = NumeracyJudge.load(SHIPPED)
    assert judge.english and judge.fluency_lm == "smollm2"
    scorer = get_scorer(resolve_encoder_path("packaged:all-MiniLM-L6-v2"), "cpu")
    lm = CausalLMFluency(None, "cpu")

    def score(pairs: list[tuple[str, str]]) -> list[float]:
        q, c = [p[0] for p in pairs], [p[1] for p in pairs]
        cos = [float(v) for v in scorer.score(q, c)]
        feats = batch_features(q, c, cosines=cos, token_embedder=sentence_transformer_tokens(scorer.model),
                               fluency_scorer=lm, word_embedder=sentence_transformer_words(scorer.model), english=True)
        return judge.probability(feats)

    return score


TWINS = {
    "wrong-sense synonym": (
        "A sum of money invested at simple interest amounts to $600 in 2 years. Find the rate of interest.",
        "A sum of money invested at simple interest amounts to $600 in 2 years. Find the rate of sake.",
        "A sum of money put in at simple interest amounts to $600 in 2 years. Find the rate of interest.",
    ),
    "stacked passive with a pronoun agent": (
        "Anne ate 4 cookies. Samantha ate 4 more cookies than Anne. How many cookies did they eat?",
        "4 cookies were eaten by her. 4 more cookies than Anne were eaten by Samantha. "
        "How many cookies were eaten by them?",
        "Anne ate 4 cookies, and Samantha ate 4 more cookies than Anne. How many cookies did they eat?",
    ),
    "person renamed to a company": (
        "Sara shared 36 stickers equally among her 4 friends. How many stickers did each friend get?",
        "Blue Ocean Shipping shared 36 stickers equally among her 4 friends. "
        "How many stickers did each friend get?",
        "Priya shared 36 stickers equally among her 4 friends. How many stickers did each friend get?",
    ),
}


@pytest.mark.parametrize("failure", list(TWINS))
def test_shipped_judge_scores_each_failure_below_its_clean_twin(shipped_judge_scores, failure):
    original, broken, clean = TWINS[failure]
    p_broken, p_clean = shipped_judge_scores([(original, broken), (original, clean)])
    assert p_broken < p_clean, (failure, p_broken, p_clean)
