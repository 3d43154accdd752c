"""Synonym substitution (paper 002 §3.3.2; SCANNING q5): 1-2 content words (nouns, verbs,
adjectives, adverbs) replaced by synonyms of the same part of speech, inflected like the word they
replace (lemminflect). Numbers, units, named entities, people, question words and the problem's
quantity words (price, profit, interest, area, rate, ratio, speed, …: ``ml.vocabulary``) are never
touched, and no synonym is one of them. A synonym must fit its sentence (:mod:`.synonym_fit`):
common English, the sentence's sense by the encoder, and no worse under the fluency LM.

Two sources, chosen by ``GenerationResources.synonym_source`` ("auto": WordNet when installed):

- **WordNet** (NLTK reader over an NLTK data directory; ``scripts/wordnet.sh`` installs it from
  Debian's ``wordnet-base``): lemmas of the word's first senses, a later sense only when the word
  is used in it at least half as often as in the first; single words only, ranked by the
  sense order and WordNet's tagged-corpus lemma counts, so "bought" gives "purchased", not
  "bribed".
- **Embedding neighbours** (offline fallback): nearest neighbours of the word among the whole-word
  input token embeddings of the sentence encoder (MiniLM), cosine above a threshold, same part of
  speech and a different lemma by lemminflect's lexicon.

Each candidate's ``meta["synonym_source"]`` says which source ran, ``meta["checks"]`` which fit checks.
"""
from __future__ import annotations

import logging
import os
import random
import warnings
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Callable, Literal

from ..vocabulary import DOMAIN_TERMS
from .base import (
    GeneratedCandidate,
    GenerationResources,
    GeneratorUnavailable,
    NotApplicable,
    candidates_or_refuse,
    require_same_problem,
)
from .embedding_synonyms import EmbeddingNeighbours, embedding_synonyms, load_embedding_neighbours
from .synonym_fit import FitConfig, load_synonym_fit
from .words import inflect, is_variant, match_case, replace_tokens, replaceable_tokens, usable_word

if TYPE_CHECKING:
    from spacy.tokens import Token

__all__ = [
    "EmbeddingNeighbours",
    "SynonymConfig",
    "SynonymGenerator",
    "SynonymLookup",
    "load_embedding_neighbours",
    "load_wordnet",
    "substitute",
    "synonym_lookup",
    "synonym_unavailable_reason",
    "wordnet_unavailable_reason",
]

logger = logging.getLogger(__name__)

_WORDNET_POS = {"NOUN": "n", "VERB": "v", "ADJ": "a", "ADV": "r"}


@dataclass(frozen=True)
class SynonymConfig:
    """max_words: at most this many words replaced per candidate (w = rand(1, min(max_words, k))).
    max_candidates: distinct candidates per problem. top_k: a word's synonym is drawn among its
    top_k ranked synonyms. wordnet_senses: senses of a word looked at; sense_share: a later sense
    counts when the word's own count in it is at least this share of its count in the first;
    min_lemma_count: a WordNet synonym needs at least this tagged-corpus count (rare lemmas read
    oddly). min_similarity: cosine threshold of the embedding neighbours; neighbours: how many
    nearest tokens are looked at. fit: the checks a synonym must pass in its sentence
    (:mod:`.synonym_fit`; None: none, the paper's plain substitution)."""

    max_words: int = 2
    max_candidates: int = 2
    top_k: int = 2
    wordnet_senses: int = 3
    sense_share: float = 0.5
    min_lemma_count: int = 3
    min_similarity: float = 0.55
    neighbours: int = 40
    fit: FitConfig | None = FitConfig()

    def __post_init__(self) -> None:
        if self.max_words < 1 or self.max_candidates < 1 or self.top_k < 1:
            raise ValueError("max_words, max_candidates and top_k must be >= 1")
        if self.wordnet_senses < 1 or self.neighbours < 1:
            raise ValueError("wordnet_senses and neighbours must be >= 1")
        if not 0 <= self.sense_share <= 1 or not -1 <= self.min_similarity <= 1:
            raise ValueError("sense_share must be in [0, 1] and min_similarity in [-1, 1]")


# --- WordNet ------------------------------------------------------------------------------------


def _wordnet_root(wordnet_dir: str | None) -> str | None:
    import nltk

    if wordnet_dir is None:
        try:
            return str(nltk.data.find("corpora/wordnet"))
        except LookupError:
            return None
    root = os.path.join(wordnet_dir, "corpora", "wordnet")
    return root if os.path.isfile(os.path.join(root, "lexnames")) else None


