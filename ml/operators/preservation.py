"""Checks that a structural rewrite kept every number, unit and named entity.

The structure-changing positives (passive voice, preposition permutation, "Given that"
reordering) are labelled valid; a rewrite that lost a quantity would be a wrong label, so they
refuse instead.
"""
from __future__ import annotations

from collections import Counter

from ..text.nlp import DEFAULT_SPACY_MODEL, named_entities
from ..text.number_mentions import number_signature
from ..text.units import unit_signature
from .base import OperatorNotApplicable

__all__ = ["lost_information", "require_preserved"]


def lost_information(original: str, output: str, *, spacy_model: str = DEFAULT_SPACY_MODEL) -> list[str]:
    """What ``output`` lost from ``original``: numbers, units or entities (empty when nothing)."""
    problems = []
    before, after = number_signature(original), number_signature(output)
    if before != after:
        missing = before - after
        extra = after - before
        problems.append(f"numbers changed (missing {sorted(map(str, missing.elements()))}, "
                        f"added {sorted(map(str, extra.elements()))})")
    if Counter(unit_signature(original)) != Counter(unit_signature(output)):
        problems.append(f"units changed ({unit_signature(original)} -> {unit_signature(output)})")
    lowered = output.lower()
    wanted = Counter(e.text.lower() for e in named_entities(original, model=spacy_model))
    for entity, count in wanted.items():
        if lowered.count(entity) < count:
            problems.append(f"entity {entity!r} lost")
    return problems


def require_preserved(original: str, output: str, *, operator: str, spacy_model: str = DEFAULT_SPACY_MODEL) -> None:
    """Raise ``OperatorNotApplicable`` when ``output`` lost a number, unit or entity."""
    problems = lost_information(original, output, spacy_model=spacy_model)
    if problems:
        raise OperatorNotApplicable("the rewrite would lose information: " + "; ".join(problems), operator=operator)
