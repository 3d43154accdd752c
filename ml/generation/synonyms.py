"""Synonym substitution (paper 002 §3.3.2; SCANNING q5): 1-3 content words (nouns, verbs,
adjectives, adverbs) replaced by synonyms of the same part of speech, inflected like the word they
replace (lemminflect). Numbers, units, named entities, people and question words are never touched.

Two sources, chosen by ``GenerationResources.synonym_source`` ("auto": WordNet when installed):

- **WordNet** (NLTK reader over an NLTK data directory; ``scripts/wordnet.sh`` installs it from
  Debian's ``wordnet-base``): lemmas of the word's first senses, a later sense only when the word
  is used in it at least half as often as in the first; single words only, ranked by the
  sense order and WordNet's tagged-corpus lemma counts, so "bought" gives "purchased", not
  "bribed".
- **Embedding neighbours** (offline fallback): nearest neighbours of the word among the whole-word
  input token embeddings of the sentence encoder (MiniLM), cosine above a threshold, same part of
  speech and a different lemma by lemminflect's lexicon.

Each candidate's ``meta["synonym_source"]`` says which source ran.
"""
from __future__ import annotations

import logging
import os
import random
import warnings
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Callable, Literal

from .base import (
    GeneratedCandidate,
    GenerationResources,
    GeneratorUnavailable,
    NotApplicable,
    candidates_or_refuse,
    require_same_problem,
)
from .words import inflect, is_variant, lexicon_lemmas, match_case, replace_tokens, replaceable_tokens, usable_word

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
    nearest tokens are looked at."""

    max_words: int = 3
    max_candidates: int = 2
    top_k: int = 2
    wordnet_senses: int = 2
    sense_share: float = 0.5
    min_lemma_count: int = 3
    min_similarity: float = 0.55
    neighbours: int = 40

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


# --- embedding neighbours -----------------------------------------------------------------------


class EmbeddingNeighbours:
    """Nearest whole-word tokens in an encoder's input embedding space (cosine)."""

    def __init__(self, words: list[str], vectors: Any) -> None:
        import numpy as np

        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        self.words = words
        self.vectors = (vectors / np.maximum(norms, 1e-12)).astype("float32")  # (V, D), unit rows
        self.index = {w: i for i, w in enumerate(words)}

    def __call__(self, word: str, k: int) -> list[tuple[str, float]]:
        """The ``k`` nearest words to ``word`` with their cosines (empty when it is no token)."""
        import numpy as np

        i = self.index.get(word.lower())
        if i is None:
            return []
        scores = self.vectors @ self.vectors[i]  # (V,)
        k = min(k + 1, len(self.words))
        top = np.argpartition(-scores, k - 1)[:k]
        top = top[np.argsort(-scores[top])]
        return [(self.words[j], float(scores[j])) for j in top if j != i]


def _whole_words(vocab: dict[str, int]) -> list[tuple[str, int]]:
    """(word, id) of the vocabulary entries that are whole lower-case words (WordPiece without
    "##", SentencePiece/BPE with their word-start marks)."""
    marks = ("\u2581", "\u0120")
    has_marks = any(t.startswith(marks) for t in list(vocab)[:5000])
    out = []
    for token, index in vocab.items():
        if has_marks:
            if not token.startswith(marks):
                continue
            token = token[1:]
        elif token.startswith("##"):
            continue
        if token.isalpha() and token.isascii() and token.islower() and len(token) >= 3:
            out.append((token, index))
    return out


def _safetensors_embeddings(directory: str) -> tuple[dict[str, int], Any] | None:
    """(vocab, word-embedding matrix) read straight from a BERT-style folder (vocab.txt and
    model.safetensors), without building the model; None when the folder is not laid out so."""
    vocab_path = os.path.join(directory, "vocab.txt")
    weights_path = os.path.join(directory, "model.safetensors")
    if not (os.path.isfile(vocab_path) and os.path.isfile(weights_path)):
        return None
    from safetensors import safe_open

    with safe_open(weights_path, framework="numpy") as f:
        keys = [k for k in f.keys() if k.endswith("word_embeddings.weight")]
        if len(keys) != 1:
            return None
        matrix = f.get_tensor(keys[0])  # (V, D)
    with open(vocab_path, encoding="utf-8") as f:
        vocab = {line.rstrip("\n"): i for i, line in enumerate(f)}
    return vocab, matrix


@lru_cache(maxsize=2)
def load_embedding_neighbours(model: str, device: str = "cpu") -> EmbeddingNeighbours:
    """The whole-word input token embeddings of ``model`` (a sentence-transformers folder or hub
    id), loaded once per process."""
    found = _safetensors_embeddings(model) if os.path.isdir(model) else None
    if found is None:
        from ..similarity import load_sentence_encoder

        encoder = load_sentence_encoder(model, device)
        vocab = encoder.tokenizer.get_vocab()
        matrix = encoder[0].auto_model.get_input_embeddings().weight.detach().cpu().numpy()
    else:
        vocab, matrix = found
    words = _whole_words(vocab)
    logger.info("embedding synonyms: %d whole-word tokens of %s", len(words), model)
    return EmbeddingNeighbours([w for w, _ in words], matrix[[i for _, i in words]])


def _embedding_synonyms(neighbours: EmbeddingNeighbours, word: str, lemma: str, upos: str | None,
                        config: SynonymConfig) -> tuple[str, ...]:
    found = []
    own_lemmas = {lemma, word} | {x.lower() for ls in lexicon_lemmas(word).values() for x in ls}
    for candidate, score in neighbours(word, config.neighbours) or neighbours(lemma, config.neighbours):
        if score < config.min_similarity:
            break
        if not usable_word(candidate) or is_variant(candidate, lemma) or is_variant(candidate, word):
            continue
        lemmas = lexicon_lemmas(candidate)
        if upos is None:
            if own_lemmas & {x.lower() for ls in lemmas.values() for x in ls}:
                continue  # "giving" for "gave"
            found.append(candidate)
            continue
        if upos not in lemmas:
            continue  # another part of speech ("faster" for "speed")
        new_lemma = lemmas[upos][0].lower()
        if new_lemma == lemma or is_variant(new_lemma, lemma) or not usable_word(new_lemma):
            continue
        found.append(new_lemma)
    return tuple(dict.fromkeys(found))


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
        return _embedding_synonyms(neighbours, word, lemma, upos, config)

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
        choices = []
        for token in replaceable_tokens(text, resources.spacy_model):
            synonyms = lookup(token.text, token.lemma_, token.pos_)
            if synonyms:
                choices.append((token, synonyms))
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
            candidates.append(GeneratedCandidate(out, self.name, "replace",
                                                 {"synonym_source": lookup.source, "changes": changes}))
            if len({c.text for c in candidates}) >= self.config.max_candidates:
                break
        return candidates_or_refuse(text, candidates, generator=self.name, reason="no substitution kept the problem",
                                    limit=self.config.max_candidates)