@lru_cache(maxsize=4)
def load_wordnet(wordnet_dir: str | None = None) -> Any:
    """NLTK's WordNet reader over ``<wordnet_dir>/corpora/wordnet`` (None: NLTK's own search
    path), loaded once per process; ``LookupError`` when it is not installed there."""
    import nltk
    from nltk.corpus.reader import WordNetCorpusReader

    root = _wordnet_root(wordnet_dir)
    if root is None:
        where = wordnet_dir or "NLTK's data path"
        raise LookupError(f"WordNet is not installed under {where} (run scripts/wordnet.sh)")
    if wordnet_dir is not None:
        # NLTK only opens corpora under its data roots (nltk.pathsec).
        data_root = os.path.abspath(wordnet_dir)
        if data_root not in nltk.data.path:
            nltk.data.path.append(data_root)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "multilingual functions are not available": no OMW here
        reader = WordNetCorpusReader(root, None)
    logger.info("loaded WordNet from %s", root)
    return reader


def wordnet_unavailable_reason(wordnet_dir: str | None) -> str | None:
    """Why WordNet cannot be read from ``wordnet_dir`` (None: it can)."""
    try:
        import nltk  # noqa: F401
    except ImportError:
        return "nltk is not installed"
    if _wordnet_root(wordnet_dir) is None:
        return f"WordNet is not installed under {wordnet_dir or 'the NLTK data path'} (run scripts/wordnet.sh)"
    return None


def _wordnet_synonyms(reader: Any, lemma: str, upos: str | None, config: SynonymConfig) -> tuple[str, ...]:
    pos = _WORDNET_POS.get(upos) if upos else None
    synsets = reader.synsets(lemma, pos) if pos else reader.synsets(lemma)
    if not synsets:
        return ()

    def own_count(synset: Any) -> int:
        return sum(lm.count() for lm in synset.lemmas() if lm.name().lower() == lemma)

    first = own_count(synsets[0])
    ranked: list[tuple[int, int, str]] = []
    for rank, synset in enumerate(synsets[:config.wordnet_senses]):
        if rank > 0:
            own = own_count(synset)
            if own < 1 or own < config.sense_share * first:
                continue
        for lm in synset.lemmas():
            name = lm.name()
            if not name.islower() or not usable_word(name) or is_variant(name, lemma):
                continue
            count = lm.count()
            if count < config.min_lemma_count:
                continue
            ranked.append((rank, -count, name))
    return tuple(dict.fromkeys(name for _, _, name in sorted(ranked)))


# --- one lookup for both sources ----------------------------------------------------------------


@dataclass(frozen=True)
class SynonymLookup:
    """``lookup(word, lemma, upos)`` -> ranked synonym lemmas (``upos`` None: any part of speech,
    surface words); ``source`` is "wordnet" or "embedding"."""

    source: Literal["wordnet", "embedding"]
    function: Callable[[str, str, str | None], tuple[str, ...]]

    def __call__(self, word: str, lemma: str, upos: str | None) -> tuple[str, ...]:
        return self.function(word.lower(), lemma.lower(), upos)


@lru_cache(maxsize=8)
def _lookup(source: str, location: str | None, device: str, config: SynonymConfig) -> SynonymLookup:
    if source == "wordnet":
        reader = load_wordnet(location)

        @lru_cache(maxsize=8192)
        def wordnet_function(word: str, lemma: str, upos: str | None) -> tuple[str, ...]:
            return _wordnet_synonyms(reader, lemma, upos, config)

        return SynonymLookup("wordnet", wordnet_function)
    neighbours = load_embedding_neighbours(str(location), device)

    @lru_cache(maxsize=8192)
    def embedding_function(word: str, lemma: str, upos: str | None) -> tuple[str, ...]:
        return embedding_synonyms(neighbours, word, lemma, upos, config.min_similarity, config.neighbours)

    return SynonymLookup("embedding", embedding_function)


