"""fd: random deletion of words (ParaQD 4.2, test negative; EDA's random deletion)."""
from __future__ import annotations

import random
from dataclasses import dataclass

from .base import OperatorNotApplicable, OperatorResult, make_result, tidy_spacing

__all__ = ["RandomDeletionConfig", "fd_random_deletion"]


@dataclass(frozen=True)
class RandomDeletionConfig:
    """probability: chance that each word is deleted (at least one word goes, at least one stays)."""

    probability: float = 0.15

    def __post_init__(self) -> None:
        if not 0 < self.probability < 1:
            raise ValueError("probability must be in (0, 1)")


def fd_random_deletion(text: str, rng: random.Random, *, config: RandomDeletionConfig | None = None) -> OperatorResult:
    """Test negative fd.

    >>> fd_random_deletion("A train covers 300 km in 5 hours.", random.Random(3)).text
    'A train covers 300 km hours.'
    """
    config = config or RandomDeletionConfig()
    words = text.split()
    if len(words) < 2:
        raise OperatorNotApplicable("fewer than two words", operator="fd")
    deleted = {i for i in range(len(words)) if rng.random() < config.probability}
    if not deleted:
        deleted = {rng.randrange(len(words))}
    if len(deleted) == len(words):
        deleted.discard(rng.choice(sorted(deleted)))
    out = tidy_spacing(" ".join(w for i, w in enumerate(words) if i not in deleted))
    return make_result(text, out, "fd", False, deleted=[words[i] for i in sorted(deleted)])
