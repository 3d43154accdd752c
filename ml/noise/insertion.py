"""Word insertion: q7 (corpus words and synonyms of words present, about one per ten units);
i6 is the same function."""
from __future__ import annotations

import random

from .base import Units, noise_function
from .resources import NoiseResources
from .substitution import SUBSTITUTE_POS
from .units import Unit

__all__ = ["INSERTION_RATE", "SYNONYM_INSERTION_SHARE", "i6_insertion", "q7_word_insertion"]

INSERTION_RATE = 0.10
"""Words q7/i6 insert per unit of the text (at least one)."""
SYNONYM_INSERTION_SHARE = 0.5
"""Share of the inserted words that are synonyms of words present (the rest: corpus words)."""


def _inserted(word: str, sentence: int) -> Unit:
    return Unit(word, " ", "X", word.lower(), "dep", sentence, key=word.lower())


@noise_function
def q7_word_insertion(units: Units, rng: random.Random, resources: NoiseResources) -> Units:
    """Insert random corpus words and synonyms of words present, about one per ten units."""
    out = list(units)
    count = max(1, round(INSERTION_RATE * len(units)))
    present = [u for u in units if not u.protected and not u.template and u.upos in SUBSTITUTE_POS]
    for _ in range(count):
        word = None
        if present and resources.synonyms is not None and rng.random() < SYNONYM_INSERTION_SHARE:
            unit = present[rng.randrange(len(present))]
            options = [s for s in resources.lookup(unit.text, unit.lemma, unit.upos) if " " not in s]
            word = rng.choice(options) if options else None
        if word is None and resources.vocabulary:
            word = resources.vocabulary[rng.randrange(len(resources.vocabulary))]
        if word is None:
            continue
        position = rng.randrange(0, len(out) + 1)
        sentence = out[min(position, len(out) - 1)].sentence if out else 0
        out.insert(position, _inserted(word, sentence))
    return out


i6_insertion = q7_word_insertion
