"""What every noise function shares: the :class:`NoiseFunction` wrapper (one function usable on
a text or on units), capitalisation repair after words move, and the choice of the most fluent
candidate (PAN) the pseudo-adversarial functions keep."""
from __future__ import annotations

import functools
import random
from collections.abc import Callable, Sequence
from typing import Union, overload

from .resources import NoiseResources
from .units import Unit, detokenize, parse_units

__all__ = ["MAX_FLUENCY_CANDIDATES", "NoiseFunction", "Units", "UnitsFunction", "most_fluent", "noise_function",
           "recapitalise"]

Units = list[Unit]

MAX_FLUENCY_CANDIDATES = 8
"""PAN scores at most this many distinct candidates (sampled when there are more)."""

# --- text or units --------------------------------------------------------------------------------

UnitsFunction = Callable[[Units, random.Random, NoiseResources], Units]


class NoiseFunction:
    """A noise function usable on a text (returns a text) or on units (returns units)."""

    def __init__(self, function: UnitsFunction) -> None:
        functools.update_wrapper(self, function)
        self.function = function

    @overload
    def __call__(self, x: str, rng: random.Random, resources: NoiseResources | None = None) -> str: ...

    @overload
    def __call__(self, x: Sequence[Unit], rng: random.Random, resources: NoiseResources | None = None) -> Units: ...

    def __call__(self, x: Union[str, Sequence[Unit]], rng: random.Random,
                 resources: NoiseResources | None = None) -> Union[str, Units]:
        resources = resources if resources is not None else NoiseResources()
        if isinstance(x, str):
            return detokenize(self.function(list(parse_units(x, resources.spacy_model)), rng, resources))
        return self.function(list(x), rng, resources)

    def __repr__(self) -> str:
        return f"<noise function {self.__name__}>"


def noise_function(function: UnitsFunction) -> NoiseFunction:
    """Decorator: a units function becomes a :class:`NoiseFunction`."""
    return NoiseFunction(function)


# --- helpers --------------------------------------------------------------------------------------


def _keeps_capital(unit: Unit) -> bool:
    text = unit.text
    return (unit.upos == "PROPN" or text == "I" or (text.isupper() and len(text) > 1)
            or (len(text) == 1 and text.isupper() and unit.upos != "DET"))


def recapitalise(units: Units) -> Units:
    """Each sentence starts with a capital; a word that no longer starts its sentence loses the
    capital it had as a sentence start, unless it is a name, "I" or an acronym."""
    out = list(units)
    previous = None
    for i, unit in enumerate(out):
        first = unit.sentence != previous
        previous = unit.sentence
        if unit.protected or unit.template or not unit.text[:1].isalpha():
            continue
        if first and unit.text[0].islower():
            out[i] = unit.with_text(unit.text[0].upper() + unit.text[1:])
        elif not first and unit.sentence_start and unit.text[0].isupper() and not _keeps_capital(unit):
            out[i] = unit.with_text(unit.text[0].lower() + unit.text[1:])
    return out


def most_fluent(candidates: list[Units], rng: random.Random, resources: NoiseResources) -> Units:
    """The candidate the fluency LM scores highest (at most MAX_FLUENCY_CANDIDATES distinct
    ones, sampled; without an LM a random one)."""
    unique: dict[str, Units] = {}
    for candidate in candidates:
        unique.setdefault(detokenize(candidate), candidate)
    texts = sorted(unique)
    if len(texts) > MAX_FLUENCY_CANDIDATES:
        texts = sorted(rng.sample(texts, MAX_FLUENCY_CANDIDATES))
    if resources.fluency is None:
        return unique[texts[rng.randrange(len(texts))]]
    scores = resources.fluency.score(texts)
    best = max(range(len(texts)), key=lambda i: (scores[i], -i))
    return unique[texts[best]]

