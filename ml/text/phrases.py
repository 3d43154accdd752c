"""Phrase structure (NP, VP, PP, CC spans) behind one interface, with two backends.

``benepar`` (a constituency parser) runs when its model (``benepar_en3`` by default) is
installed; its model cannot be downloaded here, so otherwise the phrases are derived from
spaCy's dependency parse: noun chunks and noun subtrees are NPs, a preposition with its
subtree is a PP, a verb with its auxiliaries and complements (not its subject) is a VP, a
coordinating conjunction is a CC. The result says which backend ran, for the job log.

>>> from ml.text.nlp import parse
>>> result = phrase_spans(parse("A train covers 300 km in 5 hours."), backend="dependency")
>>> result.backend, [(p.label, p.text) for p in result if p.label == "PP"]
('dependency', [('PP', 'in 5 hours')])
"""
from __future__ import annotations

import importlib.util
import logging
import os
import sys
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Iterator, Literal

if TYPE_CHECKING:
    from spacy.tokens import Doc, Token

__all__ = ["DEFAULT_BENEPAR_MODEL", "Phrase", "PhraseSpans", "benepar_available", "phrase_spans"]

logger = logging.getLogger(__name__)

DEFAULT_BENEPAR_MODEL = "benepar_en3"
PHRASE_LABELS = ("NP", "VP", "PP", "CC")
Backend = Literal["benepar", "dependency"]


@dataclass(frozen=True)
class Phrase:
    """A phrase of a doc: ``label`` (NP, VP, PP, CC, or another constituency label from
    benepar), character offsets ``start``/``end`` into ``doc.text`` and token offsets
    ``token_start``/``token_end`` (end exclusive)."""

    label: str
    start: int
    end: int
    text: str
    token_start: int
    token_end: int


@dataclass(frozen=True)
class PhraseSpans:
    """The phrases of a doc and the backend that found them."""

    backend: Backend
    phrases: tuple[Phrase, ...] = field(default_factory=tuple)

    def __iter__(self) -> Iterator[Phrase]:
        return iter(self.phrases)

    def __len__(self) -> int:
        return len(self.phrases)

    def with_label(self, *labels: str) -> list[Phrase]:
        return [p for p in self.phrases if p.label in labels]


def _nltk_data_dirs() -> list[str]:
    """NLTK's default data search path (as ``nltk.data.path``), computed without importing
    nltk, which takes seconds."""
    dirs = [d for d in os.environ.get("NLTK_DATA", "").split(os.pathsep) if d]
    home = os.path.expanduser("~/nltk_data")
    dirs += [home, os.path.join(sys.prefix, "nltk_data"), os.path.join(sys.prefix, "share", "nltk_data"),
             os.path.join(sys.prefix, "lib", "nltk_data")]
    dirs += ["/usr/share/nltk_data", "/usr/local/share/nltk_data", "/usr/lib/nltk_data", "/usr/local/lib/nltk_data"]
    return dirs


@lru_cache(maxsize=8)
def benepar_available(model: str = DEFAULT_BENEPAR_MODEL) -> bool:
    """Whether benepar and its model are installed (checked once per process, without importing
    benepar, which pulls in torch; never downloads anything)."""
    if importlib.util.find_spec("benepar") is None:
        return False
    if os.path.exists(model):
        return True
    if "/" in model or "." in model:
        return False
    for base in _nltk_data_dirs():
        location = os.path.join(base, "models", model)
        if os.path.isdir(location) or os.path.isfile(location + ".zip"):
            return True
    logger.info("benepar model %s is not installed; phrases come from the dependency parse", model)
    return False


@lru_cache(maxsize=2)
def _benepar_component(model: str):
    from benepar.integrations.spacy_plugin import BeneparComponent

    return BeneparComponent(model, disable_tagger=True)  # keep spaCy's tags


def phrase_spans(
    doc: Doc, *, backend: Literal["auto", "benepar", "dependency"] = "auto", benepar_model: str = DEFAULT_BENEPAR_MODEL
) -> PhraseSpans:
    """NP/VP/PP/CC phrases of a spaCy doc, sorted by position (longer first at equal starts).

    ``backend="auto"`` uses benepar when its model is installed, else the dependency parse;
    ``"benepar"`` raises ``LookupError`` when the model is missing.
    """
    if backend not in ("auto", "benepar", "dependency"):
        raise ValueError(f"unknown phrase backend {backend!r}")
    if backend == "benepar" or (backend == "auto" and benepar_available(benepar_model)):
        phrases = _benepar_phrases(doc, benepar_model)
        used: Backend = "benepar"
    else:
        phrases = _dependency_phrases(doc)
        used = "dependency"
    unique = {(p.label, p.token_start, p.token_end): p for p in phrases}
    ordered = sorted(unique.values(), key=lambda p: (p.token_start, -p.token_end, p.label))
    return PhraseSpans(used, tuple(ordered))


