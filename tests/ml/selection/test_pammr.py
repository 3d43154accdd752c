import pytest

from ml.selection import pammr, relevance

from .helpers import cand, jaccard_words

# Relevance 0.5 S + 0.25 D + 0.25 N:
#   c0: 0.5 + 0.05 + 0.25 = 0.80     c1: 0.80     c2: 0.45 + 0.05 + 0.25 = 0.75
# Jaccard distances to c0 ("tom has five red apples"):
#   c1 "tom has five apples":        |∩| 4, |∪| 5 -> 0.2
#   c2 "five apples belong to tom":  |∩| 3, |∪| 7 -> 4/7 ≈ 0.571
# First pick: c0 (relevance 0.80, ties with c1, earlier index wins).
# Second pick, alpha 0.65: c1 0.65*0.80 + 0.35*0.2 = 0.59; c2 0.65*0.75 + 0.35*4/7 = 0.6875 -> c2.
#              alpha 0.95: c1 0.76 + 0.05*0.2 = 0.77;   c2 0.7125 + 0.05*4/7 ≈ 0.741 -> c1.
CANDS = [
    cand("tom has five red apples", S=1.0, D=0.2, N=1.0),
    cand("tom has five apples", S=1.0, D=0.2, N=1.0),
    cand("five apples belong to tom", S=0.9, D=0.2, N=1.0),
]


def test_relevance_weights():
    assert relevance(CANDS[2]) == pytest.approx(0.75)
    assert relevance(CANDS[2], (1.0, 0.0, 0.0)) == pytest.approx(0.9)


def test_second_pick_trades_quality_for_diversity_with_alpha():
    assert pammr(CANDS, pair_diversity=jaccard_words) == [0, 2]
    assert pammr(CANDS, alpha=0.95, pair_diversity=jaccard_words) == [0, 1]
    assert pammr(CANDS, alpha=1.0, pair_diversity=jaccard_words) == [0, 1]


def test_first_pick_is_the_most_relevant_whatever_its_position():
    # The diversity term counts 0 while nothing is selected: c2 (0.85) beats c0 and c1 (0.80).
    cands = [*CANDS[:2], cand("tom owns five apples", S=1.0, D=0.4, N=1.0)]
    assert pammr(cands, k=1, pair_diversity=jaccard_words) == [2]


def test_pair_diversity_is_called_as_delta_of_candidate_then_selected_once_per_pair():
    calls = []

    def recording(a, b):
        calls.append((a, b))
        return jaccard_words(a, b)

    picks = pammr(CANDS, k=3, pair_diversity=recording)
    assert picks == [0, 2, 1]
    # after c0: both remaining against c0; after c2: only c1 against c2 (its min with c0 is kept)
    assert calls == [
        (CANDS[1].text, CANDS[0].text),
        (CANDS[2].text, CANDS[0].text),
        (CANDS[1].text, CANDS[2].text),
    ]


def test_budget_and_empty_pool():
    assert pammr(CANDS, k=10, pair_diversity=jaccard_words) == [0, 2, 1]
    assert pammr(CANDS, k=0, pair_diversity=jaccard_words) == []
    assert pammr([], k=2, pair_diversity=jaccard_words) == []


@pytest.mark.parametrize("kwargs", [{"alpha": 1.2}, {"weights": (0.5, 0.5, 0.5)}, {"weights": (1.0, 0.0)}, {"k": -1}])
def test_bad_parameters(kwargs):
    with pytest.raises(ValueError):
        pammr(CANDS, pair_diversity=jaccard_words, **kwargs)
