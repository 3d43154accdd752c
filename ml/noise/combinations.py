"""The noise combinations of paper 000, appendix B: 10 for training STEAD (Table 6) and 10 for
inference (Table 7, each with the prompt its outputs carry to PAP), sampled per example from a
categorical distribution (uniform unless weights are given).

Within a combination the functions run in a fixed order whatever the table's wording: replacing
(synonyms, templates) first, on the clean parse; then the structure (permutation, phrase and span
shuffles, PAN's fluency choice on the rewritten words); then deletion and insertion.
"""
from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from . import functions as f

__all__ = [
    "INFERENCE_COMBINATIONS", "PROMPT_FIX", "PROMPT_PASSIVE", "PROMPT_REPLACE", "PROMPT_SHUFFLE",
    "TRAINING_COMBINATIONS", "TRAINING_PROMPT", "Combination", "prompt_for", "prompt_words", "sample_combination",
]

PROMPT_SHUFFLE, PROMPT_REPLACE, PROMPT_FIX, PROMPT_PASSIVE = "shuffle", "replace", "fix", "passive"
PROMPT_ORDER = (PROMPT_FIX, PROMPT_REPLACE, PROMPT_SHUFFLE, PROMPT_PASSIVE)
TRAINING_PROMPT = "paraphrase:"


def prompt_for(words: Sequence[str]) -> str:
    """``["shuffle", "replace"]`` -> ``"paraphrase replace shuffle :"`` (the paper's order)."""
    ordered = [w for w in PROMPT_ORDER if w in words] + sorted(set(words) - set(PROMPT_ORDER))
    return "paraphrase " + " ".join(ordered) + " :"


def prompt_words(prompt: str) -> tuple[str, ...]:
    return tuple(w for w in prompt.replace(":", " ").split() if w != "paraphrase")


@dataclass(frozen=True)
class Combination:
    """A named combination: ``steps`` are function names, ``a|b`` meaning one of the two at random;
    ``prompt``: what the noised input's output answers (training: ``paraphrase:``)."""

    name: str
    title: str
    steps: tuple[str, ...]
    prompt: str


def _t(name: str, title: str, *steps: str) -> Combination:
    return Combination(name, title, steps, TRAINING_PROMPT)


def _i(name: str, title: str, prompt: tuple[str, ...], *steps: str) -> Combination:
    return Combination(name, title, steps, prompt_for(prompt))


RS, RP = (PROMPT_REPLACE, PROMPT_SHUFFLE), (PROMPT_REPLACE,)
TRAINING_COMBINATIONS: tuple[Combination, ...] = (
    _t("a", "Random Deletion + Random Shuffling + Templatization", "q4", "q2", "q6"),
    _t("b", "Templatization", "q4"),
    _t("c", "Random Deletion + Templatization + Word Insertion", "q4", "q6", "q7"),
    _t("d", "Random Deletion + Word Insertion", "q6", "q7"),
    _t("e", "Random Deletion + Random Shuffling + Sentence Permutation + Synonym Substitution + Templatization + "
            "Word Insertion", "q5", "q4", "q1", "q2", "q6", "q7"),
    _t("f", "Random Deletion + Random Shuffling + Synonym Substitution + Word Insertion", "q5", "q2", "q6", "q7"),
    _t("g", "Random Deletion + Synonym Substitution + Templatization + Word Insertion", "q5", "q4", "q6", "q7"),
    _t("h", "Random Deletion + Sentence Permutation + Synonym Substitution + Word Insertion", "q5", "q1", "q6", "q7"),
    _t("i", "Complete Shuffling + Synonym Substitution", "q5", "q3"),
    _t("j", "Complete Shuffling + Random Deletion + Word Insertion", "q3", "q6", "q7"),
)
INFERENCE_COMBINATIONS: tuple[Combination, ...] = (
    _i("a", "Sentence Permutation + Templatization", RS, "i3", "i1"),
    _i("b", "Phrase Shuffling + Synonym Substitution", RS, "i4", "i2"),
    _i("c", "Phrase Shuffling + Templatization", RS, "i3", "i2"),
    _i("d", "Sentence Permutation/Phrase Shuffle + Synonym Substitution", RS, "i4", "i1|i2"),
    _i("e", "Synonym Substitution + Templatization", RP, "i4", "i3"),
    _i("f", "Sentence Permutation + Synonym Substitution", RS, "i4", "i1"),
    _i("g", "Random Deletion + Templatization + Word Insertion", (PROMPT_FIX, PROMPT_REPLACE), "i3", "i5", "i6"),
    _i("h", "Phrase Shuffling + Sentence Permutation + Synonym Substitution", RS, "i4", "i2", "i1"),
    _i("i", "Random Deletion + Word Insertion", (PROMPT_FIX,), "i5", "i6"),
    _i("j", "Sentence Permutation/Phrase Shuffle + Synonym Substitution + Templatization", RS, "i4", "i3", "i1|i2"),
)

FUNCTIONS = {
    "q1": f.q1_sentence_permutation, "q2": f.q2_random_shuffling, "q3": f.q3_complete_shuffling,
    "q4": f.q4_templatization, "q5": f.q5_synonym_substitution, "q6": f.q6_random_deletion,
    "q7": f.q7_word_insertion, "i1": f.i1_sentence_permutation, "i2": f.i2_phrase_shuffling,
    "i3": f.i3_templatization, "i4": f.i4_synonym_substitution, "i5": f.i5_deletion, "i6": f.i6_insertion,
}


def sample_combination(table: Sequence[Combination], rng: random.Random,
                       weights: Mapping[str, float] | None = None) -> Combination:
    """One combination drawn from ``table`` with probabilities proportional to ``weights`` (by
    name; uniform when None; a name left out has weight 0)."""
    if weights is None:
        return table[rng.randrange(len(table))]
    values = [float(weights.get(c.name, 0.0)) for c in table]
    if any(v < 0 for v in values) or not sum(values) > 0:
        raise ValueError("combination weights must be >= 0 and not all 0")
    return rng.choices(list(table), weights=values, k=1)[0]
