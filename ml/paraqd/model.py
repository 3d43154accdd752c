"""Loading, scoring with, and saving ParaQD sentence encoders.

The score of a (question, paraphrase) pair is the cosine of their embeddings, in [-1, 1]
(paper 001, section 3.4); the platform's sigma is (cos + 1) / 2. Models load offline
(``local_files_only``) and only from safetensors weights (:mod:`ml.encoders`, whose loader and
device choice are re-exported here); a trained model directory holds the sentence-transformers
files plus ``paraqd.json`` (config, metrics, training summary).

>>> resolve_encoder_path("packaged:all-MiniLM-L6-v2").endswith("model")
True
>>> resolve_encoder_path("sentence-transformers/all-MiniLM-L6-v2")   # a hub id passes through
'sentence-transformers/all-MiniLM-L6-v2'
"""
from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import numpy as np
import torch

# The encoder loader lives in ml.encoders; its names stay importable here.
from ..encoders import (
    PACKAGED_ENCODERS,
    UnsafeCheckpointError,
    load_encoder,
    resolve_encoder_path,
    select_device,
)
from ..serialization import json_safe

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer

__all__ = [
    "METADATA_FILE",
    "PACKAGED_ENCODERS",
    "ParaQDScorer",
    "UnsafeCheckpointError",
    "clear_scorer_cache",
    "encode",
    "get_scorer",
    "load_encoder",
    "load_model",
    "read_metadata",
    "resolve_encoder_path",
    "save_model",
    "score_pairs",
    "select_device",
]

METADATA_FILE = "paraqd.json"


def encode(model: SentenceTransformer, texts: Sequence[str], batch_size: int = 64) -> np.ndarray:
    """Unit-norm float32 embeddings, (N, D). sentence-transformers sorts by length internally."""
    if len(texts) == 0:
        dim = model.get_embedding_dimension() if hasattr(model, "get_embedding_dimension") else \
            model.get_sentence_embedding_dimension()
        return np.zeros((0, dim or 0), dtype=np.float32)
    with torch.inference_mode():
        embeddings = model.encode(
            list(texts), batch_size=batch_size, convert_to_numpy=True, normalize_embeddings=True,
            show_progress_bar=False,
        )  # (N, D)
    return np.asarray(embeddings, dtype=np.float32)


def score_pairs(
    model: SentenceTransformer, originals: Sequence[str], paraphrases: Sequence[str], batch_size: int = 64
) -> np.ndarray:
    """Cosine of each (original, paraphrase) pair, (N,) float32 in [-1, 1].

    Each distinct text is encoded once: many candidates share one original, and a candidate may
    repeat. ``model.encode`` then sorts the unique texts by length, so batches pad little.
    """
    if len(originals) != len(paraphrases):
        raise ValueError(f"originals and paraphrases differ in length: {len(originals)} != {len(paraphrases)}")
    if len(originals) == 0:
        return np.zeros(0, dtype=np.float32)
    position: dict[str, int] = {}
    left = np.fromiter((position.setdefault(t, len(position)) for t in originals), dtype=np.int64, count=len(originals))
    right = np.fromiter((position.setdefault(t, len(position)) for t in paraphrases), dtype=np.int64,
                        count=len(paraphrases))
    embeddings = encode(model, list(position), batch_size)  # (U, D) unit norm
    cosines = np.einsum("nd,nd->n", embeddings[left], embeddings[right])  # (N,)
    return np.clip(cosines, -1.0, 1.0).astype(np.float32)


