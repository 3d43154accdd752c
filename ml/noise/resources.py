"""What the noise functions draw on: a synonym lookup, the insertion vocabulary, PAN's fluency
scorer and the phrase backend, with a description for the job log."""
from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..text.nlp import DEFAULT_SPACY_MODEL
from ..text.phrases import benepar_available
from .fluency import load_fluency
from .units import is_quantity_word

if TYPE_CHECKING:
    from .fluency import FluencyScorer

__all__ = ["FALLBACK_VOCABULARY", "INSERTION_STOPWORDS", "NoiseResources", "SynonymFunction", "corpus_vocabulary",
           "noise_resources"]

SynonymFunction = Callable[[str, str, "str | None"], Sequence[str]]

# Words never inserted or substituted in: they flip or scale a problem's quantities.
INSERTION_STOPWORDS = frozenset({
    "not", "no", "never", "none", "nor", "neither", "nothing", "without", "except", "more", "less", "fewer",
    "most", "least", "times", "per", "each", "every", "only", "extra", "additional", "another", "remaining",
    "left", "all", "both", "same", "total", "sum", "difference", "product", "ratio",
})
FALLBACK_VOCABULARY = ("also", "then", "just", "some", "very", "there", "other", "really", "still", "quite")
_WORD = re.compile(r"[A-Za-z]+(?:'[a-z]+)?")


def _allowed(word: str) -> bool:
    return bool(word) and word.lower() not in INSERTION_STOPWORDS and not is_quantity_word(word)


def corpus_vocabulary(texts: Sequence[str], limit: int = 5000) -> tuple[str, ...]:
    """The ``limit`` most frequent words written in lower case in ``texts`` (so names and
    sentence-initial-only capitals stay out), without number, unit and stop words; sorted."""
    counts = Counter(w for t in texts for w in _WORD.findall(t) if w.islower() and len(w) > 1)
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    words = []
    for word, _ in ranked:
        if _allowed(word):
            words.append(word)
            if len(words) >= limit:
                break
    return tuple(sorted(words))


@dataclass
class NoiseResources:
    """``synonyms(word, lemma, upos)``: synonym lookup (None: substitution leaves words and
    :meth:`describe` says so); ``vocabulary``: words insertion draws from (number, unit and stop
    words are dropped); ``fluency``: PAN's scorer (None: a random candidate); ``phrase_backend``:
    "auto" (benepar when its model is installed, else the dependency parse), "benepar",
    "dependency"."""

    synonyms: SynonymFunction | None = None
    vocabulary: tuple[str, ...] = FALLBACK_VOCABULARY
    fluency: FluencyScorer | None = None
    phrase_backend: str = "auto"
    spacy_model: str = DEFAULT_SPACY_MODEL
    used: dict[str, str] = field(default_factory=dict)
    _cache: dict[tuple[str, str, str], tuple[str, ...]] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self.vocabulary = tuple(w for w in self.vocabulary if _allowed(w))

    def lookup(self, word: str, lemma: str, upos: str | None) -> tuple[str, ...]:
        """Synonyms of a word, sorted, without the word itself, number/unit words and stop words."""
        if self.synonyms is None:
            return ()
        key = (word.lower(), lemma, upos or "")
        if key not in self._cache:
            found = {s.replace("_", " ").strip() for s in self.synonyms(word, lemma, upos)}
            self._cache[key] = tuple(sorted(
                s for s in found if s and s.lower() not in (word.lower(), lemma.lower()) and _allowed(s)))
        return self._cache[key]

    def note(self, what: str, value: str) -> None:
        self.used[what] = value

    def describe(self) -> dict[str, Any]:
        """Which constituency backend, fluency LM and synonym source run (for the job log)."""
        backend = self.phrase_backend
        if backend == "auto":
            backend = "benepar" if benepar_available() else "dependency"
        if self.synonyms is None:
            synonyms = "none"  # synonym substitution leaves words unchanged
        else:
            synonyms = getattr(self.synonyms, "source", getattr(self.synonyms, "__name__", "custom"))
        return {
            "constituency": self.used.get("constituency", backend),
            "fluency": getattr(self.fluency, "name", "none (random choice among candidates)"),
            "synonyms": synonyms,
            "vocabulary": len(self.vocabulary),
        }


def noise_resources(corpus_texts: Sequence[str], *, fluency: str | FluencyScorer | None = "auto",
                    synonyms: SynonymFunction | None = None, phrase_backend: str = "auto",
                    spacy_model: str = DEFAULT_SPACY_MODEL, device: str = "cpu") -> NoiseResources:
    """Resources for a corpus: its words for insertion (a small built-in list when it has none),
    the fluency LM (a :func:`~ml.noise.fluency.load_fluency` spec, a scorer, or None) and the
    synonym lookup."""
    texts = list(corpus_texts)
    vocabulary = corpus_vocabulary(texts) or FALLBACK_VOCABULARY
    scorer = load_fluency(fluency, texts or list(vocabulary), device) if isinstance(fluency, str) else fluency
    return NoiseResources(synonyms=synonyms, vocabulary=vocabulary, fluency=scorer, phrase_backend=phrase_backend,
                          spacy_model=spacy_model)
