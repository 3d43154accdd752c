"""fc: high-TF-IDF words replaced by random vocabulary words (ParaQD 4.2, test negative).

The opposite of UDA's replacement of uninformative words: the most informative words of the
question go, so it can no longer be solved. IDF is fitted on a corpus the caller passes in.
"""
from __future__ import annotations

import random
import re
from collections import Counter
from dataclasses import dataclass
from typing import Iterable

from .base import OperatorNotApplicable, OperatorResult, make_result, replace_spans

__all__ = ["TfidfConfig", "TfidfModel", "fc_tfidf_replacement", "fit_tfidf"]

_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*[A-Za-z]|[A-Za-z]")


def _stop_words() -> frozenset[str]:
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    return frozenset(ENGLISH_STOP_WORDS)


@dataclass(frozen=True)
class TfidfModel:
    """Inverse document frequencies (scikit-learn's smoothed idf) and the vocabulary replacements
    are drawn from."""

    idf: dict[str, float]
    vocabulary: tuple[str, ...]
    stop_words: frozenset[str]

    def unseen_idf(self) -> float:
        return max(self.idf.values(), default=1.0)

    def scores(self, text: str) -> dict[str, float]:
        """TF-IDF of each content word of ``text`` (lower-cased)."""
        counts = Counter(w.lower() for w in _WORD.findall(text))
        unseen = self.unseen_idf()
        return {w: c * self.idf.get(w, unseen) for w, c in counts.items() if w not in self.stop_words}


def fit_tfidf(corpus: Iterable[str], *, min_df: int = 1) -> TfidfModel:
    """Fit IDF on a corpus of problems.

    >>> model = fit_tfidf(["A train covers 300 km.", "A car covers 20 km.", "A boy eats apples."])
    >>> model.idf["train"] > model.idf["covers"]
    True
    """
    from sklearn.feature_extraction.text import TfidfVectorizer

    documents = list(corpus)
    if not documents:
        raise ValueError("fit_tfidf needs a non-empty corpus")
    vectorizer = TfidfVectorizer(token_pattern=_WORD.pattern, lowercase=True, min_df=min_df)
    vectorizer.fit(documents)
    vocabulary = vectorizer.get_feature_names_out()
    idf = {str(w): float(v) for w, v in zip(vocabulary, vectorizer.idf_)}
    stop = _stop_words()
    return TfidfModel(idf=idf, vocabulary=tuple(sorted(w for w in idf if w not in stop and len(w) > 2)),
                      stop_words=stop)


@dataclass(frozen=True)
class TfidfConfig:
    """fraction: share of the text's content words to replace (at least one);
    max_words: cap on the number of distinct words replaced."""

    fraction: float = 0.2
    max_words: int = 5

    def __post_init__(self) -> None:
        if not 0 < self.fraction <= 1:
            raise ValueError("fraction must be in (0, 1]")
        if self.max_words < 1:
            raise ValueError("max_words must be >= 1")


def fc_tfidf_replacement(
    text: str, rng: random.Random, *, tfidf: TfidfModel | None = None, config: TfidfConfig | None = None
) -> OperatorResult:
    """Test negative fc: the highest-TF-IDF words (every occurrence) become random vocabulary words.

    >>> model = fit_tfidf(["A train covers 300 km.", "A car covers 20 km.", "A boy eats apples."])
    >>> fc_tfidf_replacement("A train covers 300 km.", random.Random(0), tfidf=model).text != "A train covers 300 km."
    True
    """
    if tfidf is None:
        raise OperatorNotApplicable("needs a TF-IDF model fitted on a corpus (pass tfidf=fit_tfidf(corpus))",
                                    operator="fc")
    config = config or TfidfConfig()
    scores = tfidf.scores(text)
    if not scores:
        raise OperatorNotApplicable("no content word", operator="fc")
    k = min(config.max_words, max(1, round(config.fraction * len(scores))))
    # Highest TF-IDF first; ties broken at random so equal words are not always taken in text order.
    ranked = sorted(scores, key=lambda w: (-scores[w], rng.random()))[:k]
    replacement = {}
    for word in ranked:
        options = [v for v in tfidf.vocabulary if v != word]
        if options:
            replacement[word] = rng.choice(options)
    if not replacement:
        raise OperatorNotApplicable("the vocabulary has no other word", operator="fc")
    edits = []
    for m in _WORD.finditer(text):
        new = replacement.get(m.group().lower())
        if new is not None:
            edits.append((m.start(), m.end(), new.capitalize() if m.group()[0].isupper() else new))
    return make_result(text, replace_spans(text, edits), "fc", False, replaced=replacement)
