"""Content words replaced by random vocabulary words: the f7 that the authors' outputs show.

The paper describes f7 as named-entity replacement; the outputs the authors released for AQuA dev
(``paraqd/aqua_val.csv``, column ``neg_3``) replace one to three content words of any kind
("cones" -> "factors", "boundary" -> "1455", "hotel room" -> "steam tipli") with random words of
the corpus vocabulary. This operator does that: ``w = rand(1, min(max_words, k))`` of the ``k``
content words (nouns, proper nouns, verbs, adjectives, adverbs; never numbers or stop words) are
each replaced by a word drawn from ``vocabulary``. That is close to the test operator fc (random
words in place of high-TF-IDF ones), so the registry marks the overlap and the default training
set leaves this operator out; a run that uses it says so.
"""
from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from ..text.nlp import DEFAULT_SPACY_MODEL, parse
from .base import OperatorNotApplicable, OperatorResult, choose_some, edit_text, make_result

__all__ = ["WordReplacementConfig", "vocabulary_of", "word_replacement"]

CONTENT_POS = frozenset({"NOUN", "PROPN", "VERB", "ADJ", "ADV"})


@dataclass(frozen=True)
class WordReplacementConfig:
    """max_words: the 3 of w = rand(1, min(3, k)). pos: the parts of speech that may be replaced."""

    max_words: int = 3
    pos: frozenset[str] = CONTENT_POS

    def __post_init__(self) -> None:
        if self.max_words < 1:
            raise ValueError("max_words must be >= 1")
        if not self.pos:
            raise ValueError("pos must name at least one part of speech")


def vocabulary_of(texts: Sequence[str], *, min_length: int = 3) -> tuple[str, ...]:
    """The distinct lower-case alphabetic words of ``texts`` (at least ``min_length`` letters), sorted.

    >>> vocabulary_of(["A train covers 300 km.", "The train stops."])
    ('covers', 'stops', 'the', 'train')
    """
    words = {w.strip(".,;:?!()\"'").lower() for text in texts for w in text.split()}
    return tuple(sorted(w for w in words if len(w) >= min_length and w.isalpha()))


def word_replacement(
    text: str,
    rng: random.Random,
    *,
    vocabulary: Sequence[str] = (),
    config: WordReplacementConfig | None = None,
    spacy_model: str = DEFAULT_SPACY_MODEL,
) -> OperatorResult:
    """Negative: 1..min(3, k) content words replaced by random words of ``vocabulary``.

    >>> r = word_replacement("John bought 5 red apples.", random.Random(0), vocabulary=("tower", "sings"))
    >>> r.text != "John bought 5 red apples." and "5" in r.text
    True
    """
    config = config or WordReplacementConfig()
    if not vocabulary:
        raise OperatorNotApplicable("no vocabulary to draw replacements from", operator="word_replacement")
    doc = parse(text, spacy_model)
    words = [t for t in doc if t.pos_ in config.pos and t.is_alpha and not t.is_stop and not t.like_num]
    if not words:
        raise OperatorNotApplicable("no content word", operator="word_replacement")
    chosen = choose_some(rng, words, config.max_words, lambda t: t.idx)
    w = len(chosen)
    edits, changes = [], []
    for token in chosen:
        options = [v for v in vocabulary if v != token.lower_]
        if not options:
            continue
        new = rng.choice(options)
        if token.text[:1].isupper():
            new = new[:1].upper() + new[1:]
        edits.append((token.idx, token.idx + len(token.text), new))
        changes.append({"word": token.text, "pos": token.pos_, "replacement": new})
    if not edits:
        raise OperatorNotApplicable("the vocabulary holds no other word", operator="word_replacement")
    return make_result(text, edit_text(text, edits), "word_replacement", False, changes=changes, k=len(words), w=w)
