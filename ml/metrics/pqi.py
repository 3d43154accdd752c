"""SCANNING's paraphrase scores (paper 000, section 3.7 and appendix D), all against the original x.

- similarity sigma = (cos_ParaQD(x, y) + 1) / 2 (D.1);
- numeracy nu = (|N_x & N_y| / max(|N_x|, |N_y|))^p, p = 3 (3.7.2, D.2), over multisets of number
  *values*, so "2.5", "two point five" and "5/2" are one number;
- diversity delta = 0.6 (1 - BLEU) + 0.4 WPD (3.7.3 and E.2; BLEU: :data:`BLEU_SETTINGS`, WPD:
  :mod:`ml.metrics.wpd`);
- PQI = sigma^0.5 * delta^0.25 * nu^0.25, the weighted geometric mean with the weights of E.3.
  Section 3.7.4 prints exp(sum of logs), the plain product; Table 2 fits the weighted form
  (PAP on AquaRAT: 0.98^0.5 * 0.29^0.25 * 1^0.25 = 0.726, reported 0.72; METHODS.md, Misreading 2).

A copy of the original gets delta = 0 and so PQI = 0, the case the geometric mean exists for.

>>> s = paraphrase_scores("A train covers 300 km in 5 hours.", "In five hours, a train covers 300 km.",
...                       cosine=0.96)
>>> {k: round(v, 3) for k, v in s.items()}
{'S': 0.98, 'D': 0.63, 'N': 1.0, 'PQI': 0.882, 'bleu_div': 0.709, 'wpd': 0.51, 'paraqd': 0.96}
"""
from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from fractions import Fraction
from functools import lru_cache
from typing import NamedTuple

from ..text.nlp import DEFAULT_SPACY_MODEL
from ..text.number_mentions import number_signature
from .bleu import BLEU_SETTINGS, sentence_bleu
from .wpd import WPD_SETTINGS, cache_lemmas, word_position_deviation, wpd

__all__ = [
    "BLEU_SETTINGS",
    "DIVERSITY_WEIGHTS",
    "NUMERACY_POWER",
    "PQI_WEIGHTS",
    "SCORE_KEYS",
    "WPD_SETTINGS",
    "DiversityParts",
    "diversity",
    "diversity_parts",
    "numeracy",
    "pair_diversity",
    "paraphrase_scores",
    "paraphrase_scores_many",
    "pqi",
    "sentence_bleu",
    "sigma",
    "word_position_deviation",
    "wpd",
]

NUMERACY_POWER = 3.0  # p of D.2: one number lost out of three leaves (2/3)^3 = 0.30
DIVERSITY_WEIGHTS = (0.6, 0.4)  # (1 - BLEU, WPD), E.2
PQI_WEIGHTS = (0.5, 0.25, 0.25)  # (sigma, delta, nu), E.3
SCORE_KEYS = ("S", "D", "N", "PQI", "bleu_div", "wpd", "paraqd")


def sigma(cosine: float) -> float:
    """Similarity from a ParaQD cosine: (cos + 1) / 2, clipped to [0, 1].

    >>> sigma(0.96), sigma(-1.0), sigma(1.0000001)
    (0.98, 0.0, 1.0)
    """
    if math.isnan(cosine):
        raise ValueError("cosine is NaN")
    return min(1.0, max(0.0, (cosine + 1.0) / 2.0))


@lru_cache(maxsize=8192)
def _numbers(text: str) -> Counter[Fraction]:
    # Cached because the original is compared with every candidate; callers must not mutate it.
    return number_signature(text)


def numeracy(original: str, candidate: str, *, p: float = NUMERACY_POWER) -> float:
    """nu = (|N_x & N_y| / max(|N_x|, |N_y|))^p over multisets of number values (digits and
    number words, as :func:`ml.text.number_mentions.number_signature` reads them: "1,350" = "1350",
    "$4.50" = "4.50 dollars", "3/4" = "0.75", "25%" = "25 percent"; ordinals are not numbers).
    1.0 when neither text has a number, 0.0 when only one has.

    >>> numeracy("Tom has 3 red and 4 blue pens.", "Tom has three red pens and four blue ones.")
    1.0
    >>> round(numeracy("Add 2, 3 and 5.", "Add 2 and 3."), 4)  # (2/3)^3
    0.2963
    """
    if not p > 0:
        raise ValueError(f"p must be > 0, got {p}")
    numbers_x, numbers_y = _numbers(original), _numbers(candidate)
    size = max(sum(numbers_x.values()), sum(numbers_y.values()))
    if size == 0:
        return 1.0
    shared = sum((numbers_x & numbers_y).values())
    return (shared / size) ** p


class DiversityParts(NamedTuple):
    """The parts of delta: ``bleu`` (0-1), ``bleu_div`` = 1 - bleu, ``wpd``, and ``delta``."""

    bleu: float
    bleu_div: float
    wpd: float
    delta: float