# Saving and loading ------------------------------------------------------------------------------
def save_model(
    model: SentenceTransformer,
    output_dir: str | os.PathLike,
    *,
    config: Any = None,
    metrics: Mapping[str, Any] | None = None,
    training: Mapping[str, Any] | None = None,
) -> str:
    """Write the encoder (safetensors) and ``paraqd.json`` to ``output_dir``; returns the path.

    ``config``: a dataclass (e.g. ParaQDTrainConfig) or a mapping; ``metrics`` and ``training``:
    plain JSON-able mappings. NaN metrics are written as null.
    """
    output_dir = os.fspath(output_dir)
    os.makedirs(output_dir, exist_ok=True)
    model.save(output_dir, safe_serialization=True, create_model_card=False)
    if dataclasses.is_dataclass(config) and not isinstance(config, type):
        config = dataclasses.asdict(config)
    metadata = {
        "format": "paraqd/1",
        "saved_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "score": "cosine",
        "config": config,
        "metrics": metrics or {},
        "training": training or {},
    }
    with open(os.path.join(output_dir, METADATA_FILE), "w", encoding="utf-8") as f:
        json.dump(json_safe(metadata), f, indent=2, sort_keys=True)
    return output_dir


def read_metadata(model_dir: str | os.PathLike) -> dict[str, Any]:
    """The ``paraqd.json`` of a trained model, or {} for a plain encoder."""
    path = os.path.join(os.fspath(model_dir), METADATA_FILE)
    if not os.path.exists(path):
        return {}
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def load_model(model_dir: str, device: str = "auto") -> tuple[SentenceTransformer, dict[str, Any]]:
    """A trained (or plain) encoder and its ``paraqd.json`` metadata."""
    model = load_encoder(model_dir, device)
    path = resolve_encoder_path(model_dir)
    return model, read_metadata(path) if os.path.isdir(path) else {}


# Scorer cache for workers -----------------------------------------------------------------------
@dataclass
class ParaQDScorer:
    """A loaded scorer: ``scorer.score(originals, paraphrases)`` -> cosines (N,);
    ``scorer.scores(...)`` -> per-pair dicts with prefixed keys (``paraqd_cosine``, ``paraqd_sigma``)."""

    model: Any
    path: str
    device: str
    metadata: dict[str, Any] = field(default_factory=dict)
    batch_size: int = 64

    def score(self, originals: Sequence[str], paraphrases: Sequence[str]) -> np.ndarray:
        return score_pairs(self.model, originals, paraphrases, self.batch_size)

    def scores(self, originals: Sequence[str], paraphrases: Sequence[str]) -> list[dict[str, float]]:
        """Per pair: ``paraqd_cosine`` in [-1, 1] and ``paraqd_sigma`` = (cos + 1) / 2 in [0, 1]."""
        return [
            {"paraqd_cosine": float(c), "paraqd_sigma": (float(c) + 1.0) / 2.0}
            for c in self.score(originals, paraphrases)
        ]


def _fingerprint(path: str) -> tuple[int, ...]:
    """Modification times of the weights and metadata, so a model retrained in place reloads."""
    stamps = []
    for name in ("model.safetensors", METADATA_FILE):
        full = os.path.join(path, name)
        stamps.append(os.stat(full).st_mtime_ns if os.path.exists(full) else 0)
    return tuple(stamps)


@lru_cache(maxsize=2)
def _cached_scorer(path: str, device: str, fingerprint: tuple[int, ...]) -> ParaQDScorer:
    model = load_encoder(path, device)
    model.eval()
    metadata = read_metadata(path) if os.path.isdir(path) else {}
    return ParaQDScorer(model=model, path=path, device=device, metadata=metadata)


def encoder_fingerprint(path: str) -> tuple[str, tuple[int, ...]]:
    """The encoder's resolved path and the state of its files: what a cache of anything the
    encoder computed must key on (a model retrained in place changes it)."""
    resolved = resolve_encoder_path(path)
    return resolved, (_fingerprint(resolved) if os.path.isdir(resolved) else ())


def get_scorer(path: str, device: str = "auto") -> ParaQDScorer:
    """The scorer for ``path`` (any :func:`resolve_encoder_path` value), loaded once per process
    and device, so a worker keeps it between tasks; reloaded if the files on disk change."""
    resolved, fingerprint = encoder_fingerprint(path)
    return _cached_scorer(resolved, select_device(device), fingerprint)


def clear_scorer_cache() -> None:
    """Drop cached scorers (tests; freeing GPU memory)."""
    _cached_scorer.cache_clear()
