"""The numeracy-aware judge: a small logistic regression over :mod:`ml.judge.features` (the
encoder's cosine beside the checks it misses), with a :class:`~ml.judge.calibration.Calibration`
on top. Trained on the self-supervised operator pairs (ParaQD's training operators: positives keep
numbers, units and names; negatives change them), refitted in seconds on human gold labels.
Saved as JSON (weights, standardisation, calibration): no pickle.
"""
from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from ..metrics.classification import roc_auc
from .calibration import Calibration, fit_calibration
from .english import ENGLISH_FEATURE_NAMES
from .explanations import CHECK_OF_FEATURE, FLUENCY_DROP_FLAG, explain, main_objection  # noqa: F401
from .features import ALL_FEATURE_NAMES, BASE_FEATURE_NAMES, FEATURE_NAMES, FEATURE_SIGNS, PairFeatures
from .logistic import fit_stack, monotone_logistic, out_of_fold_stack, standardisation

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
        mean, scale = standardisation(x)
        z = (x - mean) / scale
        weight = None if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
        if self.monotone:
            signs = [FEATURE_SIGNS[name] for name in self.feature_names]
            coef, self.bias = monotone_logistic(z, y, signs, c=self.regularisation, sample_weight=weight)
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
        if not self.llm:
            raise ValueError("this judge has no LLM check (llm=None)")
        y = np.asarray([int(bool(v)) for v in labels])
        if len(set(y.tolist())) < 2:
            raise ValueError("weighing the LLM check needs valid and invalid pairs")
        x = self._stack_inputs(features)
        mean, scale, coef, bias = fit_stack(x, y, c=self.regularisation)
        stack: dict[str, Any] = {"weights": [float(w) for w in coef], "bias": bias, "mean": [float(v) for v in mean],
                                 "scale": [float(v) for v in scale], "pairs": int(len(y)), "valid": int(y.sum())}
        held_out = out_of_fold_stack(x, y, groups, folds=folds, c=self.regularisation)
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
        if not self.weights:
            raise ValueError("the judge is not trained")
        y = np.asarray([int(bool(v)) for v in labels])
        if len(set(y.tolist())) < 2:
            raise ValueError("refitting needs valid and invalid gold pairs")
        z = (self._matrix(features) - np.asarray(self.mean)) / np.asarray(self.scale)
        signs = [FEATURE_SIGNS[name] if self.monotone else 0 for name in self.feature_names]
        coef, bias = monotone_logistic(z, y, signs, c=strength, sample_weight=None, prior=np.asarray(self.weights),
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
