"""The offline synonym source: nearest neighbours of a word among the whole-word input token
embeddings of the sentence encoder (MiniLM), used when WordNet is not installed."""
from __future__ import annotations

import logging
import os
from functools import lru_cache
from typing import Any

from ..similarity import load_sentence_encoder
from .words import is_variant, lexicon_lemmas, usable_word

__all__ = ["EmbeddingNeighbours", "embedding_synonyms", "load_embedding_neighbours"]

logger = logging.getLogger(__name__)



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
        encoder = load_sentence_encoder(model, device)
        vocab = encoder.tokenizer.get_vocab()
        matrix = encoder[0].auto_model.get_input_embeddings().weight.detach().cpu().numpy()
    else:
        vocab, matrix = found
    words = _whole_words(vocab)
    logger.info("embedding synonyms: %d whole-word tokens of %s", len(words), model)
    return EmbeddingNeighbours([w for w, _ in words], matrix[[i for _, i in words]])


def embedding_synonyms(neighbours: EmbeddingNeighbours, word: str, lemma: str, upos: str | None,
                       min_similarity: float, k: int) -> tuple[str, ...]:
    """Lemmas near ``word`` (cosine >= ``min_similarity`` among its ``k`` nearest tokens), of the
    same part of speech ``upos`` (None: any) and not a form of the word itself."""
    found = []
    own_lemmas = {lemma, word} | {x.lower() for ls in lexicon_lemmas(word).values() for x in ls}
    for candidate, score in neighbours(word, k) or neighbours(lemma, k):
        if score < min_similarity:
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


