import pytest

from ml.selection import (
    SelectionCandidate,
    build_tree,
    default_content_lemmas,
    jaccard_distance,
    spacy_content_lemmas,
    tree_rank,
)


def words(text):
    return set(text.split())


# Source "a b c d". (text, E = paraqd, S = fake string similarity), J = Jaccard distance of words:
TOY = [
    ("d c b a", 0.90, 0.5),  # 0  J 0
    ("a b c d", 0.95, 1.0),  # 1  J 0 (a copy)
    ("a b c x", 0.90, 0.8),  # 2  J 1 - 3/5 = 0.4
    ("a b c y", 0.80, 0.6),  # 3  J 0.4
    ("a b x y", 0.70, 0.5),  # 4  J 1 - 2/6 = 0.67
    ("a b x z", 0.70, 0.4),  # 5  J 0.67
    ("a x y z", 0.99, 0.1),  # 6  J 1 - 1/7 = 0.86 > 0.75: pruned
    ("a b c z", 0.90, 0.7),  # 7  J 0.4
]
CANDS = [SelectionCandidate(t, {"paraqd": e}) for t, e, _ in TOY]
SIM = {t: s for t, _, s in TOY}


def rank(cands=CANDS, k=5, **kwargs):
    return tree_rank("a b c d", cands, k=k, content_lemmas=words, similarity=lambda src, t: SIM[t], **kwargs)


def test_toy_ranking_by_hand():
    # First pick: J = 0 subtree, min S -> 0 (S 0.5 < 1.0).
    # Round 1, J high to low: 0.67 -> max E 0.7 -> min S 0.4 -> 5; 0.4 -> max E 0.9 -> min S 0.7 -> 7;
    #   0 -> 1 (the only one left). Round 2: 0.67 -> 4. Five picks: 0, 5, 7, 1, 4.
    # Sorted by J (stable): 0, 1 (J 0), 7 (0.4), 5, 4 (0.67).
    assert rank() == [0, 1, 7, 5, 4]


def test_pool_exhausts_and_pruned_candidate_never_appears():
    # Round 2 goes on: 0.67 -> 4, 0.4 -> E 0.9 -> 2; round 3: 0.4 -> 3. Pool empty at 7 picks.
    assert rank(k=20) == [0, 1, 7, 2, 3, 5, 4]
    assert 6 not in rank(k=20)
    # With the prune threshold raised, 6 (J 0.86, the highest) is the first of round 1.
    assert 6 in rank(k=2, prune_jaccard=0.9)


def test_first_pick_comes_from_the_j0_subtree():
    # k = 1: only the syntactic pick, although 5 (J 0.67) would lead the breadth-first pass.
    assert rank(k=1) == [0]


def test_no_syntactic_candidate_starts_from_highest_j():
    cands = [CANDS[i] for i in (2, 3, 4, 5, 7)]  # no J = 0
    # 0.67 -> 5 (position 3), 0.4 -> 7 (position 4)
    assert rank(cands, k=2) == [4, 3]


def test_jaccard_exactly_at_prune_threshold_is_kept():
    # "tom ate" vs "tom bought apples": |∩| 1, |∪| 4 -> J = 0.75, kept (pruning is J > 0.75)
    kept = SelectionCandidate("Tom ate.", {"paraqd": 0.9})
    gone = SelectionCandidate("Tom ate pears.", {"paraqd": 0.9})  # |∩| 1, |∪| 5 -> 0.8
    assert tree_rank("Tom bought apples.", [gone, kept], k=5) == [1]


def test_leaf_prefers_the_most_repeated_text():
    same = {"paraqd": 0.9}
    cands = [SelectionCandidate(t, same) for t in ("p q", "p r", "p r")]
    # against source "p s": J(p q) = J(p r) = 1 - 1/3 = 0.67, same E and constant S: one leaf
    picks = tree_rank("p s", cands, k=2, content_lemmas=words, similarity=lambda a, b: 0.5)
    assert picks == [1, 0]  # "p r" twice -> its first index; then the earliest of the tie


def test_bucketing_merges_close_scores():
    cands = [SelectionCandidate("a x", {"paraqd": 0.904}), SelectionCandidate("a y", {"paraqd": 0.901})]
    sim = {"a x": 0.9, "a y": 0.1}.get
    common = {"content_lemmas": words, "similarity": lambda src, t: sim(t), "k": 1}
    assert tree_rank("a b", cands, **common) == [1]               # both E 0.90: min S
    assert tree_rank("a b", cands, decimals=3, **common) == [0]   # E 0.904 > 0.901: max E


def test_min_paraqd_prunes_low_scores():
    assert 5 not in rank(k=20, min_paraqd=0.75) and 4 not in rank(k=20, min_paraqd=0.75)


def test_build_tree_and_helpers():
    root = build_tree([(0.4, 0.9, 0.8), (0.4, 0.9, 0.7), (0.0, 0.9, 0.5)])
    assert sorted(root.children) == [0.0, 0.4]
    assert sorted(root.children[0.4].children[0.9].children) == [0.7, 0.8]
    assert jaccard_distance(set(), set()) == 0.0
    assert default_content_lemmas("The 3 boys have 2.5 kg of rice.") == {"3", "boys", "2.5", "kg", "rice"}


def test_spacy_lemmas(spacy_model):
    lemmas = spacy_content_lemmas(spacy_model)
    assert {"boy", "buy", "apple"} <= lemmas("The boys bought apples.")
    # "bought" and "buys" share the lemma "buy": J = 0 with spaCy lemmas, not with plain words
    cands = [SelectionCandidate("The boy buys apples.", {"paraqd": 0.9})]
    assert jaccard_distance(lemmas("The boys bought apples."), lemmas(cands[0].text)) == 0.0


def test_missing_paraqd_score_is_an_error():
    with pytest.raises(ValueError, match="paraqd"):
        tree_rank("a", [SelectionCandidate("a b")], k=1)
