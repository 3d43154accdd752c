"""The fitting the numeracy-aware judge rests on: standardisation, a sign-constrained L2 logistic
regression (scikit-learn's objective, solved by L-BFGS-B) and the stack that weighs an LLM check
beside the classifier, with its out-of-fold margins. scikit-learn and SciPy load on use."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = ["fit_stack", "monotone_logistic", "out_of_fold_stack", "standardisation"]


def standardisation(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Column means and standard deviations (1 where a column is constant)."""
    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale[scale < 1e-9] = 1.0
    return mean, scale


def fit_stack(x: np.ndarray, y: np.ndarray, *, c: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    mean, scale = standardisation(x)
    coef, bias = monotone_logistic((x - mean) / scale, y, [1] * x.shape[1], c=c, sample_weight=None)
    return mean, scale, coef, bias


def out_of_fold_stack(x: np.ndarray, y: np.ndarray, groups: Sequence[Any] | None, *, folds: int,
                      c: float) -> np.ndarray | None:
    """The stack's margin on each pair from a fit without that pair's fold (None when the pairs
    are too few or a fold's training part holds one class)."""
    from sklearn.model_selection import GroupKFold, StratifiedKFold

    if groups is not None:
        n_groups = len(set(groups))
        if n_groups < 2:
            return None
        splits = GroupKFold(n_splits=min(folds, n_groups)).split(x, y, groups=list(groups))
    else:
        if min(int(y.sum()), int(len(y) - y.sum())) < 2:
            return None
        splits = StratifiedKFold(n_splits=min(folds, int(y.sum()), int(len(y) - y.sum())), shuffle=True,
                                 random_state=3407).split(x, y)
    out = np.zeros(len(y))
    for train, test in splits:
        if len(set(y[train].tolist())) < 2:
            return None
        mean, scale, coef, bias = fit_stack(x[train], y[train], c=c)
        out[test] = ((x[test] - mean) / scale) @ coef + bias
    return out


def monotone_logistic(z: np.ndarray, y: np.ndarray, signs: Sequence[int], *, c: float,
                      sample_weight: np.ndarray | None, prior: np.ndarray | None = None,
                      start: np.ndarray | None = None) -> tuple[np.ndarray, float]:
    """L2 logistic regression (scikit-learn's objective: Σ wᵢ·loss + ‖β − β₀‖² / 2C, intercept
    free; β₀ = ``prior``, zero by default) with each coefficient bounded to its sign (0: unbounded),
    by L-BFGS-B (scikit-learn has no bounds)."""
    from scipy.optimize import minimize

    w = np.ones(len(y)) if sample_weight is None else sample_weight
    n_features = z.shape[1]
    centre = np.zeros(n_features) if prior is None else np.asarray(prior, dtype=np.float64)

    def objective(theta: np.ndarray) -> tuple[float, np.ndarray]:
        beta, b = theta[:-1], theta[-1]
        margin = z @ beta + b
        loss = np.logaddexp(0.0, margin) - y * margin
        residual = w * (1.0 / (1.0 + np.exp(-np.clip(margin, -500, 500))) - y)
        shift = beta - centre
        value = float(w @ loss + shift @ shift / (2 * c))
        return value, np.concatenate([z.T @ residual + shift / c, [residual.sum()]])

    bounds = [(0.0, None) if sign > 0 else (None, 0.0) if sign < 0 else (None, None) for sign in signs]
    bounds.append((None, None))
    x0 = np.zeros(n_features + 1) if start is None else np.asarray(start, dtype=np.float64)
    result = minimize(objective, x0, jac=True, method="L-BFGS-B", bounds=bounds,
                      options={"maxiter": 5000, "ftol": 1e-12, "gtol": 1e-8})
    return result.x[:-1], float(result.x[-1])
