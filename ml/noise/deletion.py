"""Deletion: q6 (about 15 % of the deletable units); i5 is the same function."""
from __future__ import annotations

import random

from .base import Units, noise_function
from .resources import NoiseResources

__all__ = ["DELETION_RATE", "i5_deletion", "q6_random_deletion"]

DELETION_RATE = 0.15
"""Share of the deletable units (not locked, not sentence-final punctuation) q6/i5 remove (at least one)."""


def _is_final_punct(units: Units, i: int) -> bool:
    return units[i].upos == "PUNCT" and (i + 1 == len(units) or units[i + 1].sentence != units[i].sentence)


@noise_function
def q6_random_deletion(units: Units, rng: random.Random, resources: NoiseResources) -> Units:
    """Delete about 15 % of the deletable units: not quantities, not VERB/ADJ/ADV/AUX, not
    negations, not templates, not sentence-final punctuation."""
    deletable = [i for i, u in enumerate(units) if not u.locked and not _is_final_punct(units, i)]
    if not deletable:
        return list(units)
    count = max(1, round(DELETION_RATE * len(deletable)))
    gone = set(rng.sample(deletable, min(count, len(deletable))))
    return [u for i, u in enumerate(units) if i not in gone]


i5_deletion = q6_random_deletion
