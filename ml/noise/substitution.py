"""Synonym substitution: q5 (a sample of nouns, verbs, adjectives and adverbs) and i4
(dependency objects first)."""
from __future__ import annotations

import random

from .base import Units, noise_function
from .resources import NoiseResources

__all__ = ["SUBSTITUTE_POS", "SUBSTITUTION_RATE", "i4_synonym_substitution", "q5_synonym_substitution"]

SUBSTITUTION_RATE = 0.25
"""Share of the substitutable units q5/i4 replace (at least one), among those with a synonym."""
SUBSTITUTE_POS = frozenset({"NOUN", "VERB", "ADJ", "ADV"})
"""Tags q5/i4 substitute and whose synonyms q7/i6 insert."""


def _substitute(units: Units, rng: random.Random, resources: NoiseResources, prefer_objects: bool) -> Units:
    if resources.synonyms is None:
        resources.note("synonyms", "none")
        return list(units)
    eligible = [i for i, u in enumerate(units) if not u.protected and not u.template and u.upos in SUBSTITUTE_POS]
    if prefer_objects:
        objects = [i for i in eligible if units[i].is_object]
        rest = [i for i in eligible if not units[i].is_object]
        rng.shuffle(objects)
        rng.shuffle(rest)
        eligible = objects + rest
    else:
        rng.shuffle(eligible)
    budget = max(1, round(SUBSTITUTION_RATE * len(eligible))) if eligible else 0
    out = list(units)
    for i in eligible:
        if budget <= 0:
            break
        unit = units[i]
        options = resources.lookup(unit.text, unit.lemma, unit.upos)
        if not options:
            continue
        choice = rng.choice(options)
        if unit.text[:1].isupper():
            choice = choice[:1].upper() + choice[1:]
        out[i] = unit.with_text(choice)
        budget -= 1
    return out


@noise_function
def q5_synonym_substitution(units: Units, rng: random.Random, resources: NoiseResources) -> Units:
    """Replace a sample of nouns, verbs, adjectives and adverbs by synonyms (none without a
    synonym lookup)."""
    return _substitute(units, rng, resources, prefer_objects=False)


@noise_function
def i4_synonym_substitution(units: Units, rng: random.Random, resources: NoiseResources) -> Units:
    """Synonym substitution that replaces dependency objects first."""
    return _substitute(units, rng, resources, prefer_objects=True)
