"""Inter-annotator agreement on a dataset (staff reads; the API checks the role)."""
from __future__ import annotations

from collections import defaultdict
from itertools import combinations
from typing import Any

from corpus.models import Dataset
from ml.agreement import cohen_kappa, fleiss_kappa, observed_agreement, weighted_kappa

from ..models import RATINGS, Label

def _pair_values(per_item: dict[int, dict[str, Any]]) -> dict[tuple[str, str], tuple[list, list]]:
    """Per annotator pair (a < b), the values both gave on the items both labelled.

    Walks the items, not the pairs: an item with m labels adds to its m(m-1)/2 pairs, so the cost
    follows the labels (k² per item) and not annotators² × items (200 annotators are 19,900 pairs).
    """
    shared: dict[tuple[str, str], tuple[list, list]] = {}
    for values in per_item.values():
        present = sorted((name, value) for name, value in values.items() if value is not None)
        for (a, x), (b, y) in combinations(present, 2):
            xs, ys = shared.setdefault((a, b), ([], []))
            xs.append(x)
            ys.append(y)
    return shared


def _pair_stats(shared: dict[tuple[str, str], tuple[list, list]], kappa, limit: int | None = None) -> list[dict[str, Any]]:
    """Agreement per pair, by annotator names; with ``limit``, only the ``limit`` pairs that share
    the most items (most first), the others not computed at all."""
    pairs = sorted(shared.items())
    if limit is not None and len(pairs) > limit:
        pairs = sorted(pairs, key=lambda pair: (-len(pair[1][0]), pair[0]))[:limit]
    return [{"a": a, "b": b, "n": len(xs), "agreement": observed_agreement(xs, ys), "kappa": kappa(xs, ys)}
            for (a, b), (xs, ys) in pairs]


def dataset_agreement(*, dataset: Dataset, pairs_limit: int | None = None) -> dict[str, Any]:
    """Agreement among the annotators of ``dataset`` (JSON-safe; undefined kappas are None).

    ``pairs_limit`` (the dashboard): per table only the pairs sharing the most items, with
    ``pairs_total`` saying how many pairs there are (200 annotators can make 19,900 pairs).

    ``binary``: Cohen's kappa per annotator pair on valid/invalid over the items both labelled,
    and Fleiss' kappa over the items with the most common number of labels (at least two).
    ``ratings``: per 0–5 rating, quadratic-weighted Cohen's kappa per pair over the items where
    both gave that rating. Observed agreement (exact match share) and counts come with each.
    """
    rows = list(
        Label.objects.filter(item__dataset=dataset)
        .order_by("item_id", "annotator__username")
        .values_list("item_id", "annotator__username", "valid", *RATINGS)
    )
    valid: dict[int, dict[str, bool]] = defaultdict(dict)
    ratings: dict[str, dict[int, dict[str, int]]] = {r: defaultdict(dict) for r in RATINGS}
    for item_id, username, is_valid, *values in rows:
        valid[item_id][username] = is_valid
        for name, value in zip(RATINGS, values):
            if value is not None:
                ratings[name][item_id][username] = value
    annotators = sorted({username for _, username, *_ in rows})

    binary_shared = _pair_values(valid)
    binary_pairs = _pair_stats(binary_shared, cohen_kappa, pairs_limit)
    fleiss = None
    counts = [len(v) for v in valid.values() if len(v) >= 2]
    if counts:
        raters = max(set(counts), key=lambda c: (counts.count(c), c))
        table = [
            [sum(1 for x in v.values() if x), sum(1 for x in v.values() if not x)]
            for v in valid.values() if len(v) == raters
        ]
        fleiss = {"kappa": fleiss_kappa(table), "n_items": len(table), "raters": raters}

    def _weighted(xs, ys):
        return weighted_kappa(xs, ys, weights="quadratic", categories=range(6))

    result = {
        "dataset": dataset.pk,
        "n_items": sum(1 for v in valid.values() if len(v) >= 2),
        "n_labelled_items": len(valid),
        "n_labels": len(rows),
        "annotators": annotators,
        "binary": {"method": "Cohen's kappa", "pairs": binary_pairs, "fleiss": fleiss},
        "ratings": {},
    }
    if pairs_limit is not None:
        result["binary"]["pairs_total"] = len(binary_shared)
    for name in RATINGS:
        shared = _pair_values(ratings[name])
        block = {"method": "quadratic-weighted kappa", "pairs": _pair_stats(shared, _weighted, pairs_limit)}
        if pairs_limit is not None:
            block["pairs_total"] = len(shared)
        result["ratings"][name] = block
    return result
