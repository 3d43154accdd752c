"""SCANNING's noise library (paper 000): training noise for STEAD, pseudo-adversarial inference
noise, their combinations (Tables 6 and 7) and the fluency LM PAN ranks with. Pure: no Django.

>>> import random
>>> resources = NoiseResources(vocabulary=("blue", "then"))
>>> noised = apply_training_noise("Steve rode his car for 5 miles.", random.Random(3), resources)
>>> "5 miles" in noised.text, noised.prompt
(True, 'paraphrase:')
"""
from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..nlp import DEFAULT_SPACY_MODEL
from .combinations import (
    FUNCTIONS,
    INFERENCE_COMBINATIONS,
    PROMPT_FIX,
    PROMPT_PASSIVE,
    PROMPT_REPLACE,
    PROMPT_SHUFFLE,
    TRAINING_COMBINATIONS,
    Combination,
    prompt_for,
    prompt_words,
    sample_combination,
)
from .fluency import CausalLMFluency, FluencyScorer, KneserNeyFluency, load_fluency
from .functions import *  # noqa: F401,F403 - the thirteen noise functions
from .units import Unit, detokenize, parse_units

__all__ = [
    "CausalLMFluency", "Combination", "FluencyScorer", "INFERENCE_COMBINATIONS", "KneserNeyFluency",
    "NoiseResources", "NoisedText", "PROMPT_FIX", "PROMPT_PASSIVE", "PROMPT_REPLACE", "PROMPT_SHUFFLE",
    "TRAINING_COMBINATIONS", "Unit", "apply_combination", "apply_function", "apply_inference_noise",
    "apply_training_noise", "detokenize", "load_fluency", "noise_resources", "parse_units", "prompt_for",
    "prompt_words", "sample_combination",
]

SynonymLookup = Callable[[str, str, "str | None"], Sequence[str]]


@dataclass
class NoiseResources:
    """What the noise functions draw on. ``synonyms(word, lemma, upos)``: synonym lookup (None:
    substitution leaves words and says so in :meth:`describe`); ``vocabulary``: words insertion
    draws from; ``fluency``: PAN's scorer (None: a random candidate); ``phrase_backend``:
    "auto" (benepar when its model is installed, else the dependency parse), "benepar", "dependency"."""

    synonyms: SynonymLookup | None = None
    vocabulary: tuple[str, ...] = ()
    fluency: FluencyScorer | None = None
    phrase_backend: str = "auto"
    spacy_model: str = DEFAULT_SPACY_MODEL
    source_text: str = ""  # the text being noised (the phrase parse is taken from it)
    used: dict[str, str] = field(default_factory=dict)
    _cache: dict[tuple[str, str, str], tuple[str, ...]] = field(default_factory=dict, repr=False)

    def lookup(self, word: str, lemma: str, upos: str | None) -> tuple[str, ...]:
        if self.synonyms is None:
            return ()
        key = (word.lower(), lemma, upos or "")
        if key not in self._cache:
            self._cache[key] = tuple(self.synonyms(word, lemma, upos))
        return self._cache[key]

    def note(self, what: str, value: str) -> None:
        self.used[what] = value

    def describe(self) -> dict[str, Any]:
        """Which constituency backend, fluency LM and synonym source run (for the job log)."""
        from ..phrases import benepar_available

        backend = self.phrase_backend
        if backend == "auto":
            backend = "benepar" if benepar_available() else "dependency"
        return {
            "constituency": self.used.get("constituency", backend),
            "fluency": getattr(self.fluency, "name", "none (random choice)"),
            "synonyms": getattr(self.synonyms, "source", "none") if self.synonyms is not None else "none",
            "vocabulary": len(self.vocabulary),
        }


@dataclass(frozen=True)
class NoisedText:
    text: str
    combination: str
    prompt: str


def _vocabulary(texts: Sequence[str], limit: int = 5000) -> tuple[str, ...]:
    from collections import Counter

    from .fluency import _tokens

    counts = Counter(w for t in texts for w in _tokens(t) if w.isalpha() and len(w) > 1)
    return tuple(sorted(w for w, _ in counts.most_common(limit)))


def noise_resources(corpus: Sequence[str], *, fluency: str | FluencyScorer | None = "auto",
                    synonyms: SynonymLookup | None = None, phrase_backend: str = "auto",
                    spacy_model: str = DEFAULT_SPACY_MODEL, device: str = "cpu") -> NoiseResources:
    """Resources for a corpus: its words for insertion (a small built-in list when it is empty),
    the fluency LM (``load_fluency`` spec, a scorer, or None) and the synonym lookup."""
    vocabulary = _vocabulary(corpus) or ("also", "then", "just", "each", "some", "very", "there", "other")
    scorer = load_fluency(fluency, corpus or vocabulary, device) if isinstance(fluency, str) else fluency
    return NoiseResources(synonyms=synonyms, vocabulary=vocabulary, fluency=scorer, phrase_backend=phrase_backend,
                          spacy_model=spacy_model)


def apply_function(name: str, text: str, rng: random.Random, resources: NoiseResources) -> str:
    """One noise function (``q1`` … ``q7``, ``i1`` … ``i6``) on a text."""
    resources.source_text = text
    return detokenize(FUNCTIONS[name](list(parse_units(text, resources.spacy_model)), rng, resources))


def apply_combination(text: str, combination: Combination, rng: random.Random, resources: NoiseResources) -> NoisedText:
    resources.source_text = text
    units = list(parse_units(text, resources.spacy_model))
    for step in combination.steps:
        name = rng.choice(step.split("|")) if "|" in step else step
        units = FUNCTIONS[name](units, rng, resources)
    return NoisedText(detokenize(units), combination.name, combination.prompt)


def apply_training_noise(text: str, rng: random.Random, resources: NoiseResources,
                         weights: Mapping[str, float] | None = None) -> NoisedText:
    """One Table 6 combination, sampled, applied (prompt ``paraphrase:``)."""
    return apply_combination(text, sample_combination(TRAINING_COMBINATIONS, rng, weights), rng, resources)


def apply_inference_noise(text: str, rng: random.Random, resources: NoiseResources,
                          weights: Mapping[str, float] | None = None, combination: str | None = None) -> NoisedText:
    """One Table 7 combination (sampled, or the named one), applied; carries its prompt."""
    if combination is not None:
        chosen = next((c for c in INFERENCE_COMBINATIONS if c.name == combination), None)
        if chosen is None:
            raise ValueError(f"unknown inference combination {combination!r}")
    else:
        chosen = sample_combination(INFERENCE_COMBINATIONS, rng, weights)
    return apply_combination(text, chosen, rng, resources)
