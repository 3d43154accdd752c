"""The noise combinations of paper 000, appendix B: 10 for training STEAD (Table 6; the table
prints row j twice, the 10 distinct rows a–j are used) and 10 for inference (Table 7, each with
the prompt its outputs carry to PAP), sampled per example from a categorical distribution
(uniform unless weights are given).

Within a combination the functions run in one fixed order whatever the table's wording: the
structure first (sentence permutation, phrase and span shuffles: PAN's fluency LM then scores
real words, not templates), then replacement (synonyms, then templates), then deletion and
insertion. "Sentence Permutation/Phrase Shuffle" is one of the two, drawn per example.

>>> [c.prompt for c in INFERENCE_COMBINATIONS if c.name in "egi"]
['paraphrase replace :', 'paraphrase fix replace :', 'paraphrase fix :']
"""
from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from . import functions as f
from .resources import NoiseResources
from .units import detokenize, parse_units

__all__ = [
    "APPLICATION_ORDER", "FUNCTIONS", "INFERENCE_COMBINATIONS", "PROMPT_FIX", "PROMPT_PASSIVE", "PROMPT_REPLACE",
    "PROMPT_SHUFFLE", "TRAINING_COMBINATIONS", "TRAINING_PROMPT", "Combination", "NoisedText", "apply_combination",
    "apply_function", "apply_inference_noise", "apply_training_noise", "combination_named", "prompt_for",
    "prompt_words", "sample_combination",
]

PROMPT_SHUFFLE, PROMPT_REPLACE, PROMPT_FIX, PROMPT_PASSIVE = "shuffle", "replace", "fix", "passive"
PROMPT_ORDER = (PROMPT_FIX, PROMPT_REPLACE, PROMPT_SHUFFLE, PROMPT_PASSIVE)
"""The order prompt words take in a prompt (the paper's: "paraphrase fix replace shuffle :")."""
TRAINING_PROMPT = "paraphrase:"

FUNCTIONS: dict[str, f.NoiseFunction] = {
    "q1": f.q1_sentence_permutation, "q2": f.q2_random_shuffling, "q3": f.q3_complete_shuffling,
    "q4": f.q4_templatization, "q5": f.q5_synonym_substitution, "q6": f.q6_random_deletion,
    "q7": f.q7_word_insertion, "i1": f.i1_sentence_permutation, "i2": f.i2_phrase_shuffling,
    "i3": f.i3_templatization, "i4": f.i4_synonym_substitution, "i5": f.i5_deletion, "i6": f.i6_insertion,
}
TITLES = {
    "q1": "Sentence Permutation", "q2": "Random Shuffling", "q3": "Complete Shuffling", "q4": "Templatization",
    "q5": "Synonym Substitution", "q6": "Random Deletion", "q7": "Word Insertion",
    "i1": "Sentence Permutation", "i2": "Phrase Shuffling", "i3": "Templatization", "i4": "Synonym Substitution",
    "i5": "Random Deletion", "i6": "Word Insertion",
}
APPLICATION_ORDER = ("q1", "i1", "i2", "q2", "q3", "q5", "i4", "q4", "i3", "q6", "i5", "q7", "i6")
"""Order the functions of a combination run in (a step ``i1|i2`` runs where i1 would)."""


def prompt_for(words: Sequence[str]) -> str:
    """``["shuffle", "replace"]`` -> ``"paraphrase replace shuffle :"`` (the paper's order;
    unknown words after, sorted; duplicates once)."""
    unique = set(words)
    ordered = [w for w in PROMPT_ORDER if w in unique] + sorted(unique - set(PROMPT_ORDER))
    return "paraphrase " + " ".join(ordered) + " :"


def prompt_words(prompt: str) -> tuple[str, ...]:
    """The prompt words of a prompt, lower-cased, without "paraphrase" and colons:
    ``"paraphrase replace shuffle :"`` -> ``("replace", "shuffle")`` (the words QF-PCF checks)."""
    return tuple(w for w in prompt.replace(":", " ").lower().split() if w != "paraphrase")


@dataclass(frozen=True)
class Combination:
    """A named combination: ``steps`` are function names in application order, ``a|b`` meaning
    one of the two at random; ``prompt``: what its outputs are asked for (training:
    ``paraphrase:``)."""

    name: str
    title: str
    steps: tuple[str, ...]
    prompt: str


@dataclass(frozen=True)
class NoisedText:
    """A noised text, the combination that made it and its prompt."""

    text: str
    combination: str
    prompt: str


def _ordered(steps: Sequence[str]) -> tuple[str, ...]:
    return tuple(sorted(steps, key=lambda s: APPLICATION_ORDER.index(s.split("|")[0])))


def _t(name: str, title: str, *steps: str) -> Combination:
    return Combination(name, title, _ordered(steps), TRAINING_PROMPT)


def _i(name: str, title: str, prompt: Sequence[str], *steps: str) -> Combination:
    return Combination(name, title, _ordered(steps), prompt_for(prompt))


