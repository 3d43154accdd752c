"""f5: most-important-phrase deletion (ParaQD 3.3).

The phrase whose deletion lowers the cosine similarity to the original most is deleted:
``p_imp = argmin_p cossim(Q, Q \\ p)``. The similarity is a callable
``similarity(anchor, candidates) -> list[float]`` (all candidates scored in one batch); by
default a sentence-transformers encoder (:class:`ml.similarity.SentenceSimilarity`).
"""
from __future__ import annotations

import random
from dataclasses import dataclass

from ..similarity import SentenceSimilarity
from ..text.nlp import DEFAULT_SPACY_MODEL, parse
from ..text.phrases import DEFAULT_BENEPAR_MODEL, phrase_spans
from .base import OperatorNotApplicable, OperatorResult, Similarity, delete_spans, make_result

__all__ = ["PhraseDeletionConfig", "f5_important_phrase_deletion", "phrase_deletion_candidates"]


@dataclass(frozen=True)
class PhraseDeletionConfig:
    """labels: phrase types that may be deleted.
    max_tokens: longest phrase considered (longer ones are close to deleting a sentence, f6's job).
    max_fraction: a phrase may cover at most this share of the text's words.
    """

    labels: tuple[str, ...] = ("NP", "VP", "PP")
    max_tokens: int = 8
    max_fraction: float = 0.5

    def __post_init__(self) -> None:
        if not self.labels:
            raise ValueError("labels must name at least one phrase type")
        if self.max_tokens < 1:
            raise ValueError("max_tokens must be >= 1")
        if not 0 < self.max_fraction <= 1:
            raise ValueError("max_fraction must be in (0, 1]")


def phrase_deletion_candidates(
    text: str,
    *,
    config: PhraseDeletionConfig | None = None,
    spacy_model: str = DEFAULT_SPACY_MODEL,
    phrase_backend: str = "auto",
    benepar_model: str = DEFAULT_BENEPAR_MODEL,
) -> tuple[list[tuple[str, str, str]], str]:
    """``([(phrase_label, phrase_text, text_without_phrase), ...], backend)``, one entry per
    distinct output."""
    config = config or PhraseDeletionConfig()
    doc = parse(text, spacy_model)
    spans = phrase_spans(doc, backend=phrase_backend, benepar_model=benepar_model)
    n_words = sum(1 for t in doc if not t.is_punct and not t.is_space)
    seen: dict[str, tuple[str, str, str]] = {}
    for phrase in spans.with_label(*config.labels):
        size = phrase.token_end - phrase.token_start
        if size > config.max_tokens or size > config.max_fraction * n_words:
            continue
        deleted = delete_spans(text, [(phrase.start, phrase.end)])
        if deleted and deleted != text and deleted not in seen:
            seen[deleted] = (phrase.label, phrase.text, deleted)
    return list(seen.values()), spans.backend


def f5_important_phrase_deletion(
    text: str,
    rng: random.Random,
    *,
    similarity: Similarity | None = None,
    config: PhraseDeletionConfig | None = None,
    spacy_model: str = DEFAULT_SPACY_MODEL,
    phrase_backend: str = "auto",
) -> OperatorResult:
    """Negative f5: delete the phrase whose removal makes the text least similar to itself.

    >>> fake = lambda anchor, cands: [0.1 if "hours" not in c else 0.9 for c in cands]
    >>> f5_important_phrase_deletion("It takes 5 hours in total.", random.Random(0), similarity=fake).text
    'It takes in total.'
    """
    candidates, backend = phrase_deletion_candidates(
        text, config=config, spacy_model=spacy_model, phrase_backend=phrase_backend)
    if not candidates:
        raise OperatorNotApplicable("no phrase that can be deleted", operator="f5")
    if similarity is None:
        similarity = SentenceSimilarity()
    scores = similarity(text, [c[2] for c in candidates])
    if len(scores) != len(candidates):
        raise ValueError("the similarity function must return one score per candidate")
    best = min(range(len(candidates)), key=lambda i: (scores[i], i))  # ties: the earliest phrase
    label, phrase, output = candidates[best]
    return make_result(text, output, "f5", False, phrase=phrase, label=label, similarity=float(scores[best]),
                       candidates=len(candidates), phrase_backend=backend)
