from fractions import Fraction

import pytest

from ml.selection import SELECTORS, SelectionCandidate, dips, mwp_select, select, tree_rank

from .helpers import cand, jaccard_words

GOOD = {"S": 0.95, "D": 0.3, "N": 1.0}


def test_selector_names():
    assert SELECTORS == ("pammr", "dips", "tree", "mwp", "qf_pcf", "none")


def test_unknown_selector_lists_the_known_ones():
    with pytest.raises(ValueError, match="known: pammr, dips, tree, mwp, qf_pcf, none"):
        select("mmr", "x", [cand(**GOOD)], k=1)


def test_none_selects_nothing_and_k_is_checked():
    assert select("none", "x", [cand(**GOOD)], k=2) == []
    assert select("pammr", "x", [cand(**GOOD)], k=0) == []
    with pytest.raises(ValueError):
        select("pammr", "x", [cand(**GOOD)], k=-1)


def test_pammr_runs_on_the_qf_pcf_survivors_when_enough_pass():
    cands = [
        cand("a b c", prompt="shuffle", wpd=0.05, S=1.0, D=0.3, N=1.0),  # 0 most relevant, fails PCF
        cand("a b d", prompt="shuffle", wpd=0.2, **GOOD),                # 1 passes
        cand("x y z", prompt="passive", **GOOD),                         # 2 passes
    ]
    # k = 2 and two survivors: 0 is out; 1 and 2 tie on relevance -> 1 first, then 2.
    assert select("pammr", "a b c", cands, k=2, pair_diversity=jaccard_words) == [1, 2]
    # k = 3 > 2 survivors: the whole pool; 0 (relevance 0.825) first.
    assert select("pammr", "a b c", cands, k=3, pair_diversity=jaccard_words)[0] == 0
    # the filter can be switched off
    assert select("pammr", "a b c", cands, k=2, apply_qf_pcf=False, pair_diversity=jaccard_words)[0] == 0


def test_qf_pcf_selector_ranks_survivors_by_pqi():
    cands = [
        cand(PQI=0.5, **GOOD),
        cand(PQI=0.9, **{**GOOD, "S": 0.9}),  # fails QF
        cand(PQI=0.7, **GOOD),
        cand(**GOOD),                         # no PQI: last
    ]
    assert select("qf_pcf", "x", cands, k=5) == [2, 0, 3]
    assert select("qf_pcf", "x", cands, k=1) == [2]


def test_dispatch_passes_options_through():
    texts = ["Tom has 3 apples.", "3 apples are Tom's.", "Tom owns 3 apples.", "Tom has 4 apples."]
    cands = [SelectionCandidate(t, {"paraqd": s}) for t, s in zip(texts, (0.99, 0.9, 0.8, 0.6))]
    source = "Tom has 3 apples."
    assert select("dips", source, cands, k=2) == dips(source, cands, k=2)
    assert select("tree", source, cands, k=3, prune_jaccard=0.5) == tree_rank(source, cands, k=3, prune_jaccard=0.5)
    assert select("mwp", source, cands, k=2, equation_numbers={Fraction(3)}) == [2, 1]
    assert select("mwp", source, cands, k=2) == mwp_select(source, cands, k=2)
    with pytest.raises(TypeError):
        select("mwp", source, cands, k=2, alpha=0.5)


def test_default_pair_diversity_is_scannings_delta(spacy_model):
    from ml.selection import default_pair_diversity

    delta = default_pair_diversity()
    assert delta("Tom has 5 apples.", "Tom has 5 apples.") == pytest.approx(0.0)
    assert delta("Tom has 5 apples.", "5 apples, Tom has.") > 0.3
