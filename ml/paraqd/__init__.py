"""ParaQD: the paraphrase-quality scorer of paper 001 (self-supervised triplet training of a
sentence encoder; score = cosine of question and paraphrase embeddings).

- :mod:`.config`  ``ParaQDTrainConfig`` (paper, authors' script and tiny presets)
- :mod:`.data`    ``Triplet``, ``TripletBatcher`` (anchor-grouped, length-bucketed batches)
- :mod:`.losses`  triplet loss (cosine / Euclidean distance) and MNRL on gathered embeddings
- :mod:`.model`   ``score_pairs``, ``get_scorer``, save/load; re-exports :mod:`ml.encoders` (resolution, loading)
- :mod:`.train`   ``train_paraqd`` -> ``TrainResult``

config and data are pure Python; the torch-backed names load on first access, so importing
``ml`` stays light.
"""
from __future__ import annotations

import importlib
from typing import Any

from .config import DEFAULT_ENCODER, ParaQDTrainConfig
from .data import DISAGREEMENT_SOURCE, Triplet, TripletBatch, TripletBatcher

_LAZY = {
    "mnrl_loss": "losses", "pairwise_distance": "losses", "triplet_loss": "losses",
    "METADATA_FILE": "model", "ParaQDScorer": "model", "UnsafeCheckpointError": "model",
    "clear_scorer_cache": "model", "encode": "model", "get_scorer": "model", "load_encoder": "model",
    "load_model": "model", "read_metadata": "model", "resolve_encoder_path": "model", "save_model": "model",
    "score_pairs": "model", "select_device": "model",
    "TrainResult": "train", "evaluate_pairs": "train", "set_seed": "train", "train_paraqd": "train",
}

__all__ = ["DEFAULT_ENCODER", "DISAGREEMENT_SOURCE", "ParaQDTrainConfig", "Triplet", "TripletBatch",
           "TripletBatcher", *sorted(_LAZY)]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
