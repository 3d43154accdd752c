"""The resources ParaQD's operators take (spaCy, a similarity over the base encoder, the
optional backtranslation and paraphrase models), and the operators applied one at a time."""
from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from django.conf import settings

from ml.operators import TRAINING_OPERATORS, OperatorNotApplicable, apply_operator
from ml.seq2seq import BacktranslationConfig, Backtranslator, ModelUnavailable, Seq2SeqConfig, Seq2SeqGenerator
from ml.similarity import SentenceSimilarity

from .common import base_encoder_path, generation_device, paraqd_device


class OnceUnavailable:
    """Wraps a text generator: after its model failed to load once, fail fast for the rest of the run."""

    def __init__(self, generator: Callable[[list[str]], list[str]]) -> None:
        self.generator = generator
        self.error: Exception | None = None

    def __call__(self, texts: list[str]) -> list[str]:
        if self.error is not None:
            raise ModelUnavailable(str(self.error))
        try:
            return self.generator(texts)
        except ModelUnavailable as exc:
            self.error = exc
            raise

    def __repr__(self) -> str:
        return repr(self.generator)


class _EncoderSimilarity(SentenceSimilarity):
    """``similarity(anchor, candidates)`` over an encoder loaded through the scorer cache, on the
    first call: f5 and f9 share it with scoring, and a run where neither applies loads nothing."""

    def __init__(self, path: str) -> None:
        super().__init__()
        self.path = path

    @property
    def encoder(self) -> Any:
        from ml.paraqd.model import get_scorer

        return get_scorer(self.path, paraqd_device()).model


def operator_resources(*, encoder: str | None = None, with_similarity: bool = True) -> dict[str, Any]:
    """The resources the operators take, from the settings: the spaCy pipeline, a similarity over
    the base encoder (f5, f9's offline default), and the backtranslation and paraphrase models when
    configured (f1, f9). Models load lazily, on first use, and stay cached in the process."""

    resources: dict[str, Any] = {"spacy_model": settings.PARALAB_SPACY_MODEL, "offline_fallback": True}
    if with_similarity:
        resources["similarity"] = _EncoderSimilarity(base_encoder_path(encoder))
    device = generation_device()
    models = settings.PARALAB_BACKTRANSLATION_MODELS
    if len(models) >= 2:
        resources["backtranslator"] = OnceUnavailable(
            Backtranslator(BacktranslationConfig(forward_model=models[0], backward_model=models[1], device=device))
        )
    if settings.PARALAB_PARAPHRASER_MODEL:
        resources["paraphraser"] = OnceUnavailable(
            Seq2SeqGenerator(Seq2SeqConfig(model=settings.PARALAB_PARAPHRASER_MODEL, device=device))
        )
    return resources


def apply_or_none(name: str, text: str, rng: random.Random, resources: dict[str, Any]):
    """The operator's result, or None when it does not apply (or its model is unavailable)."""

    try:
        return apply_operator(name, text, rng, **resources)
    except (OperatorNotApplicable, ModelUnavailable):
        return None


def default_training_operators() -> list[str]:
    """Every training operator except those that produce what a test operator produces (the
    offline ``passive`` overlaps fa): synthesized test pairs then stay out of the training
    distribution, as in the paper."""

    return [name for name, spec in TRAINING_OPERATORS.items() if not spec.overlaps]
