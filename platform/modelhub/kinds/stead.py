"""STEAD, SCANNING's denoiser (paper 000), as a model kind. It learns from the problems alone
(no human label says how to denoise), so it is trained on demand and never retrained from labels;
PAP is the kind that learns from the annotators."""
from __future__ import annotations

from datetime import datetime
from typing import Any

from .base import GateMetric, TrainRequest


class SteadKind:
    name = "stead"
    label = "STEAD denoiser"
    queue = "gpu"
    has_reference = False  # a reference to gate against when no version is active
    retrainable = False
    gate_metrics: tuple[GateMetric, ...] = ()

    def train(self, request: TrainRequest):
        from paraphrases.scanning import stead_train

        return stead_train(dataset_names=request.dataset_names, preset=request.preset, base=request.base,
                           max_problems=request.max_problems, activate=request.activate, user=request.user,
                           job=request.job, progress=request.progress, **request.options)

    def retrain_candidate(self, *, split, job, progress):
        raise NotImplementedError("STEAD is not retrained from labels")

    def heldout_metrics(self, *, version, split) -> dict[str, Any]:
        return {}

    def reference_label(self, version) -> str:
        return f"v{version.pk}" if version is not None else "none"

    def gate_extras(self) -> dict[str, Any]:
        return {}

    def after_promotion(self, *, version, user) -> list[int]:
        return []

    def new_evidence(self, *, since: datetime | None) -> dict[str, int]:
        return {"new_gold_labels": 0, "human_model_disagreements": 0}
