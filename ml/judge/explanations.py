"""Human-readable explanations of the numeracy-aware judge's decisions: the checks behind one
pair (numbers, units, names, foreign words, fluency, length, similarity) and the check that counts
most against it."""
from __future__ import annotations

import math
from typing import Any

from .english import ENGLISH_FEATURE_NAMES, english_reasons
from .features import PairFeatures

__all__ = ["CHECK_OF_FEATURE", "FLUENCY_DROP_FLAG", "explain", "main_objection"]


# The check (as explanations name them) each feature belongs to.
CHECK_OF_FEATURE = {
    "cosine": "similarity", "align_p": "similarity", "align_r": "similarity", "align_f": "similarity",
    "numeracy": "numbers", "numbers_missing": "numbers", "numbers_added": "numbers", "units_kept": "units",
    "entities_kept": "names", "length_ratio": "length", "foreign": "foreign words", "fluency": "fluency",
    "changed_fluency": "fluency", "substitute_fit": "word choice", "domain_terms_lost": "quantity words",
    "broken_joins": "sentences", "longest_sentence": "sentences", "passive_stack": "passive voice",
    "pronoun_agent": "passive voice", "names_added": "new names", "question_lost": "question", "llm": "LLM",
}


def main_objection(contributions: dict[str, float]) -> str | None:
    """The check whose features count most against a pair (None when nothing counts against it).

    >>> main_objection({"fluency": -1.2, "cosine": 0.3, "substitute_fit": -0.4})
    'fluency'
    """
    worst = min(contributions, key=contributions.get, default=None)
    if worst is None or contributions[worst] >= 0:
        return None
    return CHECK_OF_FEATURE.get(worst, worst)


# An explanation flags a candidate whose tokens are on average less than half as probable as the problem's.
FLUENCY_DROP_FLAG = math.log(0.5)


def explain(features: PairFeatures, *, probability: float | None = None, threshold: float = 0.5,
            contributions: dict[str, float] | None = None) -> list[dict[str, Any]]:
    """Human-readable checks of one pair (see :meth:`NumeracyJudge.explain`)."""
    v = features.values
    checks: list[dict[str, Any]] = []
    if features.missing_numbers or features.added_numbers:
        parts = []
        if features.missing_numbers:
            parts.append("number " + ", ".join(features.missing_numbers) + " missing")
        if features.added_numbers:
            parts.append("number " + ", ".join(features.added_numbers) + " added")
        checks.append({"check": "numbers", "passed": False, "detail": "; ".join(parts)})
    else:
        checks.append({"check": "numbers", "passed": True, "detail": "every number kept"})
    if features.missing_units:
        checks.append({"check": "units", "passed": False,
                       "detail": "unit " + ", ".join(repr(u) for u in features.missing_units) + " dropped or changed"})
    else:
        checks.append({"check": "units", "passed": True, "detail": "units kept"})
    if features.missing_entities:
        checks.append({"check": "names", "passed": False,
                       "detail": "name " + ", ".join(repr(n) for n in features.missing_entities) + " replaced or dropped"})
    else:
        checks.append({"check": "names", "passed": True, "detail": "names kept"})
    if features.foreign_words:
        note = "" if features.wordnet else " (WordNet not installed: synonyms not recognised)"
        checks.append({"check": "foreign words", "passed": v["foreign"] <= 0.34,
                       "detail": "words not in the problem: " + ", ".join(features.foreign_words[:8]) + note})
    else:
        checks.append({"check": "foreign words", "passed": True, "detail": "no words foreign to the problem"})
    if features.llm is not None:
        checks.append({"check": "LLM", "passed": features.llm > 0,
                       "detail": f"{features.llm_model} answers {'Yes' if features.llm > 0 else 'No'} to "
                                 f"\"same problem?\" (log-odds {features.llm:+.2f})"})
    if features.fluency_lm is not None:
        per_token = math.exp(v["fluency"])
        checks.append({"check": "fluency", "passed": v["fluency"] > FLUENCY_DROP_FLAG,
                       "detail": "reads as fluently as the problem" if v["fluency"] == 0.0 else
                       f"each token {per_token:.2f}× as probable as in the problem ({features.fluency_lm})"})
    if ENGLISH_FEATURE_NAMES[0] in v:
        checks += english_reasons(v)
    ratio = math.exp(v["length_ratio"])
    checks.append({"check": "length", "passed": ratio <= 1.6,
                   "detail": f"length differs by a factor {ratio:.2f}"})
    checks.append({"check": "similarity", "passed": v["cosine"] > 0.5,
                   "detail": f"encoder cosine {v['cosine']:.3f}, token alignment F1 {v['align_f']:.3f}"})
    if probability is not None:
        checks.append({"check": "decision", "passed": probability > threshold,
                       "detail": f"probability {probability:.3f} vs threshold {threshold:.3f}"})
    if contributions:
        worst = min(contributions, key=contributions.get)
        checks.append({"check": "strongest evidence against", "passed": contributions[worst] >= 0,
                       "detail": f"{worst} ({contributions[worst]:+.2f})"})
    checks.sort(key=lambda c: c["passed"])
    return checks
