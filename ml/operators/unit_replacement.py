"""f10: a unit replaced by another unit of the same category (ParaQD 3.3): hours become
minutes, grams become kilograms; never across categories.
"""
from __future__ import annotations

import random
import re
from dataclasses import dataclass

from ..text.units import UNITS, UnitMention, find_units, render_unit, same_category_units
from .base import OperatorNotApplicable, OperatorResult, choose_some, make_result, replace_spans

__all__ = ["UnitReplacementConfig", "f10_unit_replacement"]


@dataclass(frozen=True)
class UnitReplacementConfig:
    """max_units: at most this many unit mentions are replaced (at least one)."""

    max_units: int = 2

    def __post_init__(self) -> None:
        if self.max_units < 1:
            raise ValueError("max_units must be >= 1")


_QUANTITY_CUES = {"many", "much", "per", "in", "/"}
_PREVIOUS_WORD = re.compile(r"([A-Za-z]+|/)\s*$")


def _measures(text: str, mention: UnitMention) -> bool:
    """Whether the unit measures something: next to a number, abbreviated, or asked for
    ("how many hours", "speed in km/h"). "The first day" and "the next day" are not measures."""
    if mention.number is not None or mention.is_abbreviation:
        return True
    previous = _PREVIOUS_WORD.search(text, 0, mention.start)
    return bool(previous) and previous.group(1).lower() in _QUANTITY_CUES


def _render(mention: UnitMention, new_key: str) -> tuple[int, int, str]:
    """The edit that writes ``new_key`` where ``mention`` was, in the same style."""
    new = UNITS[new_key]
    if mention.prefix and mention.number is not None:
        if new.prefix_symbols:
            return mention.start, mention.end, new.prefix_symbols[0]
        # "$20" -> "20 rupees": a unit without a symbol follows its number.
        return mention.start, mention.number.end, f"{mention.number.text} {new.full(mention.plural)}"
    if mention.is_abbreviation:
        surface = render_unit(new_key, plural=mention.plural, abbreviated=True, standalone=mention.number is None)
    else:
        plural = mention.written_plural if mention.written_plural is not None else mention.plural
        surface = new.full(plural)
        if mention.text[:1].isupper():
            surface = surface[:1].upper() + surface[1:]
    if surface in new.prefix_symbols or not surface[:1].isalpha():
        surface = new.full(mention.plural)
    glued = mention.number is not None and mention.number.end == mention.start
    if glued and not surface.replace(" ", "").isalpha():
        glued = False
    if glued and " " in surface:
        surface = " " + surface
    return mention.start, mention.end, surface


def f10_unit_replacement(
    text: str, rng: random.Random, *, config: UnitReplacementConfig | None = None
) -> OperatorResult:
    """Negative f10.

    >>> r = f10_unit_replacement("It takes 5 hours.", random.Random(0))
    >>> r.meta["changes"][0]["category"]
    'time'
    """
    config = config or UnitReplacementConfig()
    mentions = [m for m in find_units(text) if same_category_units(m.unit_key)]
    if not mentions:
        raise OperatorNotApplicable("no unit", operator="f10")
    mentions = [m for m in mentions if _measures(text, m)]
    if not mentions:
        raise OperatorNotApplicable("no unit attached to a quantity", operator="f10")
    chosen = choose_some(rng, mentions, config.max_units, lambda m: m.start)
    edits, changes = [], []
    for m in chosen:
        new_key = rng.choice(same_category_units(m.unit_key))
        start, end, surface = _render(m, new_key)
        edits.append((start, end, surface))
        changes.append({"unit": m.text, "unit_key": m.unit_key, "replacement": surface.strip(),
                        "replacement_key": new_key, "category": m.category})
    return make_result(text, replace_spans(text, edits), "f10", False, changes=changes)
