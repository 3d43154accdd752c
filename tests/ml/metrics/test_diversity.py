"""Set-level diversity: distinct-n and self-BLEU on tiny sets worked out by hand."""
import pytest

from ml.metrics import distinct, distinct_n, self_bleu


def test_distinct_n_by_hand():
    texts = ["the cat sat", "the dog sat"]
    # 1-grams: the cat sat the dog sat -> 4 distinct of 6; 2-grams: the cat, cat sat, the dog, dog sat -> 4 of 4.
    assert distinct(texts) == {"distinct-1": pytest.approx(4 / 6), "distinct-2": 1.0, "distinct-3": 1.0,
                               "distinct-4": 0.0}


def test_distinct_n_tokens_case_and_text_boundaries():
    # the cat . the cat ! -> {the, cat, ., !} 4 of 6; 2-grams: the cat, cat ., the cat, cat ! -> 3 of 4.
    assert distinct_n(["The cat.", "the cat!"], 1) == pytest.approx(4 / 6)
    assert distinct_n(["The cat.", "the cat!"], 2) == pytest.approx(3 / 4)
    assert distinct_n(["a", "b"], 2) == 0.0  # no 2-gram across texts
    assert distinct_n(["It costs 2.5 or 2.5"], 1) == pytest.approx(4 / 5)  # "2.5" is one token
    assert distinct_n([], 1) == 0.0
    with pytest.raises(ValueError):
        distinct_n(["a"], 0)


def test_self_bleu():
    same = "A train covers 300 km in 5 hours."
    assert self_bleu([same, same, same]) == 1.0
    assert self_bleu(["Tom has five apples.", "How fast does the train go?"]) == 0.0
    # Two copies score 1 each, the disjoint text 0: mean 2/3.
    assert self_bleu([same, same, "Why?"]) == pytest.approx(2 / 3)
    assert self_bleu([same]) == 0.0 and self_bleu([]) == 0.0
