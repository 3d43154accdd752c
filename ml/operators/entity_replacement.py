"""f7: named-entity replacement or deletion (ParaQD 3.3).

``w = rand(1, min(3, k))`` of the ``k`` entity mentions are each replaced by a different entity
of the same category (from :data:`ENTITY_REPLACEMENTS`) or deleted. Mentions are taken one by
one, so "John ... John" may become "Sarah ... John": an inconsistent problem, a harder negative.
"""
from __future__ import annotations

import random
import re
from dataclasses import dataclass

from ..text.nlp import DEFAULT_SPACY_MODEL, ENTITY_LABELS, named_entities
from .base import OperatorNotApplicable, OperatorResult, choose_some, edit_text, make_result
from .replacement_lists import ENTITY_REPLACEMENTS

__all__ = ["EntityReplacementConfig", "f7_entity_replacement"]

_ARTICLE_BEFORE = re.compile(r"\b(?:the|a|an)\s*$", re.IGNORECASE)
_SENTENCE_END = re.compile(r"[.?!]\s*$")


@dataclass(frozen=True)
class EntityReplacementConfig:
    """labels: entity categories to touch. max_entities: the 3 of w = rand(1, min(3, k)).
    delete_probability: chance that a chosen entity is deleted rather than replaced.
    replacements: label -> candidate replacements (labels without a list are deleted)."""

    labels: tuple[str, ...] = ENTITY_LABELS
    max_entities: int = 3
    delete_probability: float = 0.5
    replacements: dict[str, tuple[str, ...]] | None = None

    def __post_init__(self) -> None:
        if self.max_entities < 1:
            raise ValueError("max_entities must be >= 1")
        if not 0 <= self.delete_probability <= 1:
            raise ValueError("delete_probability must be in [0, 1]")

    def candidates(self, label: str) -> tuple[str, ...]:
        return (self.replacements if self.replacements is not None else ENTITY_REPLACEMENTS).get(label, ())


def f7_entity_replacement(
    text: str,
    rng: random.Random,
    *,
    config: EntityReplacementConfig | None = None,
    spacy_model: str = DEFAULT_SPACY_MODEL,
) -> OperatorResult:
    """Negative f7.

    >>> r = f7_entity_replacement("Alex drove from Boston.", random.Random(1))
    >>> 1 <= len(r.meta["changes"]) <= 2
    True
    """
    config = config or EntityReplacementConfig()
    entities = named_entities(text, labels=config.labels, model=spacy_model)
    if not entities:
        raise OperatorNotApplicable("no named entity", operator="f7")
    chosen = choose_some(rng, entities, config.max_entities, lambda e: e.start)
    w = len(chosen)
    replacements, deletions, changes = [], [], []
    for entity in chosen:
        options = [c for c in config.candidates(entity.label) if c.lower() != entity.text.lower()]
        if not options or rng.random() < config.delete_probability:
            deletions.append((entity.start, entity.end))
            changes.append({"entity": entity.text, "label": entity.label, "action": "delete", "replacement": ""})
            continue
        new = rng.choice(options)
        # "the Nile" after "the": keep one article.
        if new.lower().startswith(("the ", "a ")) and _ARTICLE_BEFORE.search(text, 0, entity.start):
            new = new.split(" ", 1)[1]
        if new[:1].islower() and (entity.start == 0 or _SENTENCE_END.search(text, 0, entity.start)):
            new = new[:1].upper() + new[1:]
        replacements.append((entity.start, entity.end, new))
        changes.append({"entity": entity.text, "label": entity.label, "action": "replace", "replacement": new})
    out = edit_text(text, replacements + [(start, end, "") for start, end in deletions])
    return make_result(text, out, "f7", False, changes=changes, k=len(entities), w=w)
