"""f2: the same sentence (ParaQD 3.2, after SimCSE: the encoder's dropout is the augmentation).

The only operator allowed to return its input.
"""
from __future__ import annotations

import random

from .base import OperatorNotApplicable, OperatorResult

__all__ = ["f2_same_sentence"]


def f2_same_sentence(text: str, rng: random.Random) -> OperatorResult:
    """Positive f2: the text itself.

    >>> f2_same_sentence("John ate 5 apples.", random.Random(0)).text
    'John ate 5 apples.'
    """
    if not text.strip():
        raise OperatorNotApplicable("empty text", operator="f2")
    return OperatorResult(text=text, operator="f2", valid=True, meta={})
