"""fb: corrupted-sentence reconstruction (ParaQD 4.2, test positive).

The question is corrupted (local shuffles, deletions, replacements, in the spirit of Rotom's
InvDA but never touching numbers and units) and a generator reconstructs it. The generator is
the platform's own seq2seq model (a later step); until one is passed in, fb refuses.
"""
from __future__ import annotations

import random
from dataclasses import dataclass

from ..text.number_mentions import find_all_numbers
from ..text.units import find_units
from .base import OperatorNotApplicable, OperatorResult, TextGenerator, make_result

__all__ = ["CorruptionConfig", "corrupt", "fb_corrupted_reconstruction"]

NEEDS_GENERATOR = "needs the platform generator (not built yet)"


@dataclass(frozen=True)
class CorruptionConfig:
    """Per-word probabilities of deletion and replacement (by another word of the text), and of
    swapping a word with its right neighbour."""

    delete_probability: float = 0.1
    replace_probability: float = 0.1
    swap_probability: float = 0.1

    def __post_init__(self) -> None:
        for name in ("delete_probability", "replace_probability", "swap_probability"):
            if not 0 <= getattr(self, name) < 1:
                raise ValueError(f"{name} must be in [0, 1)")


def corrupt(text: str, rng: random.Random, config: CorruptionConfig | None = None) -> str:
    """A corrupted copy of ``text`` with every number and unit kept (words around them move).

    >>> corrupt("A train covers 300 km in 5 hours.", random.Random(0)).count("300")
    1
    """
    config = config or CorruptionConfig()
    protected_spans = [(n.start, n.end) for n in find_all_numbers(text)] + [(u.start, u.end) for u in find_units(text)]
    words, pos = [], 0
    for word in text.split():
        start = text.index(word, pos)
        pos = start + len(word)
        keep = any(a < pos and start < b for a, b in protected_spans)
        words.append((word, keep))
    plain = [w for w, keep in words if not keep]
    out = []
    for word, keep in words:
        if not keep and rng.random() < config.delete_probability:
            continue
        if not keep and plain and rng.random() < config.replace_probability:
            word = rng.choice(plain)
        out.append([word, keep])
    for i in range(len(out) - 1):
        if not out[i][1] and not out[i + 1][1] and rng.random() < config.swap_probability:
            out[i], out[i + 1] = out[i + 1], out[i]
    return " ".join(w for w, _ in out)


def fb_corrupted_reconstruction(
    text: str, rng: random.Random, *, generator: TextGenerator | None = None, config: CorruptionConfig | None = None
) -> OperatorResult:
    """Test positive fb: ``generator([corrupt(text)])[0]``."""
    if generator is None:
        raise OperatorNotApplicable(NEEDS_GENERATOR, operator="fb")
    corrupted = corrupt(text, rng, config)
    (out,) = generator([corrupted])
    return make_result(text, out.strip(), "fb", True, corrupted=corrupted)
