"""ParaQD evaluation: precision, recall and F1 (macro and weighted) at a threshold, and separation.

The paper (ParaQD, section 4.4 and Table 1) reports macro and weighted P and R at tau = 0.5 and
an F1 column that is the *harmonic mean of the averaged P and R*, not scikit-learn's average of
per-class F1 (METHODS.md, Misreading 1). Both are returned, labelled: ``*_f1`` is scikit-learn's,
``*_f1_hm`` the paper's. Separation is mean score of valid pairs minus mean score of invalid pairs.

A pair is predicted valid when ``score > threshold`` (strictly greater), as in the authors'
released ``evaluate.py`` (``1 if x > thresh else 0``); a score exactly at the threshold is invalid.
Undefined precision or recall (no predicted or no true members of a class) count as 0, like
scikit-learn's ``zero_division=0``; a mean over an empty class is NaN.

>>> m = paraqd_eval([0.9, 0.2, 0.7, -0.1], [1, 0, 0, 0])
>>> m["n"], m["accuracy"], round(m["separation"], 3)
(4.0, 0.75, 0.633)
>>> round(harmonic_mean_f1(0.784, 0.318), 3)  # Table 1, AquaRAT pretrained, weighted
0.452
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

__all__ = ["harmonic_mean_f1", "nest_paraqd_metrics", "paraqd_eval", "paraqd_eval_nested", "score_histogram"]


def harmonic_mean_f1(precision: float, recall: float) -> float:
    """The paper's F1: 2PR / (P + R) of already-averaged P and R; 0 when both are 0.

    >>> round(harmonic_mean_f1(0.762, 0.625), 3)  # Table 1, AquaRAT ParaQD, weighted: 0.687
    0.687
    """
    if precision < 0 or recall < 0:
        raise ValueError(f"precision and recall must be >= 0, got {precision}, {recall}")
    total = precision + recall
    return 0.0 if total == 0 else 2.0 * precision * recall / total


def paraqd_eval(
    scores: Sequence[float], labels: Sequence[bool | int], threshold: float = 0.5
) -> dict[str, float]:
    """Flat metrics for scored pairs: n, macro_p, macro_r, macro_f1, macro_f1_hm, weighted_p,
    weighted_r, weighted_f1, weighted_f1_hm, mu_pos, mu_neg, separation, accuracy.

    ``labels``: 1/True for a valid paraphrase, 0/False for an invalid one. Predicted valid is
    ``score > threshold``.

    >>> paraqd_eval([0.8, 0.1], [True, False])["macro_f1"]
    1.0
    """
    from sklearn.metrics import precision_recall_fscore_support  # heavy import, kept lazy

    s = np.asarray(scores, dtype=np.float64)  # (N,)
    y = np.asarray(labels)  # (N,)
    if s.ndim != 1 or y.ndim != 1:
        raise ValueError("scores and labels must be flat sequences")
    if len(s) != len(y):
        raise ValueError(f"scores and labels differ in length: {len(s)} != {len(y)}")
    if len(s) == 0:
        raise ValueError("paraqd_eval needs at least one scored pair")
    if not np.isin(y, (0, 1)).all():
        raise ValueError("labels must be 0/1 or False/True")
    if not np.isfinite(s).all():
        raise ValueError("scores must be finite numbers")
    y = y.astype(np.int64)
    pred = (s > threshold).astype(np.int64)  # (N,)

    result: dict[str, float] = {"n": float(len(s))}
    for average in ("macro", "weighted"):
        p, r, f1, _ = precision_recall_fscore_support(
            y, pred, labels=[0, 1], average=average, zero_division=0
        )
        result[f"{average}_p"] = float(p)
        result[f"{average}_r"] = float(r)
        result[f"{average}_f1"] = float(f1)
        result[f"{average}_f1_hm"] = harmonic_mean_f1(float(p), float(r))
    pos, neg = s[y == 1], s[y == 0]
    result["mu_pos"] = float(pos.mean()) if len(pos) else math.nan
    result["mu_neg"] = float(neg.mean()) if len(neg) else math.nan
    result["separation"] = result["mu_pos"] - result["mu_neg"]
    result["accuracy"] = float((pred == y).mean())
    return result


def nest_paraqd_metrics(flat: Mapping[str, float]) -> dict:
    """The platform's nested form of :func:`paraqd_eval`'s result:
    ``{"n", "macro": {"p", "r", "f1", "f1_hm"}, "weighted": {...}, "mu_pos", "mu_neg", "separation"}``.

    >>> nest_paraqd_metrics(paraqd_eval([0.8, 0.1], [1, 0]))["weighted"]["f1_hm"]
    1.0
    """
    nested: dict = {"n": int(flat["n"])}
    for average in ("macro", "weighted"):
        nested[average] = {key: flat[f"{average}_{key}"] for key in ("p", "r", "f1", "f1_hm")}
    for key in ("mu_pos", "mu_neg", "separation"):
        nested[key] = flat[key]
    return nested


def paraqd_eval_nested(
    scores: Sequence[float], labels: Sequence[bool | int], threshold: float = 0.5
) -> dict:
    """:func:`paraqd_eval` in the platform's nested form (see :func:`nest_paraqd_metrics`)."""
    return nest_paraqd_metrics(paraqd_eval(scores, labels, threshold))