def synonym_lookup(resources: GenerationResources, config: SynonymConfig | None = None) -> SynonymLookup:
    """The synonym source ``resources`` asks for ("auto": WordNet when installed, else the
    embedding neighbours), cached per process. Raises :class:`GeneratorUnavailable`."""
    config = config or SynonymConfig()
    source = resources.synonym_source
    if source in ("auto", "wordnet"):
        reason = wordnet_unavailable_reason(resources.wordnet_dir)
        if reason is None:
            return _lookup("wordnet", resources.wordnet_dir, resources.device, config)
        if source == "wordnet":
            raise GeneratorUnavailable(reason, generator="synonym")
    try:
        return _lookup("embedding", resources.embedding_model, resources.device, config)
    except (OSError, ValueError, ImportError) as exc:
        raise GeneratorUnavailable(f"cannot load the embedding model {resources.embedding_model!r}: {exc}",
                                   generator="synonym") from exc


def synonym_unavailable_reason(resources: GenerationResources) -> str | None:
    """Why no synonym source can run with ``resources`` (None: one can)."""
    if resources.synonym_source == "wordnet":
        return wordnet_unavailable_reason(resources.wordnet_dir)
    if resources.synonym_source == "auto" and wordnet_unavailable_reason(resources.wordnet_dir) is None:
        return None
    model = resources.embedding_model
    if os.path.isabs(model) or model.startswith((".", "~")):
        if not os.path.isdir(os.path.expanduser(model)):
            return f"the embedding model directory {model} does not exist"
    return None


def substitute(
    text: str, rng: random.Random, choices: list[tuple[Token, tuple[str, ...]]], config: SynonymConfig
) -> tuple[str, list[dict[str, str]]]:
    """Replace w = rand(1, min(max_words, k)) of the ``(token, synonym lemmas)`` choices, each by
    one of its top_k synonyms inflected like the token; returns the text and the changes."""
    w = rng.randint(1, min(config.max_words, len(choices)))
    picked = sorted(rng.sample(choices, w), key=lambda c: c[0].i)
    replacements, changes = [], []
    for token, synonyms in picked:
        options = list(synonyms[:config.top_k])
        rng.shuffle(options)
        for lemma in options:
            form = inflect(lemma, token.tag_)
            if not form:
                continue
            form = match_case(form, token.text)
            replacements.append((token, form))
            changes.append({"word": token.text, "replacement": form})
            break
    return replace_tokens(text, replacements), changes


@dataclass(frozen=True)
class SynonymGenerator:
    """Synonym substitution of 1-3 content words (WordNet, else embedding neighbours)."""

    name: str = "synonym"
    description: str = ("Synonym substitution of 1-3 content words, same part of speech, inflected; numbers, "
                        "units, names and question words untouched (WordNet, else MiniLM embedding neighbours)")
    kind: str = "rule"
    config: SynonymConfig = SynonymConfig()

    def unavailable_reason(self, resources: GenerationResources) -> str | None:
        return synonym_unavailable_reason(resources)

    def generate(self, text: str, rng: random.Random, resources: GenerationResources) -> list[GeneratedCandidate]:
        lookup = synonym_lookup(resources, self.config)
        fit = self.config.fit
        checker = load_synonym_fit(resources.embedding_model, resources.device, fit) if fit is not None else None
        choices = []
        for token in replaceable_tokens(text, resources.spacy_model):
            if token.lemma_.lower() in DOMAIN_TERMS or token.lower_ in DOMAIN_TERMS:
                continue  # "interest" -> "sake", "area" -> "country": the quantity asked changes
            synonyms = tuple(s for s in lookup(token.text, token.lemma_, token.pos_) if s not in DOMAIN_TERMS)
            if synonyms:
                choices.append((token, synonyms))
        if checker is not None and choices:
            forms = [(token, [(lemma, form) for lemma in synonyms if (form := inflect(lemma, token.tag_))])
                     for token, synonyms in choices]
            choices = [(token, ranked) for (token, _), ranked in zip(choices, checker.rank_all(forms)) if ranked]
        if not choices:
            raise NotApplicable(f"no content word with a synonym (source: {lookup.source})", operator=self.name)
        candidates = []
        for _ in range(3 * self.config.max_candidates):
            out, changes = substitute(text, rng, choices, self.config)
            if not changes:
                continue
            try:
                require_same_problem(text, out, generator=self.name, spacy_model=resources.spacy_model)
            except NotApplicable:
                continue
            meta = {"synonym_source": lookup.source, "changes": changes}
            if checker is not None:
                meta["checks"] = checker.checks
            candidates.append(GeneratedCandidate(out, self.name, "replace", meta))
            if len({c.text for c in candidates}) >= self.config.max_candidates:
                break
        return candidates_or_refuse(text, candidates, generator=self.name, reason="no substitution kept the problem",
                                    limit=self.config.max_candidates)