_RS = (PROMPT_REPLACE, PROMPT_SHUFFLE)
TRAINING_COMBINATIONS: tuple[Combination, ...] = (
    _t("a", "Random Deletion + Random Shuffling + Templatization", "q6", "q2", "q4"),
    _t("b", "Templatization", "q4"),
    _t("c", "Random Deletion + Templatization + Word Insertion", "q6", "q4", "q7"),
    _t("d", "Random Deletion + Word Insertion", "q6", "q7"),
    _t("e", "Random Deletion + Random Shuffling + Sentence Permutation + Synonym Substitution + Templatization + "
            "Word Insertion", "q6", "q2", "q1", "q5", "q4", "q7"),
    _t("f", "Random Deletion + Random Shuffling + Synonym Substitution + Word Insertion", "q6", "q2", "q5", "q7"),
    _t("g", "Random Deletion + Synonym Substitution + Templatization + Word Insertion", "q6", "q5", "q4", "q7"),
    _t("h", "Random Deletion + Sentence Permutation + Synonym Substitution + Word Insertion", "q6", "q1", "q5", "q7"),
    _t("i", "Complete Shuffling + Synonym Substitution", "q3", "q5"),
    _t("j", "Complete Shuffling + Random Deletion + Word Insertion", "q3", "q6", "q7"),
)
"""Table 6: training combinations; every one is prompted ``paraphrase:``."""
INFERENCE_COMBINATIONS: tuple[Combination, ...] = (
    _i("a", "Sentence Permutation + Templatization", _RS, "i1", "i3"),
    _i("b", "Phrase Shuffling + Synonym Substitution", _RS, "i2", "i4"),
    _i("c", "Phrase Shuffling + Templatization", _RS, "i2", "i3"),
    _i("d", "Sentence Permutation/Phrase Shuffle + Synonym Substitution", _RS, "i1|i2", "i4"),
    _i("e", "Synonym Substitution + Templatization", (PROMPT_REPLACE,), "i4", "i3"),
    _i("f", "Sentence Permutation + Synonym Substitution", _RS, "i1", "i4"),
    _i("g", "Random Deletion + Templatization + Word Insertion", (PROMPT_FIX, PROMPT_REPLACE), "i5", "i3", "i6"),
    _i("h", "Phrase Shuffling + Sentence Permutation + Synonym Substitution", _RS, "i2", "i1", "i4"),
    _i("i", "Random Deletion + Word Insertion", (PROMPT_FIX,), "i5", "i6"),
    _i("j", "Sentence Permutation/Phrase Shuffle + Synonym Substitution + Templatization", _RS, "i1|i2", "i4", "i3"),
)
"""Table 7: inference combinations with their prompts (no complete shuffling at inference)."""


def combination_named(table: Sequence[Combination], name: str) -> Combination:
    """The combination called ``name`` in ``table`` (ValueError when there is none)."""
    for combination in table:
        if combination.name == name:
            return combination
    raise ValueError(f"unknown combination {name!r} (known: {', '.join(c.name for c in table)})")


def sample_combination(table: Sequence[Combination], rng: random.Random,
                       weights: Mapping[str, float] | None = None) -> Combination:
    """One combination drawn from ``table`` with probabilities proportional to ``weights`` (by
    name; uniform when None; a name left out has weight 0)."""
    if weights is None:
        return table[rng.randrange(len(table))]
    unknown = set(weights) - {c.name for c in table}
    if unknown:
        raise ValueError(f"weights for unknown combinations: {sorted(unknown)}")
    values = [float(weights.get(c.name, 0.0)) for c in table]
    if any(v < 0 for v in values) or not sum(values) > 0:
        raise ValueError("combination weights must be >= 0 and not all 0")
    return rng.choices(list(table), weights=values, k=1)[0]


def apply_function(name: str, text: str, rng: random.Random, resources: NoiseResources | None = None) -> str:
    """One noise function (``q1`` … ``q7``, ``i1`` … ``i6``) on a text."""
    return FUNCTIONS[name](text, rng, resources)


def apply_combination(text: str, combination: Combination, rng: random.Random,
                      resources: NoiseResources | None = None) -> NoisedText:
    """``combination``'s functions on one parse of ``text``, in order."""
    resources = resources if resources is not None else NoiseResources()
    units = list(parse_units(text, resources.spacy_model))
    for step in combination.steps:
        options = step.split("|")
        name = options[rng.randrange(len(options))] if len(options) > 1 else step
        units = FUNCTIONS[name](units, rng, resources)
    return NoisedText(detokenize(units), combination.name, combination.prompt)


def apply_training_noise(text: str, rng: random.Random, resources: NoiseResources | None = None,
                         weights: Mapping[str, float] | None = None) -> NoisedText:
    """One Table 6 combination, sampled with ``weights`` (uniform: None), applied; prompt
    ``paraphrase:``."""
    return apply_combination(text, sample_combination(TRAINING_COMBINATIONS, rng, weights), rng, resources)


def apply_inference_noise(text: str, rng: random.Random, resources: NoiseResources | None = None,
                          weights: Mapping[str, float] | None = None, combination: str | None = None) -> NoisedText:
    """One Table 7 combination (the named one, or sampled with ``weights``), applied; carries
    its prompt."""
    chosen = (combination_named(INFERENCE_COMBINATIONS, combination) if combination is not None
              else sample_combination(INFERENCE_COMBINATIONS, rng, weights))
    return apply_combination(text, chosen, rng, resources)
