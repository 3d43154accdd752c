"""Probability calibration and decision thresholds for a judge's scores (no Django).

A judge scores a (problem, paraphrase) pair: ParaQD with a cosine in [-1, 1], the numeracy-aware
judge with a classifier output. :func:`fit_calibration` maps that raw score to the probability
that the pair is a valid paraphrase (Platt: a one-feature logistic regression; isotonic: a
monotone step function; both scikit-learn), fitted on validation pairs. :func:`fit_threshold`
picks the decision threshold that maximises weighted F1(hm) on them (the paper's F1 definition,
``ml.metrics.classification``). A :class:`Calibration` is plain JSON data, stored with a model version.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..metrics.classification import paraqd_eval

METHODS = ("platt", "isotonic", "identity")


@dataclass(frozen=True)
class Calibration:
    """A fitted raw-score -> probability map and the decision threshold on the probability.

    ``platt``: p = 1 / (1 + exp(-(slope * s + intercept))). ``isotonic``: linear interpolation
    between the fitted (x, y) knots, clipped at the ends. ``identity``: p = s clipped to [0, 1].
    """

    method: str
    params: dict[str, Any] = field(default_factory=dict)
    threshold: float = 0.5

    def probability(self, scores: Sequence[float]) -> list[float]:
        s = np.asarray(list(scores), dtype=np.float64)  # (N,)
        if self.method == "platt":
            z = self.params["slope"] * s + self.params["intercept"]
            p = 1.0 / (1.0 + np.exp(-np.clip(z, -500, 500)))
        elif self.method == "isotonic":
            p = np.interp(s, np.asarray(self.params["x"], dtype=np.float64), np.asarray(self.params["y"], dtype=np.float64))
        elif self.method == "identity":
            p = np.clip(s, 0.0, 1.0)
        else:
            raise ValueError(f"unknown calibration method {self.method!r}")
        return [float(v) for v in p]

    def decide(self, score: float) -> bool:
        """Valid when the calibrated probability is strictly above the threshold."""
        return self.probability([score])[0] > self.threshold

    def to_dict(self) -> dict[str, Any]:
        return {"method": self.method, "params": dict(self.params), "threshold": float(self.threshold)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Calibration:
        method = data.get("method")
        if method not in METHODS:
            raise ValueError(f"calibration method must be one of {', '.join(METHODS)}, not {method!r}")
        return cls(method=method, params=dict(data.get("params") or {}), threshold=float(data.get("threshold", 0.5)))


def _check(scores: Sequence[float], labels: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    s = np.asarray(list(scores), dtype=np.float64)
    y = np.asarray([int(bool(v)) for v in labels], dtype=np.int64)
    if s.ndim != 1 or len(s) != len(y):
        raise ValueError("scores and labels must be flat sequences of the same length")
    if len(s) == 0:
        raise ValueError("calibration needs at least one scored pair")
    if not np.isfinite(s).all():
        raise ValueError("scores must be finite numbers")
    return s, y


def fit_calibration(scores: Sequence[float], labels: Sequence[int], *, method: str = "platt",
                    threshold: float | None = None) -> Calibration:
    """Fit ``method`` on (raw score, 0/1 label) pairs; the threshold is ``threshold`` or, when None,
    :func:`fit_threshold` on the calibrated probabilities. Both classes must be present."""
    s, y = _check(scores, labels)
    if len(set(y.tolist())) < 2:
        raise ValueError("calibration needs valid and invalid pairs (both classes)")
    if method == "platt":
        from sklearn.linear_model import LogisticRegression

        # Large C: Platt scaling proper, not a regularised fit pulled towards slope 0.
        model = LogisticRegression(C=1e4, solver="lbfgs", max_iter=1000).fit(s.reshape(-1, 1), y)
        params = {"slope": float(model.coef_[0][0]), "intercept": float(model.intercept_[0])}
    elif method == "isotonic":
        from sklearn.isotonic import IsotonicRegression

        model = IsotonicRegression(y_min=0.0, y_max=1.0, out_of_bounds="clip", increasing=True).fit(s, y)
        params = {"x": [float(v) for v in model.X_thresholds_], "y": [float(v) for v in model.y_thresholds_]}
    elif method == "identity":
        params = {}
    else:
        raise ValueError(f"calibration method must be one of {', '.join(METHODS)}, not {method!r}")
    calibration = Calibration(method=method, params=params)
    if threshold is None:
        threshold = fit_threshold(calibration.probability(s), y)
    return Calibration(method=method, params=params, threshold=float(threshold))


def fit_threshold(scores: Sequence[float], labels: Sequence[int], *, prefer: float | None = None) -> float:
    """The threshold t maximising weighted F1(hm) of "score > t" on the pairs.

    Candidates are the midpoints between consecutive distinct scores (and one below the lowest);
    among equally good ones, the one nearest ``prefer`` (default: the middle of the score range's
    natural scale, 0.5 for probabilities, 0 for cosines below 0) wins.

    >>> fit_threshold([0.1, 0.2, 0.8, 0.9], [0, 0, 1, 1])
    0.5
    """
    s, y = _check(scores, labels)
    distinct = np.unique(s)
    cuts = [float(distinct[0]) - 1e-6] + [float((a + b) / 2.0) for a, b in zip(distinct[:-1], distinct[1:])]
    if prefer is None:
        prefer = 0.5
    best, best_f1 = cuts[0], -1.0
    for cut in cuts:
        f1 = paraqd_eval(s, y, cut)["weighted_f1_hm"]
        if f1 > best_f1 + 1e-12 or (abs(f1 - best_f1) <= 1e-12 and abs(cut - prefer) < abs(best - prefer)):
            best, best_f1 = cut, f1
    return float(best)


def reliability_curve(probabilities: Sequence[float], labels: Sequence[int], *, bins: int = 10) -> list[dict[str, float]]:
    """Per equal-width probability bin with pairs in it: ``{"lo", "hi", "mean_predicted",
    "observed", "n"}`` (observed = share of valid pairs), for a reliability diagram."""
    p, y = _check(probabilities, labels)
    edges = np.linspace(0.0, 1.0, bins + 1)
    index = np.clip(np.digitize(p, edges[1:-1], right=False), 0, bins - 1)
    rows = []
    for b in range(bins):
        mask = index == b
        n = int(mask.sum())
        if n:
            rows.append({"lo": float(edges[b]), "hi": float(edges[b + 1]), "mean_predicted": float(p[mask].mean()),
                         "observed": float(y[mask].mean()), "n": n})
    return rows


def expected_calibration_error(probabilities: Sequence[float], labels: Sequence[int], *, bins: int = 10) -> float:
    """Σ_bins n_b / N · |observed_b − mean_predicted_b| (0 is perfectly calibrated)."""
    rows = reliability_curve(probabilities, labels, bins=bins)
    total = sum(r["n"] for r in rows)
    return float(sum(r["n"] / total * abs(r["observed"] - r["mean_predicted"]) for r in rows)) if total else math.nan
