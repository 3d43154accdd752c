"""Agreement statistics against tables worked out by hand (the arithmetic is in the comments)."""
from __future__ import annotations

import math

import pytest

from ml.agreement import cohen_kappa, fleiss_kappa, observed_agreement, weighted_kappa


def _pairs(counts: dict[tuple, int]) -> tuple[list, list]:
    """Expand a contingency table {(rating_a, rating_b): count} into two rating lists."""
    a, b = [], []
    for (x, y), n in counts.items():
        a += [x] * n
        b += [y] * n
    return a, b


# 50 items, valid/invalid:      B valid  B invalid
#                    A valid       20        5      (A: 25 valid)
#                    A invalid     10       15      (B: 30 valid)
# p_o = (20 + 15) / 50 = 0.7
# p_e = 0.5 · 0.6 + 0.5 · 0.4 = 0.5
# kappa = (0.7 - 0.5) / (1 - 0.5) = 0.4
BINARY = {(True, True): 20, (True, False): 5, (False, True): 10, (False, False): 15}


def test_cohen_kappa_binary_table():
    a, b = _pairs(BINARY)
    assert cohen_kappa(a, b) == pytest.approx(0.4)
    assert observed_agreement(a, b) == pytest.approx(0.7)


def test_cohen_kappa_is_symmetric_and_order_free():
    a, b = _pairs(BINARY)
    assert cohen_kappa(b, a) == pytest.approx(0.4)
    assert cohen_kappa(list(reversed(a)), list(reversed(b))) == pytest.approx(0.4)


def test_cohen_kappa_three_categories():
    # a = 0 0 0 1 1 1 2 2 2 2
    # b = 0 0 1 1 1 2 2 2 2 0   → 7 of 10 agree, p_o = 0.7
    # marginals a: 3, 3, 4; b: 3, 3, 4 → p_e = (9 + 9 + 16) / 100 = 0.34
    # kappa = (0.7 - 0.34) / 0.66 = 0.36 / 0.66 = 6 / 11
    a = [0, 0, 0, 1, 1, 1, 2, 2, 2, 2]
    b = [0, 0, 1, 1, 1, 2, 2, 2, 2, 0]
    assert cohen_kappa(a, b) == pytest.approx(6 / 11)


def test_cohen_kappa_perfect_and_opposite():
    assert cohen_kappa([1, 0, 1, 0], [1, 0, 1, 0]) == pytest.approx(1.0)
    # Always opposite with balanced marginals: p_o = 0, p_e = 0.5 → kappa = -1
    assert cohen_kappa([1, 0, 1, 0], [0, 1, 0, 1]) == pytest.approx(-1.0)


def test_cohen_kappa_is_undefined_when_chance_agreement_is_total():
    # Both raters always say "valid": p_e = 1, kappa = 0 / 0.
    assert cohen_kappa([True] * 3, [True] * 3) is None
    assert cohen_kappa([], []) is None


def test_cohen_kappa_needs_the_same_items():
    with pytest.raises(ValueError, match="same items"):
        cohen_kappa([1, 0], [1])


def test_weighted_kappa_quadratic_on_the_0_5_scale():
    # a = 0 1 2 3 4 5, b = 0 1 2 3 5 5; w_ij = ((i - j) / 5)^2
    # observed: one off-by-one pair, w = 1/25 → Σ w·O = (1/25) / 6
    # expected: a uniform (one each), b = {0,1,2,3: 1, 5: 2}; Σ_i (i - j)^2 over i = 0..5 is
    #   j=0: 55, j=1: 31, j=2: 19, j=3: 19, j=5: 55 (twice) → 234; Σ w·E = 234 / 25 / 36 = 0.26
    # kappa = 1 - (0.04 / 6) / 0.26 = 1 - 1/39 = 38/39
    a = [0, 1, 2, 3, 4, 5]
    b = [0, 1, 2, 3, 5, 5]
    assert weighted_kappa(a, b) == pytest.approx(38 / 39)
    assert weighted_kappa(a, b, weights="quadratic", categories=range(6)) == pytest.approx(38 / 39)


