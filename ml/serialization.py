"""Values made storable as JSON (model metadata, metrics on model versions and jobs).

>>> json_safe({"separation": float("nan"), "n": np.int64(3), "curve": (0.5, float("inf"))})
{'separation': None, 'n': 3, 'curve': [0.5, None]}
"""
from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

__all__ = ["json_safe"]


def json_safe(value: Any) -> Any:
    """``value`` with NaN and infinities as None (JSON has neither), NumPy scalars as Python
    numbers, tuples as lists and mapping keys as strings."""
    if isinstance(value, (np.floating, np.integer)):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, Mapping):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    return value
