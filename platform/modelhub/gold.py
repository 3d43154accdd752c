"""The annotators' gold labels as a retrain reads them: a :class:`GoldPair` per label and the
:class:`GoldSplit` into held-out pairs and trainable candidate ids (``retraining.retrain_gold_split``
makes it; a kind's ``retrain_candidate`` and ``heldout_metrics`` read it, ``kinds.base``)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.conf import settings


@dataclass(frozen=True)
class GoldPair:
    candidate_id: int
    question: str
    paraphrase: str
    valid: bool
    synthesized_test: bool


@dataclass
class GoldSplit:
    heldout: list[GoldPair] = field(default_factory=list)
    train_ids: list[int] = field(default_factory=list)  # candidate ids whose gold labels may be trained on
    dataset_names: list[str] = field(default_factory=list)

    @property
    def heldout_ids(self) -> list[int]:
        return [p.candidate_id for p in self.heldout]

    def summary(self) -> dict[str, Any]:
        return {
            "rule": f"candidate id hash bucket < {settings.PARALAB_RETRAIN_HOLDOUT_PERCENT} of 100 (at least one, "
                    "and one of each class that has two or more), plus every labelled synthesized test pair",
            "percent": settings.PARALAB_RETRAIN_HOLDOUT_PERCENT,
            "n": len(self.heldout),
            "valid": sum(p.valid for p in self.heldout),
            "invalid": sum(not p.valid for p in self.heldout),
            "synthesized_test": sum(p.synthesized_test for p in self.heldout),
            "train_gold": len(self.train_ids),
            "datasets": self.dataset_names,
        }
