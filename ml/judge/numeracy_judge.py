"""The numeracy-aware judge: a small logistic regression over :mod:`ml.judge.features` (the
encoder's cosine beside the checks it misses), with a :class:`~ml.judge.calibration.Calibration`
on top. Trained on the self-supervised operator pairs (ParaQD's training operators: positives keep
numbers, units and names; negatives change them), refitted in seconds on human gold labels.
Saved as JSON (weights, standardisation, calibration): no pickle.
"""
from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .calibration import Calibration, fit_calibration
from .english import ENGLISH_FEATURE_NAMES, english_reasons
from .features import ALL_FEATURE_NAMES, BASE_FEATURE_NAMES, FEATURE_NAMES, FEATURE_SIGNS, PairFeatures

FILE_NAME = "judge.json"
FORMAT = 4  # 4: the English checks; 3: the LLM check's stack; 2: the fluency feature and its LM; older files still load


@dataclass
class NumeracyJudge:
    """``raw(features)`` is the classifier's probability; ``probability`` applies the calibration.

    ``fluency_lm``: the fluency LM (``ml.noise.fluency`` spec, e.g. ``smollm2``) whose scores the
    judge weighs; None leaves the fluency feature out. Pairs must be featurised with that LM.

    ``monotone`` (default): each weight keeps the sign of :data:`~ml.judge.features.FEATURE_SIGNS`
    (a missing number, a foreign word or a dropped unit never counts *for* a pair), so the judge
    cannot learn a training operator's artifacts in reverse, and its explanation and its decision
    point the same way. Unconstrained (``monotone=False``): plain L2 logistic regression.

    ``llm``: the name of an LLM check (``ml.judge.llm_check``, e.g. ``llm:qwen.gguf:p1``) whose
    zero-shot verdict the judge weighs beside its own classifier: :meth:`fit_llm` fits a second,
    monotone logistic regression over (the classifier's margin, the LLM's log-odds) on pairs the
    LLM read, typically the validation pairs (the LLM is too slow to read every operator pair on a
    CPU). Pairs must be featurised with that LLM check.

    ``english``: the English checks of :mod:`ml.judge.english` join the features (needs
    ``fluency_lm``, whose per-token log-probabilities they read); pairs must be featurised with
    ``english=True``."""

    weights: list[float] = field(default_factory=list)
    bias: float = 0.0
    mean: list[float] = field(default_factory=list)
    scale: list[float] = field(default_factory=list)
    calibration: Calibration | None = None
    regularisation: float = 1.0
    seed: int = 3407
    trained_on: dict[str, Any] = field(default_factory=dict)
    fluency_lm: str | None = None
    monotone: bool = True
    llm: str | None = None
    llm_stack: dict[str, Any] | None = None
    english: bool = False

    def __post_init__(self) -> None:
        if self.english and not self.fluency_lm:
            raise ValueError("the English checks read the fluency LM: give fluency_lm with english=True")

    @property
    def feature_names(self) -> tuple[str, ...]:
        if self.english:
            return ALL_FEATURE_NAMES
        return FEATURE_NAMES if self.fluency_lm else BASE_FEATURE_NAMES

    # --- fitting ------------------------------------------------------------------------------

    def fit(self, features: Sequence[PairFeatures], labels: Sequence[int], *, info: dict[str, Any] | None = None,
            sample_weight: Sequence[float] | None = None) -> NumeracyJudge:
        """Fit the classifier (standardised features, L2 logistic regression, sign-constrained when
        ``monotone``); the calibration is reset to the identity with threshold 0.5 until
        :meth:`calibrate` runs on validation pairs."""
        from sklearn.linear_model import LogisticRegression

        x, y = self._matrix(features), np.asarray([int(bool(v)) for v in labels])
        if len(set(y.tolist())) < 2:
            raise ValueError("the judge needs valid and invalid pairs to learn from")
        mean, scale = _standardisation(x)
        z = (x - mean) / scale
        weight = None if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
        if self.monotone:
            signs = [FEATURE_SIGNS[name] for name in self.feature_names]
            coef, self.bias = _monotone_logistic(z, y, signs, c=self.regularisation, sample_weight=weight)
            self.weights = [float(w) for w in coef]
        else:
            model = LogisticRegression(C=self.regularisation, max_iter=2000, random_state=self.seed)
            model.fit(z, y, sample_weight=weight)
            self.weights = [float(w) for w in model.coef_[0]]
            self.bias = float(model.intercept_[0])
        self.mean, self.scale = [float(v) for v in mean], [float(v) for v in scale]
        self.calibration = Calibration(method="identity", threshold=0.5)
        self.llm_stack = None
        self.trained_on = {"pairs": int(len(y)), "valid": int(y.sum()), **(info or {})}
        return self

    def fit_llm(self, features: Sequence[PairFeatures], labels: Sequence[int], *,
                groups: Sequence[Any] | None = None, folds: int = 5) -> NumeracyJudge:
        """Weigh the LLM check beside the classifier: a monotone (both weights ≥ 0) L2 logistic
        regression over the classifier's margin and the LLM's log-odds, both standardised, fitted
        on ``features`` (pairs the LLM read; validation pairs, never test). Resets the calibration.

        Also measures whether the LLM helps: ``llm_stack["cv_auc"]`` is the ROC AUC of the stack's
        out-of-fold scores (``folds``-fold, grouped by ``groups``, e.g. the problem, so no problem is
        in both parts), ``llm_stack["classifier_auc"]`` the classifier's own AUC on the same pairs,
        and ``llm_stack["helps"]`` whether the first is higher (see :meth:`drop_llm`)."""
        from ml.metrics.classification import roc_auc

        if not self.llm:
            raise ValueError("this judge has no LLM check (llm=None)")
        y = np.asarray([int(bool(v)) for v in labels])
        if len(set(y.tolist())) < 2:
            raise ValueError("weighing the LLM check needs valid and invalid pairs")
        x = self._stack_inputs(features)
        mean, scale, coef, bias = _fit_stack(x, y, c=self.regularisation)
        stack: dict[str, Any] = {"weights": [float(w) for w in coef], "bias": bias, "mean": [float(v) for v in mean],
                                 "scale": [float(v) for v in scale], "pairs": int(len(y)), "valid": int(y.sum())}
        held_out = _out_of_fold_stack(x, y, groups, folds=folds, c=self.regularisation)
        if held_out is not None:
            stack["cv_auc"] = float(roc_auc(held_out.tolist(), y.tolist()))
            stack["classifier_auc"] = float(roc_auc(x[:, 0].tolist(), y.tolist()))
            stack["helps"] = bool(stack["cv_auc"] > stack["classifier_auc"])
        self.llm_stack = stack
        self.calibration = Calibration(method="identity", threshold=0.5)
        return self

    def drop_llm(self) -> dict[str, Any] | None:
        """Leave the LLM check out (the classifier alone decides again); returns what it measured."""
        dropped = None if self.llm_stack is None else {"model": self.llm, **self.llm_stack}
        self.llm, self.llm_stack = None, None
        self.calibration = Calibration(method="identity", threshold=0.5)
        return dropped

    def refit(self, features: Sequence[PairFeatures], labels: Sequence[int], *, weight: float = 1.0,
              base: tuple[Sequence[PairFeatures], Sequence[int]] | None = None) -> NumeracyJudge:
        """Refit on human gold labels (seconds): with ``base`` pairs, the gold pairs join them with
        ``weight``; without, the classifier is fitted on the gold pairs alone."""
        if base is not None:
            feats = [*base[0], *features]
            labs = [*base[1], *labels]
            weights = [1.0] * len(base[0]) + [weight] * len(features)
            self.fit(feats, labs, sample_weight=weights, info={"refit_gold": len(features)})
        else:
            self.fit(features, labels, info={"refit_gold": len(features)})
        if self.llm:
            self.fit_llm(features, labels)
        return self

    def update(self, features: Sequence[PairFeatures], labels: Sequence[int], *, strength: float = 1.0) -> NumeracyJudge:
        """A copy refitted on human gold labels in seconds, starting from this judge: the same
        standardisation, weights pulled towards the current ones (an L2 penalty ‖β − β_now‖² / 2C,
        C = ``strength``: larger lets the gold move them further), signs kept when ``monotone``.
        The copy keeps this judge's calibration until it is recalibrated; the LLM stack is not refitted.

        >>> # judge.update(gold_features, gold_labels).calibrate(heldout_features, heldout_labels)
        """
        from dataclasses import replace

        if not self.weights:
            raise ValueError("the judge is not trained")
        y = np.asarray([int(bool(v)) for v in labels])
        if len(set(y.tolist())) < 2:
            raise ValueError("refitting needs valid and invalid gold pairs")
        z = (self._matrix(features) - np.asarray(self.mean)) / np.asarray(self.scale)
        signs = [FEATURE_SIGNS[name] if self.monotone else 0 for name in self.feature_names]
        coef, bias = _monotone_logistic(z, y, signs, c=strength, sample_weight=None, prior=np.asarray(self.weights),
                                        start=np.asarray([*self.weights, self.bias]))
        trained = {**self.trained_on, "gold_updates": int(self.trained_on.get("gold_updates", 0)) + 1,
                   "gold_pairs": int(len(y))}
        return replace(self, weights=[float(w) for w in coef], bias=float(bias), trained_on=trained)

    def calibrate(self, features: Sequence[PairFeatures], labels: Sequence[int], *, method: str = "platt") -> Calibration:
        """Fit the calibration (and threshold) of the raw output on validation pairs."""
        self.calibration = fit_calibration(self.raw(features), labels, method=method)
        return self.calibration

    # --- scoring ------------------------------------------------------------------------------

    def _matrix(self, features: Sequence[PairFeatures]) -> np.ndarray:
        if self.fluency_lm and any(f.fluency_lm is None for f in features):
            raise ValueError(f"this judge weighs fluency under {self.fluency_lm}: featurise the pairs with that LM")
        if self.english and any(ENGLISH_FEATURE_NAMES[0] not in f.values for f in features):
            raise ValueError("this judge weighs the English checks: featurise the pairs with english=True")
        names = self.feature_names
        return np.asarray([f.vector(names) for f in features], dtype=np.float64).reshape(-1, len(names))

    def _margin(self, features: Sequence[PairFeatures]) -> np.ndarray:
        """The classifier's logit per pair (before the LLM stack)."""
        if not self.weights:
            raise ValueError("the judge is not trained")
        x = (self._matrix(features) - np.asarray(self.mean)) / np.asarray(self.scale)
        return x @ np.asarray(self.weights) + self.bias

    def _stack_inputs(self, features: Sequence[PairFeatures]) -> np.ndarray:
        wrong = [f.llm_model for f in features if f.llm is None or f.llm_model != self.llm]
        if wrong:
            raise ValueError(f"this judge weighs the LLM check {self.llm}: featurise the pairs with it "
                             f"({len(wrong)} pairs read by {wrong[0] or 'no LLM'})")
        return np.column_stack([self._margin(features), [float(f.llm) for f in features]])

    def raw(self, features: Sequence[PairFeatures]) -> list[float]:
        if self.llm:
            if self.llm_stack is None:
                raise ValueError(f"the judge's LLM check {self.llm} is not weighed yet (fit_llm on validation pairs)")
            st = self.llm_stack
            x = (self._stack_inputs(features) - np.asarray(st["mean"])) / np.asarray(st["scale"])
            z = x @ np.asarray(st["weights"]) + st["bias"]
        else:
            z = self._margin(features)
        return [float(v) for v in 1.0 / (1.0 + np.exp(-np.clip(z, -500, 500)))]

    def probability(self, features: Sequence[PairFeatures]) -> list[float]:
        raw = self.raw(features)
        return self.calibration.probability(raw) if self.calibration is not None else raw

    @property
    def threshold(self) -> float:
        return self.calibration.threshold if self.calibration is not None else 0.5

    def contributions(self, features: PairFeatures) -> dict[str, float]:
        """Each feature's share of the decision (standardised value × weight)."""
        names = self.feature_names
        x = (np.asarray(features.vector(names)) - np.asarray(self.mean)) / np.asarray(self.scale)
        shares = {name: float(v * w) for name, v, w in zip(names, x, self.weights)}
        if self.llm and self.llm_stack is not None and features.llm is not None:
            st = self.llm_stack
            shares = {name: v * st["weights"][0] / st["scale"][0] for name, v in shares.items()}
            shares["llm"] = float(st["weights"][1] * (features.llm - st["mean"][1]) / st["scale"][1])
        return shares

    # --- explanations -------------------------------------------------------------------------

    def explain(self, features: PairFeatures, *, probability: float | None = None) -> list[dict[str, Any]]:
        """The checks behind a decision, each ``{"check", "passed", "detail"}``: numbers, units,
        names, foreign words, length and the encoder's similarity, failures first."""
        return explain(features, probability=probability, threshold=self.threshold,
                       contributions=self.contributions(features) if self.weights else None)

    # --- persistence --------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        return {"format": FORMAT, "features": list(self.feature_names), "weights": self.weights, "bias": self.bias,
                "mean": self.mean, "scale": self.scale, "regularisation": self.regularisation, "seed": self.seed,
                "calibration": self.calibration.to_dict() if self.calibration else None,
                "trained_on": self.trained_on, "fluency_lm": self.fluency_lm, "monotone": self.monotone,
                "llm": self.llm, "llm_stack": self.llm_stack, "english": self.english}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> NumeracyJudge:
        fluency_lm = data.get("fluency_lm") or None
        english = bool(data.get("english", False))
        names = list(ALL_FEATURE_NAMES if english else FEATURE_NAMES if fluency_lm else BASE_FEATURE_NAMES)
        if data.get("format") not in (1, 2, 3, FORMAT) or list(data.get("features") or []) != names:
            raise ValueError("judge file of another format or feature set; train the judge again")
        calibration = Calibration.from_dict(data["calibration"]) if data.get("calibration") else None
        return cls(weights=list(data["weights"]), bias=float(data["bias"]), mean=list(data["mean"]),
                   scale=list(data["scale"]), calibration=calibration,
                   regularisation=float(data.get("regularisation", 1.0)), seed=int(data.get("seed", 3407)),
                   trained_on=dict(data.get("trained_on") or {}), fluency_lm=fluency_lm,
                   monotone=bool(data.get("monotone", False)), llm=data.get("llm") or None,
                   llm_stack=dict(data["llm_stack"]) if data.get("llm_stack") else None, english=english)

    def save(self, directory: str | Path) -> Path:
        path = Path(directory)
        path.mkdir(parents=True, exist_ok=True)
        target = path / FILE_NAME
        tmp = target.with_suffix(".tmp")
        tmp.write_text(json.dumps(self.to_dict(), indent=1))
        tmp.replace(target)
        return target

    @classmethod
    def load(cls, directory: str | Path) -> NumeracyJudge:
        return cls.from_dict(json.loads((Path(directory) / FILE_NAME).read_text()))


