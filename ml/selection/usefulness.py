"""How likely a valid variant is one a teacher would hand out: reworded beyond a single word or a
number written out (GUIDELINES.md: "useful" when "the wording differs enough that a teacher would
hand it out as a variant").

Two features, both on the texts with their numbers, units and symbols written out the same way
(``ml.generation.number_format.write_out``), so that "5" -> "five" or "$20" -> "20 dollars" counts as
no change, which is how labellers read them:

- ``edits``: how many words differ (a word-level diff, replaced, inserted or deleted words counted
  once each), taken as log(1 + edits);
- ``divergence``: 1 - sentence BLEU between the two.

A logistic regression over them gives the probability that a valid variant is labelled useful.
Its weights come from blind labels (the platform's hashed label store and the shared labelled
candidates; ``python benchmarks/usefulness.py`` refits them and reports grouped cross-validated
AUC in ``docs/results/usefulness.md``). Selection multiplies it with the judge's probability of
validity: the expected share of a variant that is both valid and useful.

>>> wording_edits("Maya buys 5 pens.", "Maya buys five pens.")
0
>>> wording_edits("Maya buys 5 pens each day.", "Every day, Maya purchases 5 pens.")
6
>>> useful_probability("Maya buys 5 pens.", "Maya buys five pens.") < 0.05
True
"""
from __future__ import annotations

import difflib
import math
import re
from dataclasses import dataclass
from functools import lru_cache

__all__ = ["USEFULNESS", "UsefulnessModel", "useful_probability", "usefulness_features", "wording_edits"]

_WORD = re.compile(r"\w+|[^\w\s]")


@dataclass(frozen=True)
class UsefulnessModel:
    """Logistic weights over (log(1 + edits), divergence) and where they come from."""

    intercept: float
    edits: float
    divergence: float
    source: str = ""

    def probability(self, features: tuple[float, float]) -> float:
        z = self.intercept + self.edits * features[0] + self.divergence * features[1]
        return 1.0 / (1.0 + math.exp(-z))


# Fitted by `python benchmarks/usefulness.py` (docs/results/usefulness.md): 1158 valid labelled pairs
# (171 shared, 987 blind), grouped 5-fold AUC 0.86. (The earlier fit, on 902 pairs, rated the few-word
# changes labellers call useful, a condition stated apart with the question set as a task, at 0.2.)
USEFULNESS = UsefulnessModel(intercept=-3.66, edits=1.11, divergence=6.02,
                             source="benchmarks/usefulness.py on the label store and the shared labelled candidates")


@lru_cache(maxsize=4096)
def _written(text: str) -> str:
    from ml.generation.number_format import write_out

    return write_out(text).lower()


def _words(text: str) -> list[str]:
    return _WORD.findall(text)


def wording_edits(original: str, variant: str) -> int:
    """Words that differ between the two, numbers and units written out alike."""
    a, b = _words(_written(original)), _words(_written(variant))
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    return sum(max(i2 - i1, j2 - j1) for op, i1, i2, j1, j2 in matcher.get_opcodes() if op != "equal")


def usefulness_features(original: str, variant: str) -> tuple[float, float]:
    """(log(1 + wording edits), 1 - sentence BLEU), both with numbers written out alike."""
    from ml.metrics.bleu import sentence_bleu

    a, b = _written(original), _written(variant)
    return math.log1p(wording_edits(original, variant)), 1.0 - sentence_bleu(b, a)


def useful_probability(original: str, variant: str, model: UsefulnessModel = USEFULNESS) -> float:
    """The probability that ``variant``, if valid, is a variant a teacher would hand out."""
    return model.probability(usefulness_features(original, variant))
