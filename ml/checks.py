"""What must stay the same when a word problem is reworded: its numbers, its units and its names.

One check, used by every screen and endpoint that shows a pair (labelling, adjudication, the
candidates list, ``POST paraphrase/``), so the browser renders a verdict instead of deriving it:

- **numbers** by exact value, each as often as the original says it: "five" = "5", "$4.50" =
  "4.50 dollars", and a multiplier word after a numeral counts ("2 dozen" = 24).
- **units** by *identity*: "km", "kms" and "kilometres" are one unit, but "km" → "miles", "cm" →
  "m" and "$" → "€" are different units even where the numbers were converted. A compound speed
  counts as its parts ("20 km per hour" = "20 km an hour").
- **names** (people, places, organisations): the same names, or a consistent renaming (the
  guidelines allow "Tom" → "Ravi" everywhere): every name the original loses has a new one in
  the paraphrase, said as often. The tagger finds the names; the texts are searched for how
  often each is said, so a mention the tagger missed on one side does not count as a change.

>>> pair_checks("He walked 2 dozen km.", "He walked 24 kilometres.", names=False)["units"]["ok"]
True
>>> pair_checks("He walked 100 km.", "He walked 100 miles.", names=False)["units"]["only_original"]
['kilometre']
"""
from __future__ import annotations

import re
from collections import Counter
from fractions import Fraction

from .text.nlp import DEFAULT_SPACY_MODEL, named_entities
from .text.number_mentions import find_all_numbers
from .text.number_words import format_number
from .text.units import find_units

__all__ = ["NAME_LABELS", "pair_checks", "quantity_values", "unit_identities"]

# Entity labels that name something a paraphrase must keep (or rename consistently).
NAME_LABELS = ("PERSON", "GPE", "LOC", "ORG", "NORP", "FAC")

# Words after a numeral that multiply it ("2 dozen", "3 hundred", "1.5 million").
_MULTIPLIERS = {"dozen": 12, "dozens": 12, "hundred": 100, "thousand": 1000,
                "million": 10**6, "billion": 10**9, "trillion": 10**12}
_AFTER = re.compile(r"\s+([A-Za-z]+)")


def quantity_values(text: str) -> list[tuple[str, Fraction]]:
    """Every number of ``text`` as (what is written, exact value), with a multiplier word after
    a numeral folded in ("2 dozen" → ("2 dozen", 24)). Ordinals are not quantities."""
    found = []
    for span in find_all_numbers(text):
        written, value = span.text, span.value
        after = _AFTER.match(text, span.end)
        if span.source == "digits" and after and after.group(1).lower() in _MULTIPLIERS:
            written = text[span.start:after.end()]
            value = value * _MULTIPLIERS[after.group(1).lower()]
        found.append((written, value))
    return found


def unit_identities(text: str) -> list[tuple[str, str]]:
    """Every unit mention of ``text`` as (what is written, unit key), a compound speed split into
    its parts (``kilometre_per_hour`` → ``kilometre`` and ``hour``)."""
    found = []
    for mention in find_units(text):
        for part in mention.unit_key.split("_per_"):
            found.append((mention.text, part))
    return found


def _message(title: str, ok: bool, original: list[str], paraphrase: list[str], only_original, only_paraphrase) -> str:
    """One line a person reads: "✓ Units: all 2 kept" or "⚠ Units: kilometre only in the original; …"."""
    if not original and not paraphrase:
        return ""
    if ok and not only_original and not only_paraphrase:
        return f"\u2713 {title}: all {len(original)} kept"
    if ok:  # names renamed consistently
        return f"\u2713 {title}: renamed consistently ({', '.join(only_original)} \u2192 {', '.join(only_paraphrase)})"
    bits = []
    if only_original:
        bits.append(f"{', '.join(only_original)} only in the original")
    if only_paraphrase:
        bits.append(f"{', '.join(only_paraphrase)} only in the paraphrase")
    return f"\u26a0 {title}: " + "; ".join(bits)


def _section(title: str, ok: bool, original: list[str], paraphrase: list[str], only_original, only_paraphrase) -> dict:
    only_original, only_paraphrase = list(only_original), list(only_paraphrase)
    return {"ok": ok, "original": original, "paraphrase": paraphrase, "only_original": only_original,
            "only_paraphrase": only_paraphrase,
            "message": _message(title, ok, original, paraphrase, only_original, only_paraphrase)}


def _numbers(original: str, paraphrase: str) -> dict:
    left, right = quantity_values(original), quantity_values(paraphrase)
    a, b = Counter(v for _, v in left), Counter(v for _, v in right)
    return _section("Numbers", a == b, [w for w, _ in left], [w for w, _ in right],
                    sorted(format_number(v) for v in (a - b).elements()),
                    sorted(format_number(v) for v in (b - a).elements()))


def _units(original: str, paraphrase: str) -> dict:
    left, right = unit_identities(original), unit_identities(paraphrase)
    a, b = {k for _, k in left}, {k for _, k in right}
    return _section("Units", a == b, list(dict.fromkeys(w for w, _ in left)), list(dict.fromkeys(w for w, _ in right)),
                    sorted(k.replace("_", " ") for k in a - b), sorted(k.replace("_", " ") for k in b - a))


def _entity_names(text: str, spans: list[dict] | None, spacy_model: str | None) -> list[str]:
    if spans is not None:
        return [text[s["start"]:s["end"]] for s in spans
                if s.get("kind") == "entity" and s.get("label") in NAME_LABELS]

    try:
        return [e.text for e in named_entities(text, labels=NAME_LABELS, model=spacy_model or DEFAULT_SPACY_MODEL)]
    except (ImportError, OSError):  # no spaCy pipeline installed: no names to compare
        return []


def _mentions(name: str, text: str) -> int:
    return len(re.findall(rf"(?<!\w){re.escape(name)}(?!\w)", text))


def _names(original: str, paraphrase: str, left: list[str], right: list[str]) -> dict:
    # The tagger finds names, the text counts them: a name it missed once ("Maya … Maya") or
    # labelled differently on the other side is still the same name said as often.
    names = list(dict.fromkeys(left + right))
    a = {n: _mentions(n, original) for n in names}
    b = {n: _mentions(n, paraphrase) for n in names}
    lost = [n for n in names if a[n] and not b[n]]
    new = [n for n in names if b[n] and not a[n]]
    # A consistent renaming: each lost name has a new one said as often.
    ok = sorted(a[n] for n in lost) == sorted(b[n] for n in new)
    return _section("Names", ok, [n for n in names if a[n]], [n for n in names if b[n]], sorted(lost), sorted(new))


def pair_checks(original: str, paraphrase: str, *, names: bool = True, original_spans: list[dict] | None = None,
                paraphrase_spans: list[dict] | None = None, spacy_model: str | None = None) -> dict[str, dict]:
    """The numbers, units and names of a pair compared:
    ``{"numbers"|"units"|"names": {"ok", "original", "paraphrase", "only_original", "only_paraphrase"}}``.

    ``original``/``paraphrase`` list what each text says (as written); ``only_*`` what the other
    lacks (numbers as values, units by name); ``message`` is the line a page shows ("" when neither
    text has any). Names come from the highlight spans when given
    (``ml.text.highlight``; no second spaCy run), else from spaCy; ``names=False`` leaves them out.
    """
    result = {"numbers": _numbers(original or "", paraphrase or ""), "units": _units(original or "", paraphrase or "")}
    if names:
        result["names"] = _names(original or "", paraphrase or "",
                                 _entity_names(original or "", original_spans, spacy_model),
                                 _entity_names(paraphrase or "", paraphrase_spans, spacy_model))
    return result
