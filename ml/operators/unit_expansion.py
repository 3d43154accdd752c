"""f4: unit abbreviations written in full (ParaQD 3.2, "UnitExpansion").

>>> f4_unit_expansion("He drove at 20 kmph for 2 hrs.", random.Random(0)).text
'He drove at 20 kilometre per hour for 2 hour.'
>>> f4_unit_expansion("He drove at 20 kmph for 2 hrs.", random.Random(0),
...                   config=UnitExpansionConfig(number_agreement=True)).text
'He drove at 20 kilometres per hour for 2 hours.'
"""
from __future__ import annotations

import random
from dataclasses import dataclass

from ..text.units import expand_abbreviation, find_units
from .base import OperatorNotApplicable, OperatorResult, make_result, replace_spans

__all__ = ["UnitExpansionConfig", "f4_unit_expansion"]


@dataclass(frozen=True)
class UnitExpansionConfig:
    """number_agreement: False writes the singular full form, as the paper's f4 does
    ("100 kilometre", "20 kilometre per hour"); True writes the plural when the number is not 1."""

    number_agreement: bool = False


def f4_unit_expansion(text: str, rng: random.Random, *, config: UnitExpansionConfig | None = None) -> OperatorResult:
    """Positive f4: every abbreviated unit in its full form ("20kmph" -> "20 kilometre per
    hour", "Rs. 500" -> "500 rupee")."""
    config = config or UnitExpansionConfig()
    mentions = [m for m in find_units(text) if m.is_abbreviation]
    if not mentions:
        raise OperatorNotApplicable("no abbreviated unit", operator="f4")
    edits, expanded = [], []
    for m in mentions:
        full = expand_abbreviation(m, plural=None if config.number_agreement else False)
        if m.prefix and m.number is not None:
            # "$20" / "Rs. 500" -> "20 dollar(s)" / "500 rupee(s)": the full word follows the number.
            edits.append((m.start, m.number.end, f"{m.number.text} {full}"))
        else:
            glued = m.start > 0 and not text[m.start - 1].isspace() and m.number is not None
            edits.append((m.start, m.end, (" " if glued else "") + full))
        expanded.append((m.text, full))
    return make_result(text, replace_spans(text, edits), "f4", True, expanded=expanded)
