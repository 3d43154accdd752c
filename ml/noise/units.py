"""A word problem as a list of noise units: spaCy tokens, except that a quantity (a number with
its unit or currency sign, "$4.50", "5 miles", "20 %") is one protected unit that moves as a whole
and is never templated, deleted or substituted. Number words ("five", "a dozen", ordinals), unit
words without a number ("the miles") and multiplicative words ("twice", "double") are protected
too. Parses are cached per text.

>>> [u.text for u in parse_units("He drove 5 miles.") if u.protected]
['5 miles']
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import lru_cache

from ..text.nlp import DEFAULT_SPACY_MODEL, parse
from ..text.number_mentions import find_all_numbers
from ..text.units import find_units

__all__ = [
    "OBJECT_DEPS", "PROTECTED_POS", "QUANTITY_WORDS", "Unit", "detokenize", "is_quantity_word", "parse_units",
    "sentences_of",
]

# Tokens with these tags are never templated or deleted (App. A.1.1); AUX too, because the small
# tagger often tags a main verb ("has", "is") as AUX.
PROTECTED_POS = frozenset({"VERB", "ADJ", "ADV", "AUX"})
# Dependency labels of object nodes, which inference templatization/substitution prefer.
OBJECT_DEPS = frozenset({"dobj", "obj", "pobj", "iobj", "dative", "attr", "oprd"})
# Words that state a quantity without digits or a number word the number finder knows.
QUANTITY_WORDS = frozenset({
    "once", "twice", "thrice", "double", "doubled", "triple", "tripled", "quadruple", "half", "halves", "quarter",
    "quarters", "dozen", "dozens", "pair", "pairs", "couple", "percent",
})
# Pronoun forms that share one template (the paper's co-reference tracker: "He" and "his" are
# one entity, one ``PRON1``).
_PRONOUN_GROUPS = {
    form: group
    for group, forms in {
        "i": "i me my mine myself", "we": "we us our ours ourselves", "you": "you your yours yourself yourselves",
        "he": "he him his himself", "she": "she her hers herself", "it": "it its itself",
        "they": "they them their theirs themselves",
    }.items()
    for form in forms.split()
}


@dataclass(frozen=True)
class Unit:
    """One noise unit: ``text``, the ``whitespace`` after it, its universal POS (``upos``;
    ``NUM`` for a quantity), lemma, dependency label, ``sentence`` index, the POS of its syntactic head, whether it starts its
    sentence, is ``protected`` (a number, unit or quantity word), is a dependency object, its
    template ``key`` (mentions with the same upos and key share a template) and whether it is a
    template placeholder already (``NOUN1``). ``index`` is its position in the original parse
    (-1 for inserted words) and ``token_start``/``token_end`` the spaCy tokens it covers;
    ``source`` is the text it was parsed from."""

    text: str
    whitespace: str
    upos: str
    lemma: str
    dep: str
    sentence: int
    head_upos: str = ""
    protected: bool = False
    is_object: bool = False
    key: str = ""
    template: bool = False
    sentence_start: bool = False
    index: int = -1
    token_start: int = 0
    token_end: int = 0
    source: str = field(default="", repr=False, compare=False)

    def with_text(self, text: str, **changes) -> "Unit":
        return replace(self, text=text, **changes)

    @property
    def locked(self) -> bool:
        """Never templated or deleted: a quantity, VERB/ADJ/ADV/AUX, a negation or a template."""
        return self.protected or self.template or self.upos in PROTECTED_POS or self.dep == "neg"


def is_quantity_word(word: str) -> bool:
    """Whether ``word`` (one or more words) states a number or a unit: inserted and substituted
    words must not add quantities to a problem."""
    lowered = word.lower()
    if any(ch.isdigit() for ch in lowered) or any(w in QUANTITY_WORDS for w in lowered.replace("-", " ").split()):
        return True
    return bool(find_all_numbers(lowered, ordinals=True) or find_units(lowered))


def _quantity_spans(text: str) -> list[tuple[int, int]]:
    """Character spans that must stay whole: numbers (digits, words, ordinals) merged with the
    unit or sign next to them, and unit words on their own."""
    spans = [(n.start, n.end) for n in find_all_numbers(text, ordinals=True)]
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


def _key(upos: str, text: str, lemma: str) -> str:
    lowered = text.lower()
    if upos == "PRON" and lowered in _PRONOUN_GROUPS:
        return _PRONOUN_GROUPS[lowered]
    return lemma or lowered


@lru_cache(maxsize=4096)
def parse_units(text: str, spacy_model: str = DEFAULT_SPACY_MODEL) -> tuple[Unit, ...]:
    """The noise units of ``text`` (one spaCy parse, cached by text and model)."""
    doc = parse(text, spacy_model)
    spans = _quantity_spans(text)
    sentence_of: dict[int, int] = {}
    for number, sent in enumerate(doc.sents):
        for token in sent:
            sentence_of[token.i] = number
    units: list[Unit] = []
    tokens = list(doc)
    span_index = 0
    i = 0
    while i < len(tokens):
        token = tokens[i]
        while span_index < len(spans) and spans[span_index][1] <= token.idx:
            span_index += 1
        sentence = sentence_of[token.i]
        first = not units or units[-1].sentence != sentence
        span = spans[span_index] if span_index < len(spans) and spans[span_index][0] <= token.idx else None
        if span is not None:
            j = i
            while j + 1 < len(tokens) and tokens[j + 1].idx < span[1]:
                j += 1
            start, end = tokens[i].idx, tokens[j].idx + len(tokens[j].text)
            surface = text[start:end]
            units.append(Unit(surface, tokens[j].whitespace_, "NUM", surface.lower(), tokens[j].dep_, sentence,
                              head_upos=tokens[j].head.pos_, protected=True, is_object=any(t.dep_ in OBJECT_DEPS for t in tokens[i:j + 1]),
                              key=surface.lower(), sentence_start=first, index=len(units), token_start=i,
                              token_end=j + 1, source=text))
            i = j + 1
            continue
        lemma = token.lemma_.lower()
        protected = token.like_num or token.lower_ in QUANTITY_WORDS
        units.append(Unit(token.text, token.whitespace_, token.pos_, lemma, token.dep_, sentence,
                          head_upos=token.head.pos_, protected=protected, is_object=token.dep_ in OBJECT_DEPS,
                          key=_key(token.pos_, token.text, lemma), sentence_start=first, index=len(units),
                          token_start=i, token_end=i + 1, source=text))
        i += 1
    return tuple(units)


def sentences_of(units: list[Unit]) -> list[list[Unit]]:
    """Consecutive runs of units with the same sentence index."""
    out: list[list[Unit]] = []
    for unit in units:
        if not out or out[-1][0].sentence != unit.sentence:
            out.append([])
        out[-1].append(unit)
    return out


_CLOSING = frozenset(".,;:?!)'\"%")


def detokenize(units: list[Unit]) -> str:
    """The text of ``units``: each unit followed by its own whitespace, except that closing
    punctuation attaches to the word before it and a word moved next to another is spaced."""
    parts = []
    for position, unit in enumerate(units):
        parts.append(unit.text)
        if position + 1 < len(units):
            following = units[position + 1]
            ws = unit.whitespace
            if not ws and following.upos != "PUNCT" and not _glued(unit, following) and (
                    unit.upos != "PUNCT" or unit.text in ".?!,;:"):
                ws = " "
            if following.upos == "PUNCT" and following.text in _CLOSING and unit.upos != "PUNCT":
                ws = ""
            parts.append(ws)
    return " ".join("".join(parts).split())


def _glued(unit: Unit, following: Unit) -> bool:
    # contractions and possessives stay attached ("he's", "Tom's", "don't")
    return following.text.startswith("'") or following.text.lower() in ("n't", "'s", "'re", "'ll", "'d", "'ve", "'m")