def test_weighted_kappa_linear_differs():
    # Linear weights w = |i - j| / 5: observed (1/5)/6 = 1/30; expected Σ_i |i - j| over i = 0..5:
    #   j=0: 15, j=1: 11, j=2: 9, j=3: 9, j=5: 15 (twice) → 74; Σ w·E = 74 / 5 / 36 = 74/180
    # kappa = 1 - (1/30) / (74/180) = 1 - 6/74 = 68/74
    a = [0, 1, 2, 3, 4, 5]
    b = [0, 1, 2, 3, 5, 5]
    assert weighted_kappa(a, b, weights="linear") == pytest.approx(68 / 74)


def test_weighted_kappa_full_opposition():
    # a = 0 5, b = 5 0: both pairs at the far ends, Σ w·O = 1; marginals {0: 1, 5: 1} each,
    # Σ w·E = (0 + 1 + 1 + 0) / 4 = 0.5 → kappa = 1 - 1 / 0.5 = -1
    assert weighted_kappa([0, 5], [5, 0]) == pytest.approx(-1.0)


def test_weighted_kappa_with_two_categories_is_cohen_kappa():
    # With K = 2 every disagreement weighs 1, so the weighted kappa is the plain one: 0.4.
    a, b = _pairs({(1, 1): 20, (1, 0): 5, (0, 1): 10, (0, 0): 15})
    assert weighted_kappa(a, b, categories=[0, 1]) == pytest.approx(0.4)


def test_weighted_kappa_rejects_ratings_off_the_scale():
    with pytest.raises(ValueError, match="not one of the categories"):
        weighted_kappa([0, 6], [0, 5])
    with pytest.raises(ValueError, match="weights"):
        weighted_kappa([0], [0], weights="cubic")
    assert weighted_kappa([3, 3], [3, 3]) is None


def test_fleiss_kappa_two_categories():
    # 4 items, 3 raters:      valid invalid   P_i = (Σ n_ij² - 3) / 6
    #                           3     0        (9 - 3) / 6 = 1
    #                           0     3        1
    #                           2     1        (4 + 1 - 3) / 6 = 1/3
    #                           1     2        1/3
    # P̄ = (8/3) / 4 = 2/3; p = (6/12, 6/12) → P_e = 1/2
    # kappa = (2/3 - 1/2) / (1/2) = 1/3
    assert fleiss_kappa([[3, 0], [0, 3], [2, 1], [1, 2]]) == pytest.approx(1 / 3)


def test_fleiss_kappa_three_categories():
    # 3 items, 4 raters, n(n-1) = 12:
    #   [4, 0, 0] → (16 - 4) / 12 = 1
    #   [2, 2, 0] → (4 + 4 - 4) / 12 = 1/3
    #   [0, 1, 3] → (1 + 9 - 4) / 12 = 1/2
    # P̄ = (1 + 1/3 + 1/2) / 3 = 11/18; p = (6, 3, 3) / 12 → P_e = 1/4 + 1/16 + 1/16 = 3/8
    # kappa = (11/18 - 3/8) / (5/8) = (17/72) · (8/5) = 17/45
    assert fleiss_kappa([[4, 0, 0], [2, 2, 0], [0, 1, 3]]) == pytest.approx(17 / 45)


def test_fleiss_kappa_edge_cases():
    assert fleiss_kappa([[2, 0], [0, 2]]) == pytest.approx(1.0)
    assert fleiss_kappa([[3, 0], [3, 0]]) is None  # one category only: P_e = 1
    assert fleiss_kappa([]) is None
    with pytest.raises(ValueError, match="same number"):
        fleiss_kappa([[2, 0], [1, 2]])
    with pytest.raises(ValueError, match="at least two"):
        fleiss_kappa([[1, 0]])


def test_results_are_finite_floats():
    a, b = _pairs(BINARY)
    for value in (cohen_kappa(a, b), weighted_kappa([0, 1, 2], [0, 2, 2]), fleiss_kappa([[2, 1], [1, 2]])):
        assert isinstance(value, float) and math.isfinite(value)


def test_docstring_examples_run():
    import doctest

    import ml.agreement

    failures, tried = doctest.testmod(ml.agreement)
    assert tried >= 5 and failures == 0
