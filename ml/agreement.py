"""Inter-annotator agreement: Cohen's kappa, weighted kappa for ordinal ratings, Fleiss' kappa.

Pure Python (no numpy needed for tables this small). Each function returns ``None`` when the
statistic is undefined: no items, or chance agreement already 1 (both raters used one and the
same category throughout), where kappa is 0/0.

>>> cohen_kappa([True, True, False, False], [True, False, False, False])
0.5
"""
from __future__ import annotations

from collections import Counter
from typing import Hashable, Iterable, Sequence

__all__ = ["cohen_kappa", "fleiss_kappa", "observed_agreement", "weighted_kappa"]


def _paired(a: Sequence, b: Sequence) -> tuple[list, list]:
    a, b = list(a), list(b)
    if len(a) != len(b):
        raise ValueError(f"the two raters must rate the same items: {len(a)} ratings against {len(b)}")
    return a, b


def observed_agreement(a: Sequence[Hashable], b: Sequence[Hashable]) -> float | None:
    """Share of items both raters put in the same category (None without items).

    >>> observed_agreement([1, 2, 3], [1, 2, 4])
    0.6666666666666666
    """
    a, b = _paired(a, b)
    if not a:
        return None
    return sum(x == y for x, y in zip(a, b)) / len(a)


def cohen_kappa(a: Sequence[Hashable], b: Sequence[Hashable]) -> float | None:
    """Cohen's kappa of two raters over the same items, nominal categories.

    kappa = (p_o - p_e) / (1 - p_e), p_e from each rater's own marginal distribution.

    >>> cohen_kappa(["x", "y"], ["x", "y"])
    1.0
    """
    a, b = _paired(a, b)
    n = len(a)
    if n == 0:
        return None
    p_o = sum(x == y for x, y in zip(a, b)) / n
    count_a, count_b = Counter(a), Counter(b)
    p_e = sum(count_a[c] * count_b[c] for c in count_a) / (n * n)
    if p_e >= 1.0:
        return None
    return (p_o - p_e) / (1.0 - p_e)


def weighted_kappa(
    a: Sequence[int],
    b: Sequence[int],
    *,
    weights: str = "quadratic",
    categories: Iterable[int] = range(6),
) -> float | None:
    """Weighted Cohen's kappa for ordinal ratings (the 0–5 scales by default).

    Disagreement weight w_ij = (|i - j| / (K - 1))^p with p = 2 (``quadratic``) or 1 (``linear``),
    i and j the positions of the two ratings in ``categories``; kappa = 1 - Σ w·O / Σ w·E with O the
    observed and E the chance (product of marginals) joint proportions. Ratings outside
    ``categories`` raise ValueError.

    >>> weighted_kappa([0, 5], [0, 5])
    1.0
    """
    if weights not in ("quadratic", "linear"):
        raise ValueError(f"weights must be 'quadratic' or 'linear', not {weights!r}")
    a, b = _paired(a, b)
    cats = list(categories)
    if len(cats) < 2:
        raise ValueError("weighted kappa needs at least two categories")
    index = {c: i for i, c in enumerate(cats)}
    for value in (*a, *b):
        if value not in index:
            raise ValueError(f"rating {value!r} is not one of the categories {cats}")
    n = len(a)
    if n == 0:
        return None
    power = 2 if weights == "quadratic" else 1
    span = len(cats) - 1

    def w(i: int, j: int) -> float:
        return (abs(i - j) / span) ** power

    observed = sum(w(index[x], index[y]) for x, y in zip(a, b)) / n
    count_a, count_b = Counter(index[x] for x in a), Counter(index[y] for y in b)
    expected = sum(w(i, j) * ca * cb for i, ca in count_a.items() for j, cb in count_b.items()) / (n * n)
    if expected == 0.0:
        return None
    return 1.0 - observed / expected


def fleiss_kappa(table: Sequence[Sequence[int]]) -> float | None:
    """Fleiss' kappa from an items × categories count table (every row sums to the same n ≥ 2).

    P_i = (Σ_j n_ij² - n) / (n(n - 1)), P̄ = mean P_i, p_j = Σ_i n_ij / (N n), P_e = Σ p_j²,
    kappa = (P̄ - P_e) / (1 - P_e).

    >>> fleiss_kappa([[2, 0], [0, 2]])
    1.0
    """
    rows = [list(map(int, row)) for row in table]
    if not rows:
        return None
    width = len(rows[0])
    if any(len(row) != width for row in rows):
        raise ValueError("every row of the table needs the same number of categories")
    if any(v < 0 for row in rows for v in row):
        raise ValueError("counts cannot be negative")
    raters = sum(rows[0])
    if raters < 2:
        raise ValueError("Fleiss' kappa needs at least two ratings per item")
    for i, row in enumerate(rows):
        if sum(row) != raters:
            raise ValueError(f"row {i} has {sum(row)} ratings, row 0 has {raters}: every item needs the same number")
    n_items = len(rows)
    p_bar = sum((sum(v * v for v in row) - raters) / (raters * (raters - 1)) for row in rows) / n_items
    p_e = sum((sum(row[j] for row in rows) / (n_items * raters)) ** 2 for j in range(width))
    if p_e >= 1.0:
        return None
    return (p_bar - p_e) / (1.0 - p_e)
