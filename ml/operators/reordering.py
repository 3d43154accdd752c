"""Problem reordering: the facts become a "Given that ..." clause of the question.

A valid, structure-changing positive (paper 002's problem reordering).

>>> given_that_reorder("A train covers 300 km in 5 hours. What is its speed?", random.Random(0)).text
'Given that a train covers 300 km in 5 hours, what is its speed?'
"""
from __future__ import annotations

import random
import re
from dataclasses import dataclass
from typing import Literal

from ..nlp import DEFAULT_SPACY_MODEL, capitalized_elsewhere, keeps_capital, parse, sentence_spans
from .base import OperatorNotApplicable, OperatorResult, make_result, tidy_spacing
from .preservation import require_preserved

__all__ = ["ReorderConfig", "given_that_reorder"]

_QUESTION_START = re.compile(
    r"^(what|how|which|who|whom|whose|when|where|why|find|calculate|compute|determine|estimate|evaluate|"
    r"solve|express|give|state|work out)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class ReorderConfig:
    """style: "given_first" -> "Given that <facts>, <question>?";
    "question_first" -> "<Question>, given that <facts>?"; "random" picks one with the rng."""

    style: Literal["given_first", "question_first", "random"] = "given_first"

    def __post_init__(self) -> None:
        if self.style not in ("given_first", "question_first", "random"):
            raise ValueError(f"unknown reordering style {self.style!r}")


def _is_question(sentence: str) -> bool:
    return sentence.rstrip().endswith("?") or bool(_QUESTION_START.match(sentence.strip()))


def _decapitalize(sentence: str, spacy_model: str, context: str) -> str:
    """Lower-case the first letter unless the first word is a name, "I", an acronym or a
    one-letter variable ("A and B ...")."""
    doc = parse(sentence, spacy_model)
    first = next((t for t in doc if not t.is_punct), None)
    if first is None:
        return sentence
    if keeps_capital(first) or capitalized_elsewhere(first.text, context):
        return sentence
    return sentence[:first.idx] + sentence[first.idx].lower() + sentence[first.idx + 1:]


def _strip_end(sentence: str) -> str:
    return sentence.strip().rstrip(".;:!").rstrip()


def _join_facts(facts: list[str]) -> str:
    if len(facts) == 1:
        return facts[0]
    return ", that ".join(facts[:-1]) + " and that " + facts[-1]


def given_that_reorder(
    text: str, rng: random.Random, *, config: ReorderConfig | None = None, spacy_model: str = DEFAULT_SPACY_MODEL
) -> OperatorResult:
    """Structural positive: "Given that <facts>, <question>?" (or the question first)."""
    config = config or ReorderConfig()
    spans = sentence_spans(text, spacy_model)
    questions = [i for i, s in enumerate(spans) if _is_question(s.text)]
    if len(spans) < 2 or not questions:
        raise OperatorNotApplicable("needs at least one statement and a question sentence", operator="given_that")
    q = questions[-1]
    facts = [s.text for i, s in enumerate(spans) if i != q]
    if any(f.rstrip().endswith("?") for f in facts):
        raise OperatorNotApplicable("more than one question", operator="given_that")
    fact_clause = _join_facts([_decapitalize(_strip_end(f), spacy_model, text) for f in facts])
    question = spans[q].text.strip()
    end = question[-1] if question[-1] in ".?!" else "."
    body = question[:-1].rstrip() if question[-1] in ".?!" else question
    style = config.style if config.style != "random" else rng.choice(["given_first", "question_first"])
    if style == "given_first":
        out = f"Given that {fact_clause}, {_decapitalize(body, spacy_model, text)}{end}"
    else:
        out = f"{body}, given that {fact_clause}{end}"
    out = tidy_spacing(out)
    require_preserved(text, out, operator="given_that", spacy_model=spacy_model)
    return make_result(text, out, "given_that", True, style=style, question_sentence=q)