def _standardisation(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Column means and standard deviations (1 where a column is constant)."""
    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale[scale < 1e-9] = 1.0
    return mean, scale


def _fit_stack(x: np.ndarray, y: np.ndarray, *, c: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    mean, scale = _standardisation(x)
    coef, bias = _monotone_logistic((x - mean) / scale, y, [1] * x.shape[1], c=c, sample_weight=None)
    return mean, scale, coef, bias


def _out_of_fold_stack(x: np.ndarray, y: np.ndarray, groups: Sequence[Any] | None, *, folds: int,
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
        mean, scale, coef, bias = _fit_stack(x[train], y[train], c=c)
        out[test] = ((x[test] - mean) / scale) @ coef + bias
    return out


def _monotone_logistic(z: np.ndarray, y: np.ndarray, signs: Sequence[int], *, c: float,
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


# The check (as explanations name them) each feature belongs to.
CHECK_OF_FEATURE = {
    "cosine": "similarity", "align_p": "similarity", "align_r": "similarity", "align_f": "similarity",
    "numeracy": "numbers", "numbers_missing": "numbers", "numbers_added": "numbers", "units_kept": "units",
    "entities_kept": "names", "length_ratio": "length", "foreign": "foreign words", "fluency": "fluency",
    "changed_fluency": "fluency", "substitute_fit": "word choice", "domain_terms_lost": "quantity words",
    "broken_joins": "sentences", "longest_sentence": "sentences", "passive_stack": "passive voice",
    "pronoun_agent": "passive voice", "names_added": "new names", "question_lost": "question", "llm": "LLM",
}


def main_objection(contributions: dict[str, float]) -> str | None:
    """The check whose features count most against a pair (None when nothing counts against it).

    >>> main_objection({"fluency": -1.2, "cosine": 0.3, "substitute_fit": -0.4})
    'fluency'
    """
    worst = min(contributions, key=contributions.get, default=None)
    if worst is None or contributions[worst] >= 0:
        return None
    return CHECK_OF_FEATURE.get(worst, worst)


# An explanation flags a candidate whose tokens are on average less than half as probable as the problem's.
FLUENCY_DROP_FLAG = math.log(0.5)


def explain(features: PairFeatures, *, probability: float | None = None, threshold: float = 0.5,
            contributions: dict[str, float] | None = None) -> list[dict[str, Any]]:
    """Human-readable checks of one pair (see :meth:`NumeracyJudge.explain`)."""
    v = features.values
    checks: list[dict[str, Any]] = []
    if features.missing_numbers or features.added_numbers:
        parts = []
        if features.missing_numbers:
            parts.append("number " + ", ".join(features.missing_numbers) + " missing")
        if features.added_numbers:
            parts.append("number " + ", ".join(features.added_numbers) + " added")
        checks.append({"check": "numbers", "passed": False, "detail": "; ".join(parts)})
    else:
        checks.append({"check": "numbers", "passed": True, "detail": "every number kept"})
    if features.missing_units:
        checks.append({"check": "units", "passed": False,
                       "detail": "unit " + ", ".join(repr(u) for u in features.missing_units) + " dropped or changed"})
    else:
        checks.append({"check": "units", "passed": True, "detail": "units kept"})
    if features.missing_entities:
        checks.append({"check": "names", "passed": False,
                       "detail": "name " + ", ".join(repr(n) for n in features.missing_entities) + " replaced or dropped"})
    else:
        checks.append({"check": "names", "passed": True, "detail": "names kept"})
    if features.foreign_words:
        note = "" if features.wordnet else " (WordNet not installed: synonyms not recognised)"
        checks.append({"check": "foreign words", "passed": v["foreign"] <= 0.34,
                       "detail": "words not in the problem: " + ", ".join(features.foreign_words[:8]) + note})
    else:
        checks.append({"check": "foreign words", "passed": True, "detail": "no words foreign to the problem"})
    if features.llm is not None:
        checks.append({"check": "LLM", "passed": features.llm > 0,
                       "detail": f"{features.llm_model} answers {'Yes' if features.llm > 0 else 'No'} to "
                                 f"\"same problem?\" (log-odds {features.llm:+.2f})"})
    if features.fluency_lm is not None:
        per_token = math.exp(v["fluency"])
        checks.append({"check": "fluency", "passed": v["fluency"] > FLUENCY_DROP_FLAG,
                       "detail": "reads as fluently as the problem" if v["fluency"] == 0.0 else
                       f"each token {per_token:.2f}× as probable as in the problem ({features.fluency_lm})"})
    if ENGLISH_FEATURE_NAMES[0] in v:
        checks += english_reasons(v)
    ratio = math.exp(v["length_ratio"])
    checks.append({"check": "length", "passed": ratio <= 1.6,
                   "detail": f"length differs by a factor {ratio:.2f}"})
    checks.append({"check": "similarity", "passed": v["cosine"] > 0.5,
                   "detail": f"encoder cosine {v['cosine']:.3f}, token alignment F1 {v['align_f']:.3f}"})
    if probability is not None:
        checks.append({"check": "decision", "passed": probability > threshold,
                       "detail": f"probability {probability:.3f} vs threshold {threshold:.3f}"})
    if contributions:
        worst = min(contributions, key=contributions.get)
        checks.append({"check": "strongest evidence against", "passed": contributions[worst] >= 0,
                       "detail": f"{worst} ({contributions[worst]:+.2f})"})
    checks.sort(key=lambda c: c["passed"])
    return checks
