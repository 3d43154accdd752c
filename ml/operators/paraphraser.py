"""General-domain paraphrasers as negatives: f9 (ParaQD 3.3, Pegasus) and fe (ParaQD 4.2, T5).

Both run a seq2seq model the caller configures (``paraphraser=Seq2SeqGenerator(Seq2SeqConfig(
model=...))``): such models drop or change facts of word problems, so their outputs are used
as hard negatives. Without a model, f9 falls back to :func:`fluent_hard_negative` (the offline
default; ``offline_fallback=False`` makes it refuse instead) and fe refuses: fe is the
platform's own generator, built in a later step.
"""
from __future__ import annotations

import random

from ..text.nlp import DEFAULT_SPACY_MODEL
from ..seq2seq import ModelUnavailable
from .base import OperatorNotApplicable, OperatorResult, Similarity, TextGenerator, make_result
from .hard_negatives import FluentNegativeConfig, fluent_hard_negative
from .reconstruction import NEEDS_GENERATOR

__all__ = ["f9_general_paraphraser", "fe_seq2seq_paraphraser"]


def _generate(generator: TextGenerator, text: str, operator: str) -> str:
    try:
        outputs = generator([text])
    except ModelUnavailable as exc:
        raise OperatorNotApplicable(f"paraphrase model unavailable: {exc}", operator=operator) from exc
    if len(outputs) != 1:
        raise OperatorNotApplicable("the paraphraser returned no output", operator=operator)
    return outputs[0].strip()


def f9_general_paraphraser(
    text: str,
    rng: random.Random,
    *,
    paraphraser: TextGenerator | None = None,
    offline_fallback: bool = True,
    config: FluentNegativeConfig | None = None,
    similarity: Similarity | None = None,
    spacy_model: str = DEFAULT_SPACY_MODEL,
) -> OperatorResult:
    """Negative f9: a general-domain paraphraser's output, or the offline fluent hard negative.

    >>> f9_general_paraphraser("John bought 5 apples.", random.Random(0), offline_fallback=False)
    Traceback (most recent call last):
    ...
    ml.operators.base.OperatorNotApplicable: f9: no general-domain paraphraser configured (pass paraphraser=Seq2SeqGenerator(Seq2SeqConfig(model=...)))
    """
    if paraphraser is not None:
        out = _generate(paraphraser, text, "f9")
        return make_result(text, out, "f9", False, backend=repr(paraphraser))
    if not offline_fallback:
        raise OperatorNotApplicable(
            "no general-domain paraphraser configured (pass paraphraser=Seq2SeqGenerator(Seq2SeqConfig(model=...)))",
            operator="f9")
    return fluent_hard_negative(text, rng, config=config, similarity=similarity, spacy_model=spacy_model,
                                operator="f9")


def fe_seq2seq_paraphraser(text: str, rng: random.Random, *, generator: TextGenerator | None = None) -> OperatorResult:
    """Test negative fe: the platform generator's paraphrase."""
    if generator is None:
        raise OperatorNotApplicable(NEEDS_GENERATOR, operator="fe")
    return make_result(text, _generate(generator, text, "fe"), "fe", False, backend=repr(generator))
