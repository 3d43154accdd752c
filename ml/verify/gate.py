"""One P(valid) for an LLM rewrite from every signal: the deciding judge's probability and the
verifier's (same answer, gold match, self-consistency of both solvings, how reworded it is).

A logistic model over named features (:func:`gate_features`). :data:`PRIOR` is the model used
until one is fitted on blind labels of LLM rewrites of validation problems (``fit_gate``,
``benchmarks/llm_verify.py``): it trusts the judge's rank and moves it by the re-solve — a rewrite
that solves to the original's answer keeps the judge's view, one whose answer could not be
checked is pulled down. A failed same-answer check never reaches the gate (the generator refuses
it).

>>> round(PRIOR.probability({"judge_logit": 0.0, "same_answer": 1.0}), 2) > 0.5
True
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

__all__ = ["FEATURES", "GateModel", "PRIOR", "fit_gate", "gate_features", "logit"]

FEATURES = ("judge_logit", "same_answer", "undecided", "gold_match", "gold_missing", "rewrite_agreement",
            "original_agreement", "reworded")


def logit(p: float, eps: float = 1e-4) -> float:
    p = min(1.0 - eps, max(eps, float(p)))
    return math.log(p / (1.0 - p))


def _value(signals: Mapping[str, float | None], key: str) -> float | None:
    value = signals.get(key)
    return None if value is None or value != value else float(value)  # None and NaN: unknown


def gate_features(judge_probability: float, verification: Mapping[str, object] | None,
                  reworded: float | None = None) -> dict[str, float]:
    """The gate's features of one rewrite: the judge's logit and the verification's signals
    (``ml.generation.llm``'s ``meta["verification"]``); unknown signals are 0 with an indicator."""
    verification = verification or {}
    signals = verification.get("signals") or {}
    passed = verification.get("passed")
    gold = _value(signals, "gold_match")  # type: ignore[arg-type]
    return {
        "judge_logit": logit(judge_probability),
        "same_answer": 1.0 if passed is True else 0.0,
        "undecided": 1.0 if passed is None else 0.0,
        "gold_match": gold or 0.0,
        "gold_missing": 1.0 if gold is None else 0.0,
        "rewrite_agreement": _value(signals, "rewrite_agreement") or 0.0,  # type: ignore[arg-type]
        "original_agreement": _value(signals, "original_agreement") or 0.0,  # type: ignore[arg-type]
        "reworded": float(reworded or 0.0),
    }


@dataclass(frozen=True)
class GateModel:
    """``sigmoid(intercept + Σ weight·feature)``; ``source`` says where the weights come from."""

    weights: Mapping[str, float]
    intercept: float = 0.0
    source: str = "prior"
    metrics: Mapping[str, float] = field(default_factory=dict)

    def probability(self, features: Mapping[str, float]) -> float:
        z = self.intercept + sum(w * float(features.get(name, 0.0)) for name, w in self.weights.items())
        return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))

    def to_dict(self) -> dict[str, object]:
        return {"weights": dict(self.weights), "intercept": self.intercept, "source": self.source,
                "metrics": dict(self.metrics)}

    @classmethod
    def from_dict(cls, data: Mapping[str, object]) -> "GateModel":
        weights = {str(k): float(v) for k, v in dict(data["weights"]).items()}  # type: ignore[arg-type]
        unknown = set(weights) - set(FEATURES)
        if unknown:
            raise ValueError(f"unknown gate features {sorted(unknown)}; expected some of {FEATURES}")
        return cls(weights=weights, intercept=float(data.get("intercept", 0.0)),  # type: ignore[arg-type]
                   source=str(data.get("source", "fitted")), metrics=dict(data.get("metrics") or {}))  # type: ignore[arg-type]


# Until fitted: the judge's logit as it is, nothing added for an agreeing re-solve, and an
# undecided one (neither text could be solved) pulled down by 1.5 logits (about 0.8 -> 0.5).
PRIOR = GateModel(weights={"judge_logit": 1.0, "undecided": -1.5}, intercept=0.0, source="prior (not fitted)")


def fit_gate(rows: Sequence[Mapping[str, float]], labels: Sequence[int], *, c: float = 1.0,
             features: Sequence[str] = FEATURES) -> GateModel:
    """A logistic regression (scikit-learn, L2) of ``labels`` (1 valid) on ``rows`` of
    :func:`gate_features`."""
    from sklearn.linear_model import LogisticRegression

    if len(set(labels)) < 2:
        raise ValueError("fitting the gate needs valid and invalid labels")
    matrix = [[float(row.get(name, 0.0)) for name in features] for row in rows]
    model = LogisticRegression(C=c, max_iter=1000).fit(matrix, list(labels))
    return GateModel(weights=dict(zip(features, (float(w) for w in model.coef_[0]))),
                     intercept=float(model.intercept_[0]), source=f"fitted on {len(labels)} labels")
