"""STEAD, SCANNING's denoiser (paper 000), as a model kind. It learns from the problems alone
(no human label says how to denoise), so it is trained on demand and never retrained from labels;
PAP is the kind that learns from the annotators."""
from __future__ import annotations

from .base import NotRetrainedFromLabels, TrainRequest


class SteadKind(NotRetrainedFromLabels):
    name = "stead"
    label = "STEAD denoiser"
    queue = "gpu"

    def train(self, request: TrainRequest):
        from paraphrases.scanning import stead_train

        return stead_train(dataset_names=request.dataset_names, preset=request.preset, base=request.base,
                           max_problems=request.max_problems, activate=request.activate, user=request.user,
                           job=request.job, progress=request.progress, **request.options)
