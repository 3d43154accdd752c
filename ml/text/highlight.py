"""Spans of a word problem worth highlighting for an annotator: numbers, units and named entities.

These are exactly what a paraphrase must keep to stay the same problem (ParaQD's f1-f10 check
them): a changed number, a lost unit or a renamed person is what an annotator looks for first.
The spans come from the existing analyses (:mod:`ml.text.number_mentions`, :mod:`ml.text.units`,
:mod:`ml.text.nlp`), merged into one sorted list without overlaps; numbers win over units and units
over entities where they touch the same characters.

>>> [(text[s["start"]:s["end"]], s["kind"], s["label"])
...  for text in ["Three men paid $1,200 for 20 km."] for s in highlight_spans(text, entities=False)]
[('Three', 'number', 'integer'), ('$', 'unit', 'currency'), ('1,200', 'number', 'integer'), ('20', 'number', 'integer'), ('km', 'unit', 'length')]
"""
from __future__ import annotations

from functools import lru_cache

from .nlp import DEFAULT_SPACY_MODEL, named_entities
from .number_mentions import find_all_numbers
from .units import find_units

__all__ = ["KINDS", "highlight_spans"]

# Kinds in order of precedence: an earlier kind keeps its span when two overlap.
KINDS = ("number", "unit", "entity")

_Span = tuple[int, int, str, str]


def _entity_spans(text: str, model: str) -> list[_Span]:
    try:
        entities = named_entities(text, model=model)
    except (ImportError, OSError):
        # No spaCy or no pipeline installed: numbers and units still get highlighted.
        return []
    return [(e.start, e.end, "entity", e.label) for e in entities]


@lru_cache(maxsize=4096)
def _cached_spans(text: str, entities: bool, model: str) -> tuple[_Span, ...]:
    candidates: list[_Span] = [(n.start, n.end, "number", n.kind) for n in find_all_numbers(text)]
    candidates += [(u.start, u.end, "unit", u.category) for u in find_units(text)]
    if entities:
        candidates += _entity_spans(text, model)
    kept: list[_Span] = []
    for span in sorted(candidates, key=lambda s: (KINDS.index(s[2]), s[0], -(s[1] - s[0]))):
        start, end = span[0], span[1]
        if end <= start:
            continue
        if all(end <= k[0] or start >= k[1] for k in kept):
            kept.append(span)
    return tuple(sorted(kept))


def highlight_spans(text: str, *, entities: bool = True, spacy_model: str = DEFAULT_SPACY_MODEL) -> list[dict]:
    """The highlightable spans of ``text``: ``[{"start", "end", "kind", "label"}]``, sorted by
    position, never overlapping, with ``text[start:end]`` the highlighted characters.

    ``kind`` is ``number`` (``label``: integer, decimal, fraction, mixed, percent), ``unit``
    (``label``: its category, e.g. ``length``, ``currency``) or ``entity`` (``label``: the spaCy
    NER label, e.g. ``PERSON``). ``entities=False`` skips spaCy entirely (fast, for tests and
    bulk use); when the spaCy pipeline ``spacy_model`` is not installed, entities are left out.
    Results are cached per (text, entities, model); each call returns fresh dicts.
    """
    if not text:
        return []
    return [
        {"start": start, "end": end, "kind": kind, "label": label}
        for start, end, kind, label in _cached_spans(text, bool(entities), spacy_model)
    ]
