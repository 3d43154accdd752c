"""f6: last-sentence deletion (ParaQD 3.3): the last sentence goes; a one-sentence text loses
its last three tokens (paraphrasers such as Pegasus drop the end of a question).
"""
from __future__ import annotations

import random

from ..text.nlp import DEFAULT_SPACY_MODEL, sentence_spans
from .base import OperatorNotApplicable, OperatorResult, make_result

__all__ = ["f6_last_sentence_deletion"]

_TAIL_TOKENS = 3


def f6_last_sentence_deletion(
    text: str, rng: random.Random, *, spacy_model: str = DEFAULT_SPACY_MODEL
) -> OperatorResult:
    """Negative f6.

    >>> f6_last_sentence_deletion("A train covers 300 km in 5 hours. What is its speed?", random.Random(0)).text
    'A train covers 300 km in 5 hours.'
    >>> f6_last_sentence_deletion("What is the value of k?", random.Random(0)).text
    'What is the'
    """
    spans = sentence_spans(text, spacy_model)
    if len(spans) > 1:
        out = text[:spans[-1].start].rstrip()
        return make_result(text, out, "f6", False, deleted=spans[-1].text, mode="sentence")
    tokens = text.split()  # whitespace tokens: "value of k?" are the last three
    if len(tokens) <= _TAIL_TOKENS:
        raise OperatorNotApplicable(f"one sentence of {len(tokens)} tokens: nothing would remain", operator="f6")
    out = " ".join(tokens[:-_TAIL_TOKENS])
    return make_result(text, out, "f6", False, deleted=" ".join(tokens[-_TAIL_TOKENS:]), mode="tokens")
