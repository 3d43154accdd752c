"""f1: backtranslation, English -> German -> English per sentence (ParaQD 3.2).

A real transformers path (MarianMT by default, see :mod:`ml.seq2seq`); without a configured
model, or when the configured one is not on disk, the operator refuses with the reason.

>>> f1_backtranslation("A train covers 300 km.", random.Random(0))
Traceback (most recent call last):
...
ml.operators.base.OperatorNotApplicable: f1: no backtranslation model configured (pass backtranslator=Backtranslator(BacktranslationConfig(...)))
"""
from __future__ import annotations

import random

from ..text.nlp import DEFAULT_SPACY_MODEL, sentences
from ..text.number_mentions import number_signature
from ..seq2seq import ModelUnavailable
from .base import OperatorNotApplicable, OperatorResult, TextGenerator, make_result

__all__ = ["f1_backtranslation"]


def f1_backtranslation(
    text: str,
    rng: random.Random,
    *,
    backtranslator: TextGenerator | None = None,
    spacy_model: str = DEFAULT_SPACY_MODEL,
    require_numbers: bool = True,
) -> OperatorResult:
    """Positive f1: each sentence translated to the pivot language and back, then joined.

    ``require_numbers`` refuses a round trip that changed a number ("0.6" -> "0,6"), which
    would make the "valid" label wrong.
    """
    if backtranslator is None:
        raise OperatorNotApplicable(
            "no backtranslation model configured (pass backtranslator=Backtranslator(BacktranslationConfig(...)))",
            operator="f1",
        )
    parts = sentences(text, spacy_model)
    if not parts:
        raise OperatorNotApplicable("no sentence to translate", operator="f1")
    try:
        translated = backtranslator(parts)
    except ModelUnavailable as exc:
        raise OperatorNotApplicable(f"backtranslation model unavailable: {exc}", operator="f1") from exc
    if len(translated) != len(parts):
        raise OperatorNotApplicable("the backtranslator returned a different number of sentences", operator="f1")
    out = " ".join(t.strip() for t in translated if t.strip())
    if require_numbers and number_signature(out) != number_signature(text):
        raise OperatorNotApplicable("the round trip changed a number", operator="f1")
    return make_result(text, out, "f1", True, backend=repr(backtranslator), sentences=len(parts))
