"""Sentence BLEU on the 0-1 scale, with fixed and printable sacrebleu settings.

SCANNING's diversity uses 1 - BLEU of the candidate against the original as the only reference
(paper 000, section 3.7.3); self-BLEU uses the same settings with several references. Settings:
sacrebleu's 13a tokenizer (its default, the WMT mteval one), case kept, exponential smoothing
(sacrebleu's default for sentence BLEU: an n-gram order with no match counts as 1/2^k of the
hypothesis' n-grams for the k-th such order, so one missing 4-gram does not zero the score) and
effective order (orders longer than the hypothesis are left out, so a short text is not zeroed).

>>> sentence_bleu("A train covers 300 km in 5 hours.", "A train covers 300 km in 5 hours.")
1.0
>>> round(sentence_bleu("A train runs 300 km in 5 hours.", "A train covers 300 km in 5 hours."), 3)
0.661
"""
from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # sacrebleu costs ~0.1 s to import: loaded on first use
    from sacrebleu.metrics import BLEU

__all__ = ["BLEU_SETTINGS", "sentence_bleu"]

BLEU_TOKENIZER = "13a"
BLEU_SMOOTHING = "exp"
BLEU_SETTINGS = (
    f"sacrebleu sentence BLEU / 100, tokenize={BLEU_TOKENIZER}, smooth={BLEU_SMOOTHING}, "
    "effective_order=True, lowercase=False; candidate and reference equal up to surrounding "
    "whitespace -> 1.0"
)


@lru_cache(maxsize=1)
def _metric() -> BLEU:
    from sacrebleu.metrics import BLEU

    # sentence_score keeps no state between calls, so one object serves every caller.
    return BLEU(tokenize=BLEU_TOKENIZER, smooth_method=BLEU_SMOOTHING, effective_order=True, lowercase=False)


def bleu_against(candidate: str, references: Sequence[str]) -> float:
    """Sentence BLEU (0-1) of ``candidate`` against several references (``BLEU_SETTINGS``).

    >>> bleu_against("a b c d", ["x y", "a b c d"])
    1.0
    """
    if not references:
        raise ValueError("bleu_against needs at least one reference")
    stripped = candidate.strip()
    # A copy scores exactly 1: sacrebleu returns 100.00000000000004, and 0 for two empty texts.
    if any(stripped == reference.strip() for reference in references):
        return 1.0
    score = _metric().sentence_score(candidate, list(references)).score / 100.0
    return min(1.0, max(0.0, score))


def sentence_bleu(candidate: str, reference: str) -> float:
    """Sentence BLEU (0-1) of ``candidate`` against the single ``reference`` (``BLEU_SETTINGS``).

    >>> sentence_bleu("x y", "a b c")
    0.0
    """
    return bleu_against(candidate, [reference])
