"""Word position deviation (WPD): how far shared words moved between two texts.

Liu and Soh, "Towards Better Characterization of Paraphrases", ACL 2022. Each token of a text
gets the relative position i / (len - 1) in [0, 1] (a one-token text: position 0); positions
are grouped by lemma. For every lemma in both texts: one occurrence on each side -> the absolute
difference of the two positions; several -> starting from the side with more occurrences (the
first text on a tie, as the authors' code does), each occurrence's distance to the nearest
occurrence on the other side, averaged. WPD is the mean over shared lemmas; no shared lemma ->
1.0. SCANNING (paper 000, section 3.7.3) uses it for syntactic change: 0 for a copy, higher as
words move.

Tokens here are spaCy lemmas, lower-cased; tokens without a letter or digit (punctuation,
"$", "%") are dropped before positions are counted. The authors count punctuation; we drop it
because the sentence-final marks of a multi-sentence problem would be shared lemmas that say
nothing about reordering, and a moved comma would count as much as a moved noun.

>>> word_position_deviation(["a", "b", "c", "d"], ["d", "b", "c", "a"])  # a, d move by 1
0.5
>>> round(wpd("Tom has 5 apples.", "5 apples, Tom has."), 3)
0.667
"""
from __future__ import annotations

import threading
from collections import OrderedDict, defaultdict
from collections.abc import Iterable, Sequence

from ..text.nlp import DEFAULT_SPACY_MODEL, load_spacy

__all__ = ["WPD_SETTINGS", "cache_lemmas", "position_lemmas", "word_position_deviation", "wpd"]

WPD_SETTINGS = (
    "WPD (Liu & Soh 2022) over lower-cased spaCy lemmas; tokens without a letter or digit dropped; "
    "positions i/(len-1); no shared lemma -> 1.0"
)

# Lemmas need only the tagger, attribute ruler and lemmatizer; the parser and NER cost ~3/4 of a
# full parse and do not feed the tagger, so the lemmas are the same as those of ml.text.nlp.parse.
_NOT_NEEDED = ("parser", "ner")
_CACHE_SIZE = 20_000


class _LemmaCache:
    """A bounded, thread-safe least-recently-used map (model, text) -> lemmas."""

    def __init__(self, maxsize: int) -> None:
        self.maxsize = maxsize
        self._data: OrderedDict[tuple[str, str], tuple[str, ...]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: tuple[str, str]) -> tuple[str, ...] | None:
        with self._lock:
            value = self._data.get(key)
            if value is not None:
                self._data.move_to_end(key)
            return value

    def put(self, key: tuple[str, str], value: tuple[str, ...]) -> None:
        with self._lock:
            self._data[key] = value
            self._data.move_to_end(key)
            while len(self._data) > self.maxsize:
                self._data.popitem(last=False)


_cache = _LemmaCache(_CACHE_SIZE)


def _lemmatise(texts: list[str], model: str) -> list[tuple[str, ...]]:
    nlp = load_spacy(model)
    disable = [name for name in _NOT_NEEDED if name in nlp.pipe_names]
    return [
        tuple((token.lemma_ or token.text).lower() for token in doc if any(c.isalnum() for c in token.text))
        for doc in nlp.pipe(texts, disable=disable)
    ]


def cache_lemmas(texts: Iterable[str], *, spacy_model: str = DEFAULT_SPACY_MODEL) -> None:
    """Lemmatise the texts not yet cached in one batched spaCy pass (faster than one by one),
    before scoring many candidates.

    >>> cache_lemmas(["Tom has 5 apples.", "Ann has 3 pears."])
    >>> position_lemmas("Ann has 3 pears.")
    ('ann', 'have', '3', 'pear')
    """
    missing = list(dict.fromkeys(t for t in texts if _cache.get((spacy_model, t)) is None))
    if missing:
        for text, lemmas in zip(missing, _lemmatise(missing, spacy_model), strict=True):
            _cache.put((spacy_model, text), lemmas)


def position_lemmas(text: str, *, spacy_model: str = DEFAULT_SPACY_MODEL) -> tuple[str, ...]:
    """The lower-cased spaCy lemmas whose positions WPD compares (cached per text).

    >>> position_lemmas("Tom bought 2.5 kg of apples, didn't he?")
    ('tom', 'buy', '2.5', 'kg', 'of', 'apple', 'do', 'not', 'he')
    """
    key = (spacy_model, text)
    lemmas = _cache.get(key)
    if lemmas is None:
        lemmas = _lemmatise([text], spacy_model)[0]
        _cache.put(key, lemmas)
    return lemmas


def _positions(lemmas: Sequence[str]) -> dict[str, list[float]]:
    last = len(lemmas) - 1
    positions: dict[str, list[float]] = defaultdict(list)
    for i, lemma in enumerate(lemmas):
        positions[lemma].append(i / last if last > 0 else 0.0)
    return positions


def word_position_deviation(a_lemmas: Sequence[str], b_lemmas: Sequence[str]) -> float:
    """WPD of two token sequences (Liu & Soh 2022, see the module docstring), in [0, 1].

    >>> word_position_deviation(["a", "b"], ["c"])  # nothing shared
    1.0
    """
    positions_a, positions_b = _positions(a_lemmas), _positions(b_lemmas)
    deviations = []
    for lemma, here in positions_a.items():
        there = positions_b.get(lemma)
        if there is None:
            continue
        if len(there) > len(here):
            here, there = there, here
        # With one occurrence each this is |pa - pb|; a copy gives exactly 0.
        deviations.append(sum(min(abs(p - q) for q in there) for p in here) / len(here))
    if not deviations:
        return 1.0
    return sum(deviations) / len(deviations)


def wpd(a: str, b: str, *, spacy_model: str = DEFAULT_SPACY_MODEL) -> float:
    """WPD of two texts over their :func:`position_lemmas`; 0.0 for a copy (up to surrounding
    whitespace).

    >>> wpd("What is its speed?", "  What is its speed? ")
    0.0
    """
    if a.strip() == b.strip():
        return 0.0
    return word_position_deviation(
        position_lemmas(a, spacy_model=spacy_model), position_lemmas(b, spacy_model=spacy_model)
    )
