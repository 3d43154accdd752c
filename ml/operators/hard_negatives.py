"""Fluent hard negatives without a model: a structural positive composed with one
information-destroying negative (METHODS.md: the offline default of f9).

The output reads like a real paraphrase (the structure changed: passive voice, a moved
prepositional phrase, or "Given that" reordering) but one fact is gone or wrong (a phrase
deleted, an entity swapped, a number made vague or changed, a unit swapped), which is the
kind of mistake a general-domain paraphraser makes on word problems.
"""
from __future__ import annotations

import random
from dataclasses import dataclass

from ..text.nlp import DEFAULT_SPACY_MODEL
from .base import OperatorNotApplicable, OperatorResult, Similarity, make_result
from .entity_replacement import EntityReplacementConfig, f7_entity_replacement
from .number_perturbation import F8_REPLACEMENTS, NumberReplacementConfig, f8_number_replacement, number_change
from .passive import active_to_passive
from .permutation import permute_at_preposition
from .phrase_deletion import f5_important_phrase_deletion
from .reordering import given_that_reorder
from .unit_replacement import f10_unit_replacement

__all__ = ["FluentNegativeConfig", "fluent_hard_negative"]

_POSITIVES = ("passive", "pp_permutation", "given_that")
_NEGATIVES = ("f5", "f7", "f8", "f10", "number_change")


@dataclass(frozen=True)
class FluentNegativeConfig:
    """positives / negatives: which structural changes and which information-destroying edits
    may be composed (f5 only runs when a similarity function is passed)."""

    positives: tuple[str, ...] = _POSITIVES
    negatives: tuple[str, ...] = _NEGATIVES

    def __post_init__(self) -> None:
        if not self.positives or set(self.positives) - set(_POSITIVES):
            raise ValueError(f"positives must be a non-empty subset of {_POSITIVES}")
        if not self.negatives or set(self.negatives) - set(_NEGATIVES):
            raise ValueError(f"negatives must be a non-empty subset of {_NEGATIVES}")


def _positive(name: str, text: str, rng: random.Random, spacy_model: str) -> OperatorResult:
    if name == "passive":
        return active_to_passive(text, rng, spacy_model=spacy_model)
    if name == "pp_permutation":
        return permute_at_preposition(text, rng, spacy_model=spacy_model)
    return given_that_reorder(text, rng, spacy_model=spacy_model)


def _negative(
    name: str, text: str, rng: random.Random, spacy_model: str, similarity: Similarity | None
) -> OperatorResult:
    # Fluent variants: entities are replaced, never deleted; numbers become words, never "".
    if name == "f5":
        return f5_important_phrase_deletion(text, rng, similarity=similarity, spacy_model=spacy_model)
    if name == "f7":
        return f7_entity_replacement(text, rng, config=EntityReplacementConfig(delete_probability=0.0),
                                     spacy_model=spacy_model)
    if name == "f8":
        return f8_number_replacement(text, rng, config=NumberReplacementConfig(
            replacements=tuple(s for s in F8_REPLACEMENTS if s)))
    if name == "f10":
        return f10_unit_replacement(text, rng)
    return number_change(text, rng)


def fluent_hard_negative(
    text: str,
    rng: random.Random,
    *,
    config: FluentNegativeConfig | None = None,
    similarity: Similarity | None = None,
    spacy_model: str = DEFAULT_SPACY_MODEL,
    operator: str = "f9",
) -> OperatorResult:
    """A structural positive, then one negative, each the first that applies in a random order.

    >>> r = fluent_hard_negative("A train covers 300 km in 5 hours.", random.Random(0))
    >>> r.valid, r.meta["positive"] in ("passive", "pp_permutation")
    (False, True)
    """
    config = config or FluentNegativeConfig()
    positives = list(config.positives)
    rng.shuffle(positives)
    reasons = []
    restructured = None
    for name in positives:
        try:
            restructured = _positive(name, text, rng, spacy_model)
            break
        except OperatorNotApplicable as exc:
            reasons.append(f"{name}: {exc.reason}")
    if restructured is None:
        raise OperatorNotApplicable("no structural change applies (" + "; ".join(reasons) + ")", operator=operator)
    negatives = [n for n in config.negatives if n != "f5" or similarity is not None]
    rng.shuffle(negatives)
    for name in negatives:
        try:
            broken = _negative(name, restructured.text, rng, spacy_model, similarity)
        except OperatorNotApplicable as exc:
            reasons.append(f"{name}: {exc.reason}")
            continue
        return make_result(text, broken.text, operator, False, backend="offline-composition",
                           positive=restructured.operator, negative=broken.operator,
                           positive_meta=restructured.meta, negative_meta=broken.meta)
    raise OperatorNotApplicable("no information-destroying edit applies (" + "; ".join(reasons) + ")",
                                operator=operator)
