"""Diversity of a set of texts: distinct-n (DiPS, paper 003, section 5) and self-BLEU (paper 004,
after Zhu et al. 2018, Texygen).

distinct-n is the number of distinct n-grams over the whole set divided by the number of
n-grams the set holds (the paper scales the count "by the number of generated tokens"; dividing
by n-grams keeps each order in [0, 1]). Tokens: lower-cased words and single punctuation marks;
a number keeps its inner ".", "," or "/" ("2.5", "1,350", "3/4") and a word its apostrophe.
n-grams do not cross from one text to the next.

self-BLEU is the mean over texts of the sentence BLEU of each text against all the others as
references, on the 0-1 scale, with :data:`ml.metrics.bleu.BLEU_SETTINGS`; lower is more diverse.

>>> distinct(["the cat sat", "the dog sat"], max_n=2)
{'distinct-1': 0.6666666666666666, 'distinct-2': 1.0}
>>> self_bleu(["What is the speed?", "What is the speed?"])
1.0
"""
from __future__ import annotations

import re
from collections.abc import Sequence

from .bleu import bleu_against

__all__ = ["distinct", "distinct_n", "self_bleu", "set_tokens"]

_TOKEN = re.compile(r"\w+(?:[.,'/]\w+)*|[^\w\s]")


def set_tokens(text: str) -> list[str]:
    """The tokens distinct-n counts: lower-cased words (numbers whole) and punctuation marks.

    >>> set_tokens("Tom's car covers 1,350 km in 2.5 hours.")
    ["tom's", 'car', 'covers', '1,350', 'km', 'in', '2.5', 'hours', '.']
    """
    return _TOKEN.findall(text.lower())


def distinct_n(texts: Sequence[str], n: int) -> float:
    """Distinct n-grams over the set / n-grams in the set; 0.0 when the set has no n-gram.

    >>> distinct_n(["a b a b"], 2)  # "a b", "b a", "a b": 2 distinct of 3
    0.6666666666666666
    """
    if n < 1:
        raise ValueError(f"n must be >= 1, got {n}")
    seen: set[tuple[str, ...]] = set()
    total = 0
    for text in texts:
        tokens = set_tokens(text)
        grams = [tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1)]
        total += len(grams)
        seen.update(grams)
    return len(seen) / total if total else 0.0


def distinct(texts: Sequence[str], max_n: int = 4) -> dict[str, float]:
    """``{"distinct-1": ..., "distinct-<max_n>": ...}`` of the set (:func:`distinct_n`).

    >>> distinct([], max_n=1)
    {'distinct-1': 0.0}
    """
    if max_n < 1:
        raise ValueError(f"max_n must be >= 1, got {max_n}")
    return {f"distinct-{n}": distinct_n(texts, n) for n in range(1, max_n + 1)}


def self_bleu(texts: Sequence[str]) -> float:
    """Mean sentence BLEU (0-1) of each text against all the others as references; 0.0 for
    fewer than two texts (no reference to compare with). A text equal to another scores 1.

    >>> self_bleu(["Tom has five apples.", "How fast does the train go?"])
    0.0
    """
    if len(texts) < 2:
        return 0.0
    scores = [bleu_against(text, [*texts[:i], *texts[i + 1 :]]) for i, text in enumerate(texts)]
    return sum(scores) / len(scores)
