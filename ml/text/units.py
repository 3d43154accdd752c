"""A finder for the units that occur in word problems in text (the lexicon, re-exported here, is
:mod:`ml.text.unit_lexicon`).

Each unit has a canonical full form (singular and plural), other spellings, and abbreviations.
Abbreviations that are also ordinary words or letters ("in", "m", "s", "min") count only next to
a number (or after "per" / "/"), so "5 in long" is an inch and "5 in the box" is not.

>>> [(u.text, u.unit_key, u.is_abbreviation) for u in find_units("A car at 20kmph covers 750m in 2 hrs.")]
[('kmph', 'kilometre_per_hour', True), ('m', 'metre', True), ('hrs', 'hour', True)]
>>> expand_abbreviation(find_units("20 kmph")[0])
'kilometres per hour'
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from .number_mentions import NumberSpan, find_all_numbers
from .unit_lexicon import (  # noqa: F401  (the lexicon's names stay importable here)
    AREA,
    CATEGORIES,
    CURRENCY,
    LENGTH,
    NEEDS_NUMBER,
    SPEED,
    TEMPERATURE,
    TIME,
    UNITS,
    VOLUME,
    WEIGHT,
    Unit,
    render_unit,
    same_category_units,
)

__all__ = [
    "CATEGORIES",
    "UNITS",
    "Unit",
    "UnitMention",
    "expand_abbreviation",
    "find_units",
    "render_unit",
    "same_category_units",
    "unit_signature",
]

# Full words that are also ordinary words. "second" is a unit only with a number or after
# "per" ("the second train"); the others also after a singular cue ("a foot", not "on foot").
_FULL_NEEDS_NUMBER = {"second"}
_FULL_NEEDS_CUE = {"foot", "yard", "minute", "pound", "kilo"}
# Abbreviations whose other cases are other words ("In", "Ms", "RE").
_NO_CASE_VARIANTS = {"in", "ms", "mi", "Re", "min", "sec"}
# Words after "in" that make it a length ("5 in long"), not a preposition ("5 in the box").
_INCH_FOLLOWERS = {"long", "wide", "high", "tall", "deep", "thick", "by", "x", "\u00d7", "across", "in"}
_SINGULAR_CUES = {"a", "an", "one", "per", "each", "every", "/"}


@dataclass(frozen=True)
class _Form:
    surface: str
    unit_key: str
    is_abbreviation: bool
    plural: bool | None  # grammatical number of a full form; None for abbreviations
    case_sensitive: bool
    needs_number: bool
    needs_cue: bool = False  # a number or a singular cue ("a foot")
    prefix_capable: bool = False  # may stand before its number ("$20", "Rs 500")


def _forms() -> list[_Form]:
    forms: dict[tuple[str, bool], _Form] = {}

    def add(surface, key, is_abbr, plural, cs, needs, prefix=False):
        ident = (surface if cs else surface.lower(), cs)
        forms.setdefault(ident, _Form(surface, key, is_abbr, plural, cs, needs,
                                      needs_cue=surface.lower() in _FULL_NEEDS_CUE and not is_abbr,
                                      prefix_capable=prefix))

    for unit in UNITS.values():
        add(unit.singular, unit.key, False, False, False, unit.singular in _FULL_NEEDS_NUMBER)
        add(unit.plural, unit.key, False, True, False, False)
        for v in unit.variants:
            plural = v.split()[0].endswith("s") if " per " in v or " an " in v else v.endswith("s")
            add(v, unit.key, False, plural, False, v in _FULL_NEEDS_NUMBER)
        for a in unit.abbreviations:
            compact = a.replace(" ", "").replace(".", "")
            needs = a in NEEDS_NUMBER or compact in NEEDS_NUMBER
            prefix = a in unit.prefix_symbols
            add(a, unit.key, True, None, True, needs, prefix)
            # "KM", "Km", "KMPH": letter-only abbreviations of 2+ letters in any case. Single
            # letters stay exact ("m" is a metre, "M" is not).
            letters = a[:-1] if a.endswith(".") else a
            if len(letters) >= 2 and letters.isalpha() and a not in _NO_CASE_VARIANTS:
                for variant in sorted({a.lower(), a.upper(), a.capitalize()} - {a}):
                    add(variant, unit.key, True, None, True, needs or variant.lower() in NEEDS_NUMBER, prefix)
    return list(forms.values())


_FORMS = _forms()
_CS_INDEX = {f.surface: f for f in _FORMS if f.case_sensitive}
_CI_INDEX = {f.surface.lower(): f for f in _FORMS if not f.case_sensitive}


_SURFACE_LENGTHS = sorted({len(f.surface) for f in _FORMS}, reverse=True)
# Units that do not start with a letter ("$", "°C") can start anywhere; the others only at the
# start of a letter run ("20kmph" yes, "xkm" no).
_SYMBOL_STARTS = {f.surface[0] for f in _FORMS if not f.surface[0].isalpha()}


def _candidate_forms(text: str, pos: int):
    """Forms whose surface is written at ``pos``, longest first, respecting word boundaries."""
    n = len(text)
    for length in _SURFACE_LENGTHS:
        end = pos + length
        if end > n:
            continue
        chunk = text[pos:end]
        form = _CS_INDEX.get(chunk) or _CI_INDEX.get(chunk.lower())
        if form is None:
            continue
        if end < n and ((chunk[-1].isalpha() and text[end].isalpha()) or (chunk[-1].isdigit() and text[end].isdigit())):
            continue
        yield form, end


@dataclass(frozen=True)
class UnitMention:
    """A unit in a text: ``text == source[start:end]``.

    ``number`` is the adjacent number, if any (before the unit, or after it for a prefix symbol
    such as "$20"); ``plural`` is the grammatical number the context asks for (number != 1, or
    no number and no singular cue like "per"/"a").
    """

    start: int
    end: int
    text: str
    unit_key: str
    category: str
    is_abbreviation: bool
    prefix: bool = False
    number: NumberSpan | None = None
    plural: bool = True
    written_plural: bool | None = field(default=None, compare=False)


_GAP_BEFORE = re.compile(r"[ \t\u00a0]{0,2}-?[ \t\u00a0]{0,1}$")
_GAP_AFTER = re.compile(r"^[ \t\u00a0]{0,2}")
_PREV_WORD = re.compile(r"([A-Za-z]+|/)\s*$")
_NEXT_WORD = re.compile(r"^\s*([^\s]+)")


def _number_before(text: str, start: int, by_end: dict[int, NumberSpan]) -> NumberSpan | None:
    gap = _GAP_BEFORE.search(text, max(0, start - 4), start)
    return by_end.get(gap.start()) if gap else None


def _number_after(text: str, end: int, by_start: dict[int, NumberSpan]) -> NumberSpan | None:
    gap = _GAP_AFTER.match(text[end:end + 3])
    return by_start.get(end + gap.end())


def _accept(form: _Form, text: str, start: int, end: int, before: NumberSpan | None, after: NumberSpan | None) -> bool:
    prev = _PREV_WORD.search(text, max(0, start - 20), start)
    prev_word = prev.group(1).lower() if prev else ""
    if form.unit_key == "cent" and prev_word == "per":
        return False  # "20 per cent" is a percentage
    if form.surface == "in":
        if before is None:
            return False
        if before.end == start:  # glued: "5in"
            return True
        nxt = _NEXT_WORD.match(text[end:end + 20])
        return nxt is None or not nxt.group(1)[0].isalnum() or nxt.group(1).lower().rstrip(".,;:?!") in _INCH_FOLLOWERS
    if form.needs_number:
        return before is not None or (form.prefix_capable and after is not None) or prev_word in ("per", "/")
    if form.needs_cue:
        return before is not None or prev_word in _SINGULAR_CUES
    return True


def _plural_from_context(text: str, start: int, number: NumberSpan | None) -> bool:
    if number is not None:
        return number.value != 1
    prev = _PREV_WORD.search(text, max(0, start - 20), start)
    return not (prev and prev.group(1).lower() in _SINGULAR_CUES)


def find_units(text: str) -> list[UnitMention]:
    """All unit mentions of ``text``, left to right, longest surface first.

    >>> [(u.text, u.category, u.prefix) for u in find_units("Rs. 500 for 3 kg; 5 in long, 5 in the box")]
    [('Rs.', 'currency', True), ('kg', 'weight', False), ('in', 'length', False)]
    """
    numbers = find_all_numbers(text)
    by_end = {n.end: n for n in numbers}
    by_start = {n.start: n for n in numbers}
    mentions: list[UnitMention] = []
    pos, n = 0, len(text)
    while pos < n:
        ch = text[pos]
        if not ((ch.isalpha() and (pos == 0 or not text[pos - 1].isalpha())) or ch in _SYMBOL_STARTS):
            pos += 1
            continue
        found = None
        # The longest surface here may be rejected ("in" with no number); shorter ones get their chance.
        for form, end in _candidate_forms(text, pos):
            before = _number_before(text, pos, by_end)
            after = _number_after(text, end, by_start)
            if _accept(form, text, pos, end, before, after):
                found = (form, end, before, after)
                break
        if found is None:
            pos += 1
            continue
        form, end, before, after = found
        unit = UNITS[form.unit_key]
        # "Rs 500" and "$20" put the symbol first; "500 Rs" does not. A symbol sign ($) is a
        # prefix whenever a number follows it.
        prefix = form.prefix_capable and after is not None and (before is None or not form.surface[0].isalpha())
        number = after if prefix else before
        mentions.append(UnitMention(
            start=pos, end=end, text=text[pos:end], unit_key=unit.key, category=unit.category,
            is_abbreviation=form.is_abbreviation, prefix=prefix, number=number,
            plural=_plural_from_context(text, pos, number), written_plural=form.plural,
        ))
        pos = end
    return mentions


def expand_abbreviation(mention: UnitMention, *, plural: bool | None = None) -> str:
    """The canonical full form of a mentioned unit, plural when its number is not 1 (or as
    ``plural`` says).

    >>> expand_abbreviation(find_units("1 km")[0]), expand_abbreviation(find_units("2.5 hrs")[0])
    ('kilometre', 'hours')
    """
    unit = UNITS[mention.unit_key]
    return unit.full(mention.plural if plural is None else plural)


def unit_signature(text: str) -> dict[str, int]:
    """How many times each unit (by key) occurs in ``text``; the same for texts that name the
    same units, abbreviated or not."""
    counts: dict[str, int] = {}
    for m in find_units(text):
        counts[m.unit_key] = counts.get(m.unit_key, 0) + 1
    return counts
