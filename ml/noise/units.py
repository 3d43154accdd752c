"""A word problem as a list of noise units: spaCy tokens, except that a quantity (a number with
its unit or currency sign, "$4.50", "5 miles", "20%") is one protected unit that moves as a whole
and is never templated, deleted or substituted. A unit word without a number ("the miles") is
protected too. Parses are cached per text.

>>> [u.text for u in parse_units("He drove 5 miles.") if u.protected]
['5 miles']
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache

from ..nlp import DEFAULT_SPACY_MODEL, parse

__all__ = ["OBJECT_DEPS", "PROTECTED_POS", "Unit", "detokenize", "parse_units", "sentences_of"]

# Tokens with these tags are never templated or deleted (App. A.1.1).
PROTECTED_POS = frozenset({"VERB", "ADJ", "ADV", "AUX"})
OBJECT_DEPS = frozenset({"dobj", "obj", "pobj", "iobj", "dative", "attr", "oprd"})


@dataclass(frozen=True)
class Unit:
    """One noise unit: ``text`` and the whitespace after it, its universal POS (``NUM`` for a
    quantity), lemma, dependency label, sentence index, whether it is protected (a number or unit),
    a dependency object, and whether it is a template placeholder (``NOUN1``)."""

    text: str
    ws: str
    pos: str
    lemma: str
    dep: str
    sent: int
    protected: bool = False
    is_object: bool = False
    template: bool = False
    index: int = 0  # position in the original parse
    token_start: int = 0  # the spaCy tokens it covers (end exclusive)
    token_end: int = 0

    def with_text(self, text: str, **changes) -> "Unit":
        return replace(self, text=text, **changes)


def _quantity_spans(text: str) -> list[tuple[int, int]]:
    """Character spans that must stay whole: numbers merged with the unit or sign next to them,
    and unit words on their own."""
    from ..number_mentions import find_all_numbers
    from ..units import find_units

    spans = [(n.start, n.end) for n in find_all_numbers(text)]
    for unit in find_units(text):
        if unit.number is not None:
            spans.append((min(unit.start, unit.number.start), max(unit.end, unit.number.end)))
        else:
            spans.append((unit.start, unit.end))
    spans.sort()
    merged: list[list[int]] = []
    for start, end in spans:
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return [(s, e) for s, e in merged]


@lru_cache(maxsize=4096)
def parse_units(text: str, spacy_model: str = DEFAULT_SPACY_MODEL) -> tuple[Unit, ...]:
    doc = parse(text, spacy_model)
    spans = _quantity_spans(text)
    sentence_of = {}
    for number, sent in enumerate(doc.sents):
        for token in sent:
            sentence_of[token.i] = number
    units: list[Unit] = []
    i = 0
    tokens = list(doc)
    while i < len(tokens):
        token = tokens[i]
        span = next(((s, e) for s, e in spans if s <= token.idx < e), None)
        if span is not None:
            j = i
            while j + 1 < len(tokens) and tokens[j + 1].idx < span[1]:
                j += 1
            start, end = tokens[i].idx, tokens[j].idx + len(tokens[j].text)
            units.append(Unit(text[start:end], tokens[j].whitespace_, "NUM", text[start:end].lower(),
                              tokens[j].dep_, sentence_of[token.i], protected=True,
                              is_object=any(t.dep_ in OBJECT_DEPS for t in tokens[i:j + 1]), index=len(units),
                              token_start=i, token_end=j + 1))
            i = j + 1
            continue
        units.append(Unit(token.text, token.whitespace_, token.pos_, token.lemma_.lower(), token.dep_,
                          sentence_of[token.i], protected=token.like_num, is_object=token.dep_ in OBJECT_DEPS,
                          index=len(units), token_start=i, token_end=i + 1))
        i += 1
    return tuple(units)


def sentences_of(units: list[Unit]) -> list[list[Unit]]:
    out: list[list[Unit]] = []
    for unit in units:
        if not out or out[-1][0].sent != unit.sent:
            out.append([])
        out[-1].append(unit)
    return out


def detokenize(units: list[Unit]) -> str:
    """The text of ``units``: each unit followed by its own whitespace, except that a unit moved
    to the end of a sentence or the text gets none, and one moved before another word gets one."""
    parts = []
    for position, unit in enumerate(units):
        parts.append(unit.text)
        if position + 1 < len(units):
            following = units[position + 1]
            ws = unit.ws
            if not ws and following.pos != "PUNCT" and not _glued(unit, following) and (
                    unit.pos != "PUNCT" or unit.text in ".?!,;:"):
                ws = " "
            if following.pos == "PUNCT" and following.text in ".,;:?!)'" and unit.pos != "PUNCT":
                ws = ""
            parts.append(ws)
    return " ".join("".join(parts).split())


def _glued(unit: Unit, following: Unit) -> bool:
    # keep contractions and possessives attached ("he's", "Tom's")
    return following.text.startswith("'") or following.text.lower() in ("n't", "'s", "'re", "'ll", "'d", "'ve", "'m")
