"""Templatization: q4 (every mention of some entities becomes ``NOUN1``, ``PRON1``, ...) and
i3 (entities with a dependency-object mention first)."""
from __future__ import annotations

import random

from .base import Units, noise_function
from .resources import NoiseResources
from .units import Unit

__all__ = ["TEMPLATE_POS", "TEMPLATE_RATE", "i3_templatization", "q4_templatization"]

TEMPLATE_RATE = 0.35
"""Share of the templatable entities (upos + key) q4/i3 template (at least one)."""
TEMPLATE_POS = frozenset({"NOUN", "PRON", "ADP", "DET"})
"""Tags q4/i3 template (``NOUN1``, ``PRON1``, ``ADP1``, ``DET1``)."""


def _templatable(unit: Unit) -> bool:
    return not unit.locked and unit.upos in TEMPLATE_POS


def _templatize(units: Units, rng: random.Random, prefer_objects: bool) -> Units:
    mentions: dict[tuple[str, str], list[int]] = {}
    for i, unit in enumerate(units):
        if _templatable(unit):
            mentions.setdefault((unit.upos, unit.key), []).append(i)
    if not mentions:
        return list(units)
    ordered = sorted(mentions)  # deterministic before the draw
    count = max(1, round(TEMPLATE_RATE * len(ordered)))
    if prefer_objects:
        objects = [k for k in ordered if any(units[i].is_object for i in mentions[k])]
        rest = [k for k in ordered if k not in objects]
        rng.shuffle(objects)
        rng.shuffle(rest)
        chosen = (objects + rest)[:count]
    else:
        chosen = rng.sample(ordered, count)
    counters: dict[str, int] = {}
    out = list(units)
    for key in sorted(chosen, key=lambda k: mentions[k][0]):  # numbered by first mention
        counters[key[0]] = counters.get(key[0], 0) + 1
        name = f"{key[0]}{counters[key[0]]}"
        for i in mentions[key]:
            out[i] = out[i].with_text(name, template=True)
    return out


@noise_function
def q4_templatization(units: Units, rng: random.Random, resources: NoiseResources) -> Units:
    """Replace every mention of some entities (nouns by lemma, pronouns by person: "He" and
    "his" are one) by their POS tag and an index (``NOUN1``, ``PRON1``, ``ADP1``, ``DET1``)."""
    return _templatize(units, rng, prefer_objects=False)


@noise_function
def i3_templatization(units: Units, rng: random.Random, resources: NoiseResources) -> Units:
    """Templatization that templates entities with a dependency-object mention first."""
    return _templatize(units, rng, prefer_objects=True)
