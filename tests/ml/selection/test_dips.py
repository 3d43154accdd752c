import math
import random

import pytest

from ml.selection import DiPSConfig, SelectionCandidate, dips, dips_objective, rbf_word_similarity

RAW = {"normalize": False}


def _cands(texts):
    return [SelectionCandidate(t) for t in texts]


def test_objective_by_hand():
    # source "a b", X = {"a b c"}, V = {"a b c", "d e"}, lambda 0.5, mu 1, beta_f 2, beta_d 0.5:
    #   L1 = sqrt(2*|{a, b}| + 4*|{a b}|) = sqrt(8)
    #   L2 = sqrt(S), S = mean(1, 1, 0) over a, b, c (exact match) = 2/3
    #   D1 = 0.5*3 + 0.25*2 + 0.125*1 = 2.125
    #   D2 = R(abc, abc) + R(de, abc) = 1 + (1 - 3/5) = 1.4   (word Levenshtein 3, lengths 3 + 2)
    value = dips_objective("a b", ["a b c"], ["a b c", "d e"], DiPSConfig(**RAW))
    assert value == pytest.approx(0.5 * (math.sqrt(8) + math.sqrt(2 / 3)) + 0.5 * (2.125 + 1.4))


def test_normalised_terms_reach_their_weight_on_the_ground_set():
    ground = ["a b c", "d e", "a e"]
    assert dips_objective("a b", ground, ground) == pytest.approx(0.5 * 2 + 0.5 * 2)


def test_rbf_word_similarity_in_l2():
    vectors = {"cat": (0.0, 0.0), "kitten": (0.1, 0.0)}.get
    config = DiPSConfig(lambda_=1.0, mu1=0.0, mu2=1.0, gamma=1.0, **RAW)
    # S(kitten, cat) = exp(-1 * 0.1^2); L2 = sqrt of it
    assert dips_objective("cat", ["kitten"], ["kitten"], config, word_vectors=vectors) == pytest.approx(
        math.sqrt(math.exp(-0.01))
    )
    psi = rbf_word_similarity(vectors, gamma=2.0)
    assert psi("cat", "kitten") == pytest.approx(math.exp(-0.02))
    assert psi("cat", "dog") == 0.0 and psi("dog", "dog") == 1.0  # no vector: exact match


def test_diversity_only_picks_new_ngrams():
    # lambda 0, mu4 0: D1 alone. "a b" 1.25, "a b c" 2.125, "d e" 1.25 -> "a b c" first;
    # then "a b" adds nothing, "d e" adds 1.25 -> [1, 2].
    config = DiPSConfig(lambda_=0.0, mu4=0.0, **RAW)
    assert dips("a b", _cands(["a b", "a b c", "d e"]), k=2, config=config) == [1, 2]


def test_fidelity_only_prefers_overlap():
    # lambda 1, mu2 0: L1 alone; overlaps 8, 8, 0 -> "a b" (earlier of the tie), then
    # "a b c" (sqrt 16 - sqrt 8 > 0) -> [0, 1].
    config = DiPSConfig(lambda_=1.0, mu2=0.0, **RAW)
    assert dips("a b", _cands(["a b", "a b c", "d e"]), k=2, config=config) == [0, 1]


def _plain_greedy(source, texts, k, config):
    selected: list[int] = []
    while len(selected) < min(k, len(texts)):
        base = dips_objective(source, [texts[i] for i in selected], texts, config)
        gains = {
            i: dips_objective(source, [texts[j] for j in selected] + [texts[i]], texts, config) - base
            for i in range(len(texts)) if i not in selected
        }
        selected.append(max(gains, key=lambda i: (gains[i], -i)))
    return selected


VOCAB = "tom ann has had bought sold 3 5 12 apples pens books more each than the a of and".split()


def _random_texts(rng, n):
    return [" ".join(rng.choice(VOCAB) for _ in range(rng.randint(2, 9))) for _ in range(n)]


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("config", [DiPSConfig(), DiPSConfig(lambda_=0.2), DiPSConfig(lambda_=0.8, **RAW)])
def test_lazy_greedy_equals_plain_greedy(seed, config):
    rng = random.Random(seed)
    texts = _random_texts(rng, 9)
    source = " ".join(rng.choice(VOCAB) for _ in range(8))
    for k in (1, 3, 9):
        assert dips(source, _cands(texts), k=k, config=config) == _plain_greedy(source, texts, k, config)


def test_objective_is_monotone_and_submodular():
    rng = random.Random(7)
    texts = _random_texts(rng, 10)
    source = "tom bought 5 apples and 3 pens"
    for config in (DiPSConfig(), DiPSConfig(**RAW)):
        def f(subset):
            return dips_objective(source, [texts[i] for i in subset], texts, config)

        for _ in range(15):
            small = rng.sample(range(10), 2)
            large = small + rng.sample([i for i in range(10) if i not in small], 3)
            x = rng.choice([i for i in range(10) if i not in large])
            gain_small = f(small + [x]) - f(small)
            gain_large = f(large + [x]) - f(large)
            assert gain_small >= -1e-12 and gain_large >= -1e-12          # monotone
            assert gain_small >= gain_large - 1e-12                       # diminishing returns


def test_budget_and_validation():
    assert dips("a", [], k=3) == []
    assert sorted(dips("a b", _cands(["a", "b", "c"]), k=5)) == [0, 1, 2]
    with pytest.raises(ValueError):
        DiPSConfig(beta_fidelity=1.0)
    with pytest.raises(ValueError):
        DiPSConfig(beta_diversity=1.0)
    with pytest.raises(ValueError):
        dips("a", _cands(["a"]), k=1, word_similarity=lambda a, b: 1.0, word_vectors=lambda w: None)