def score_histogram(
    scores: Sequence[float], labels: Sequence[bool | int], *, bins: int = 20, low: float = -1.0, high: float = 1.0
) -> dict[str, list]:
    """Counts of valid and invalid pairs' scores in ``bins`` equal bins over [low, high] (cosine
    range by default), for plotting the two distributions: ``{"edges", "valid", "invalid"}``.
    Scores outside the range go to the first or last bin; the last bin includes ``high``.

    >>> h = score_histogram([0.95, 1.0, -0.2, 0.1], [1, 1, 0, 0], bins=4)
    >>> h["edges"], h["valid"], h["invalid"]
    ([-1.0, -0.5, 0.0, 0.5, 1.0], [0, 0, 0, 2], [0, 1, 1, 0])
    """
    if bins < 1 or not high > low:
        raise ValueError(f"need bins >= 1 and high > low, got bins={bins}, range=({low}, {high})")
    if len(scores) != len(labels):
        raise ValueError(f"{len(scores)} scores but {len(labels)} labels")
    edges = np.linspace(low, high, bins + 1)
    clipped = np.clip(np.asarray(scores, dtype=np.float64), low, high)
    index = np.minimum(((clipped - low) / (high - low) * bins).astype(int), bins - 1)
    valid = np.asarray([bool(y) for y in labels], dtype=bool)
    return {
        "edges": [round(float(e), 6) for e in edges],
        "valid": np.bincount(index[valid], minlength=bins).tolist(),
        "invalid": np.bincount(index[~valid], minlength=bins).tolist(),
    }


def _binary(scores: Sequence[float], labels: Sequence[bool | int]) -> tuple[np.ndarray, np.ndarray]:
    s = np.asarray(list(scores), dtype=np.float64)
    y = np.asarray([int(bool(v)) for v in labels], dtype=np.int64)
    if s.ndim != 1 or len(s) != len(y):
        raise ValueError("scores and labels must be flat sequences of the same length")
    if not np.isfinite(s).all():
        raise ValueError("scores must be finite numbers")
    return s, y


def roc_auc(scores: Sequence[float], labels: Sequence[bool | int]) -> float:
    """ROC AUC of ``scores`` for the valid class (scikit-learn; ties count half); NaN when the
    pairs hold one class only. Threshold-free: how well the scores rank valid above invalid.

    >>> roc_auc([0.1, 0.4, 0.35, 0.8], [0, 0, 1, 1])
    0.75
    """
    from sklearn.metrics import roc_auc_score

    s, y = _binary(scores, labels)
    if len(set(y.tolist())) < 2:
        return math.nan
    return float(roc_auc_score(y, s))


def pr_auc(scores: Sequence[float], labels: Sequence[bool | int]) -> float:
    """Average precision of ``scores`` for the valid class (scikit-learn's step-wise PR AUC); NaN
    when the pairs hold one class only.

    >>> round(pr_auc([0.1, 0.4, 0.35, 0.8], [0, 0, 1, 1]), 4)
    0.8333
    """
    from sklearn.metrics import average_precision_score

    s, y = _binary(scores, labels)
    if len(set(y.tolist())) < 2:
        return math.nan
    return float(average_precision_score(y, s))


def threshold_free(scores: Sequence[float], labels: Sequence[bool | int]) -> dict[str, float]:
    """``{"roc_auc", "pr_auc"}`` of ``scores``."""
    return {"roc_auc": roc_auc(scores, labels), "pr_auc": pr_auc(scores, labels)}