def diversity_parts(original: str, candidate: str, *, spacy_model: str = DEFAULT_SPACY_MODEL) -> DiversityParts:
    """BLEU of ``candidate`` against ``original``, WPD between them, and delta = 0.6 (1 - BLEU) + 0.4 WPD.

    >>> diversity_parts("Tom has 5 apples.", " Tom has 5 apples.")
    DiversityParts(bleu=1.0, bleu_div=0.0, wpd=0.0, delta=0.0)
    """
    if original.strip() == candidate.strip():
        return DiversityParts(1.0, 0.0, 0.0, 0.0)
    bleu = sentence_bleu(candidate, original)
    deviation = wpd(original, candidate, spacy_model=spacy_model)
    w_bleu, w_wpd = DIVERSITY_WEIGHTS
    delta = min(1.0, w_bleu * (1.0 - bleu) + w_wpd * deviation)
    return DiversityParts(bleu, 1.0 - bleu, deviation, delta)


def diversity(original: str, candidate: str, *, spacy_model: str = DEFAULT_SPACY_MODEL) -> float:
    """delta = 0.6 (1 - BLEU) + 0.4 WPD of ``candidate`` against ``original``, in [0, 1].

    >>> round(diversity("Tom has 5 apples.", "5 apples, Tom has."), 3)  # BLEU 0.243, WPD 2/3
    0.721
    """
    return diversity_parts(original, candidate, spacy_model=spacy_model).delta


def pair_diversity(a: str, b: str, *, spacy_model: str = DEFAULT_SPACY_MODEL) -> float:
    """delta between two candidates, ``a`` in the original's (reference) role, so PAMMR's
    min over selected s of delta(p, s) is ``min(pair_diversity(p, s) for s in selected)``.
    Lemmas are cached per text, so the O(n^2) calls of a selection parse each text once.

    >>> pair_diversity("Tom has 5 apples.", "Tom has 5 apples.")
    0.0
    """
    return diversity(a, b, spacy_model=spacy_model)


def pqi(sigma: float, delta: float, nu: float) -> float:
    """PQI = sigma^0.5 * delta^0.25 * nu^0.25 (weighted geometric mean, weights of E.3); 0 when
    any part is 0.

    >>> round(pqi(0.98, 0.29, 1.0), 3)  # Table 2, PAP on AquaRAT, reported 0.72
    0.726
    >>> pqi(1.0, 0.0, 1.0)  # a copy
    0.0
    """
    parts = (sigma, delta, nu)
    for name, value in zip(("sigma", "delta", "nu"), parts):
        if not 0.0 <= value <= 1.0:
            raise ValueError(f"{name} must be in [0, 1], got {value}")
    if min(parts) == 0.0:
        return 0.0
    w_sigma, w_delta, w_nu = PQI_WEIGHTS
    return sigma**w_sigma * delta**w_delta * nu**w_nu


def paraphrase_scores(
    original: str, candidate: str, *, cosine: float, spacy_model: str = DEFAULT_SPACY_MODEL
) -> dict[str, float]:
    """All scores of ``candidate`` against ``original`` given their ParaQD ``cosine``, keyed
    :data:`SCORE_KEYS`: "S" sigma, "D" delta, "N" nu, "PQI", "bleu_div" 1 - BLEU, "wpd", "paraqd"
    the cosine itself.

    >>> s = paraphrase_scores("Tom has 5 apples.", "Tom has 5 apples.", cosine=1.0)
    >>> s["D"], s["PQI"], s["S"], s["N"]
    (0.0, 0.0, 1.0, 1.0)
    """
    similarity = sigma(cosine)
    parts = diversity_parts(original, candidate, spacy_model=spacy_model)
    nu = numeracy(original, candidate)
    return {
        "S": similarity,
        "D": parts.delta,
        "N": nu,
        "PQI": pqi(similarity, parts.delta, nu),
        "bleu_div": parts.bleu_div,
        "wpd": parts.wpd,
        "paraqd": float(cosine),
    }


def paraphrase_scores_many(
    original: str, candidates: Sequence[str], cosines: Sequence[float], *, spacy_model: str = DEFAULT_SPACY_MODEL
) -> list[dict[str, float]]:
    """:func:`paraphrase_scores` of each candidate, lemmatising all texts in one spaCy batch.

    >>> [s["PQI"] for s in paraphrase_scores_many("Tom has 5 apples.", ["Tom has 5 apples."], [0.9])]
    [0.0]
    """
    if len(candidates) != len(cosines):
        raise ValueError(f"{len(candidates)} candidates but {len(cosines)} cosines")
    cache_lemmas([original, *candidates], spacy_model=spacy_model)
    return [
        paraphrase_scores(original, candidate, cosine=cosine, spacy_model=spacy_model)
        for candidate, cosine in zip(candidates, cosines)
    ]