def _phrase(label: str, doc: Doc, token_start: int, token_end: int) -> Phrase:
    span = doc[token_start:token_end]
    return Phrase(label, span.start_char, span.end_char, span.text, token_start, token_end)


def _benepar_phrases(doc: Doc, model: str) -> list[Phrase]:
    component = _benepar_component(model)
    # benepar writes its parse into the doc's extension attributes; work on a copy so cached
    # docs stay as spaCy made them.
    from spacy.tokens import Doc as SpacyDoc

    parsed = component(SpacyDoc.from_docs([doc]))
    phrases = []
    for sent in parsed.sents:
        for constituent in sent._.constituents:
            for label in constituent._.labels:
                phrases.append(_phrase(label, doc, constituent.start, constituent.end))
        phrases += [_phrase("CC", doc, t.i, t.i + 1) for t in sent if t.tag_ == "CC"]
    return phrases


def _trim(doc: Doc, start: int, end: int) -> tuple[int, int]:
    """Drop punctuation at the edges of a token range."""
    while start < end and doc[start].is_punct:
        start += 1
    while end > start and doc[end - 1].is_punct:
        end -= 1
    return start, end


def _subtree_range(token: Token) -> tuple[int, int]:
    return token.left_edge.i, token.right_edge.i + 1


# Dependents inside a noun phrase, never heads of one ("New" in "New York", "20" in "20 kmph").
_NOT_NP_HEADS = {"ROOT", "compound", "nummod", "amod", "det", "poss", "quantmod", "nmod", "case", "predet"}


def _dependency_phrases(doc: Doc) -> list[Phrase]:
    phrases: list[Phrase] = []

    def add(label: str, start: int, end: int) -> None:
        start, end = _trim(doc, start, end)
        if end > start:
            phrases.append(_phrase(label, doc, start, end))

    for chunk in doc.noun_chunks:
        add("NP", chunk.start, chunk.end)
    for token in doc:
        if token.pos_ in ("NOUN", "PROPN", "PRON", "NUM") and token.dep_ not in _NOT_NP_HEADS:
            # The full NP with its modifiers ("a constant speed of 20 kmph"), when it is more
            # than the base chunk and does not swallow a clause.
            start, end = _subtree_range(token)
            if not any(t.pos_ in ("VERB", "AUX") and t.dep_ not in ("amod", "compound") for t in doc[start:end]):
                add("NP", start, end)
        if token.dep_ in ("prep", "agent") or (token.dep_ == "dative" and token.tag_ in ("IN", "TO")):
            if any(child.dep_ in ("pobj", "pcomp") for child in token.children):
                add("PP", *_subtree_range(token))
        if token.pos_ in ("VERB", "AUX") and token.dep_ not in ("aux", "auxpass", "amod"):
            add("VP", *_verb_phrase_range(token))
        if token.dep_ == "cc" or token.tag_ == "CC":
            add("CC", token.i, token.i + 1)
    return phrases


def _verb_phrase_range(verb: Token) -> tuple[int, int]:
    """The verb, its auxiliaries/negation just before it, and everything after it in its
    subtree (objects, complements, PPs), without the subject."""
    start = verb.i
    for child in verb.lefts:
        if child.dep_ in ("aux", "auxpass", "neg") and child.i < verb.i:
            start = min(start, child.i)
    # A subject between an auxiliary and the verb ("did it take") is not part of the VP.
    subject_tokens = {t.i for c in verb.children if c.dep_ in ("nsubj", "nsubjpass", "expl", "csubj")
                      for t in c.subtree}
    if any(start <= i < verb.i for i in subject_tokens):
        start = verb.i
    end = verb.i + 1
    for child in verb.rights:
        if child.dep_ in ("conj", "cc", "punct") and child.i > verb.i:
            if child.dep_ == "punct":
                continue
            break  # a coordinated verb starts its own VP
        end = max(end, child.right_edge.i + 1)
    return start, end
