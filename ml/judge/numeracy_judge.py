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
from .features import FEATURE_NAMES, PairFeatures

FILE_NAME = "judge.json"
FORMAT = 1


@dataclass
class NumeracyJudge:
    """``raw(features)`` is the classifier's probability; ``probability`` applies the calibration."""

    weights: list[float] = field(default_factory=list)
    bias: float = 0.0
    mean: list[float] = field(default_factory=list)
    scale: list[float] = field(default_factory=list)
    calibration: Calibration | None = None
    regularisation: float = 1.0
    seed: int = 3407
    trained_on: dict[str, Any] = field(default_factory=dict)

    # --- fitting ------------------------------------------------------------------------------

    def fit(self, features: Sequence[PairFeatures], labels: Sequence[int], *, info: dict[str, Any] | None = None,
            sample_weight: Sequence[float] | None = None) -> NumeracyJudge:
        """Fit the classifier (standardised features, L2 logistic regression); the calibration is
        reset to the identity with threshold 0.5 until :meth:`calibrate` runs on validation pairs."""
        from sklearn.linear_model import LogisticRegression

        x, y = self._matrix(features), np.asarray([int(bool(v)) for v in labels])
        if len(set(y.tolist())) < 2:
            raise ValueError("the judge needs valid and invalid pairs to learn from")
        mean = x.mean(axis=0)
        scale = x.std(axis=0)
        scale[scale < 1e-9] = 1.0
        model = LogisticRegression(C=self.regularisation, max_iter=2000, random_state=self.seed)
        model.fit((x - mean) / scale, y, sample_weight=None if sample_weight is None else np.asarray(sample_weight))
        self.weights = [float(w) for w in model.coef_[0]]
        self.bias = float(model.intercept_[0])
        self.mean, self.scale = [float(v) for v in mean], [float(v) for v in scale]
        self.calibration = Calibration(method="identity", threshold=0.5)
        self.trained_on = {"pairs": int(len(y)), "valid": int(y.sum()), **(info or {})}
        return self

    def refit(self, features: Sequence[PairFeatures], labels: Sequence[int], *, weight: float = 1.0,
              base: tuple[Sequence[PairFeatures], Sequence[int]] | None = None) -> NumeracyJudge:
        """Refit on human gold labels (seconds): with ``base`` pairs, the gold pairs join them with
        ``weight``; without, the classifier is fitted on the gold pairs alone."""
        if base is not None:
            feats = [*base[0], *features]
            labs = [*base[1], *labels]
            weights = [1.0] * len(base[0]) + [weight] * len(features)
            return self.fit(feats, labs, sample_weight=weights, info={"refit_gold": len(features)})
        return self.fit(features, labels, info={"refit_gold": len(features)})

    def calibrate(self, features: Sequence[PairFeatures], labels: Sequence[int], *, method: str = "platt") -> Calibration:
        """Fit the calibration (and threshold) of the raw output on validation pairs."""
        self.calibration = fit_calibration(self.raw(features), labels, method=method)
        return self.calibration

    # --- scoring ------------------------------------------------------------------------------

    def _matrix(self, features: Sequence[PairFeatures]) -> np.ndarray:
        return np.asarray([f.vector() for f in features], dtype=np.float64).reshape(-1, len(FEATURE_NAMES))

    def raw(self, features: Sequence[PairFeatures]) -> list[float]:
        if not self.weights:
            raise ValueError("the judge is not trained")
        x = (self._matrix(features) - np.asarray(self.mean)) / np.asarray(self.scale)
        z = x @ np.asarray(self.weights) + self.bias
        return [float(v) for v in 1.0 / (1.0 + np.exp(-np.clip(z, -500, 500)))]

    def probability(self, features: Sequence[PairFeatures]) -> list[float]:
        raw = self.raw(features)
        return self.calibration.probability(raw) if self.calibration is not None else raw

    @property
    def threshold(self) -> float:
        return self.calibration.threshold if self.calibration is not None else 0.5

    def contributions(self, features: PairFeatures) -> dict[str, float]:
        """Each feature's share of the decision (standardised value × weight)."""
        x = (np.asarray(features.vector()) - np.asarray(self.mean)) / np.asarray(self.scale)
        return {name: float(v * w) for name, v, w in zip(FEATURE_NAMES, x, self.weights)}

    # --- explanations -------------------------------------------------------------------------

    def explain(self, features: PairFeatures, *, probability: float | None = None) -> list[dict[str, Any]]:
        """The checks behind a decision, each ``{"check", "passed", "detail"}``: numbers, units,
        names, foreign words, length and the encoder's similarity, failures first."""
        return explain(features, probability=probability, threshold=self.threshold,
                       contributions=self.contributions(features) if self.weights else None)

    # --- persistence --------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        return {"format": FORMAT, "features": list(FEATURE_NAMES), "weights": self.weights, "bias": self.bias,
                "mean": self.mean, "scale": self.scale, "regularisation": self.regularisation, "seed": self.seed,
                "calibration": self.calibration.to_dict() if self.calibration else None,
                "trained_on": self.trained_on}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> NumeracyJudge:
        if data.get("format") != FORMAT or list(data.get("features") or []) != list(FEATURE_NAMES):
            raise ValueError("judge file of another format or feature set; train the judge again")
        calibration = Calibration.from_dict(data["calibration"]) if data.get("calibration") else None
        return cls(weights=list(data["weights"]), bias=float(data["bias"]), mean=list(data["mean"]),
                   scale=list(data["scale"]), calibration=calibration,
                   regularisation=float(data.get("regularisation", 1.0)), seed=int(data.get("seed", 3407)),
                   trained_on=dict(data.get("trained_on") or {}))

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
