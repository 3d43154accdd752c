"""The question asked another way: "What is the X?" <-> "Find the X." (also "What was/will be …",
"Calculate/Determine the X", "its/their/his/her X", after a leading "If …, " clause). Only the
problem's last sentence changes, and only when it is exactly one of these forms, so the facts,
numbers and the asked quantity stay word for word; the verb agrees with the asked noun ("What are
the two numbers?").

Most word problems end in such a question, including the one-sentence ones the structural rules
cannot rewrite; this is what gives them a variant.

>>> rewrite_question("A train covers 300 km in 5 hours. What is its speed?")
'A train covers 300 km in 5 hours. Find its speed.'
>>> rewrite_question("If the sum is 12, find the two numbers.")
'If the sum is 12, what are the two numbers?'
>>> rewrite_question("How many apples are left?") is None
True
"""
from __future__ import annotations

import random
import re
from dataclasses import dataclass

from ..text.nlp import DEFAULT_SPACY_MODEL, parse, sentence_spans
from .base import GeneratedCandidate, GenerationResources, one_rewrite

__all__ = [
    "ConditionMovedGenerator", "LastSentenceRule", "QuestionFormGenerator", "is_what_question", "move_condition",
    "rewrite_last_sentence", "rewrite_question",
]

_PRE = r"(?P<pre>(?:If [^?]+?, )?(?:(?:Then|then|Therefore|therefore|So|so|Hence|hence),? )?)"
_DET = r"(?P<det>the|its|their|his|her)"
_WHAT = re.compile(rf"^{_PRE}[Ww]hat (?P<verb>is|was|will be|are|were) {_DET} (?P<np>[^?]+?)\s*\?$")
_FIND = re.compile(rf"^{_PRE}(?P<verb>[Ff]ind|[Cc]alculate|[Dd]etermine) {_DET} (?P<np>[^?.!]+?)\s*[.?]$")
# The asked phrase must be a noun phrase: a finite verb of its own at the end ("… of the car is")
# or a second question in it means the sentence is not the simple form this rule rewrites.
_BAD_NP = re.compile(r"\b(is|are|was|were|be)\s*$|\b(what|how|which|who|when|whom)\b", re.I)


def is_what_question(sentence: str) -> bool:
    """Whether ``sentence`` is the "What is the X?" form this module's ``question_form`` rewrites."""
    return _WHAT.match(sentence.strip()) is not None


def _plural(phrase: str, spacy_model: str) -> bool:
    """Whether the head noun of ``phrase`` (the first noun chunk's root) is plural."""
    doc = parse(f"the {phrase}", spacy_model)
    chunks = list(doc.noun_chunks)
    head = chunks[0].root if chunks else None
    return head is not None and head.tag_ in ("NNS", "NNPS")


def _start(sentence: str, pre: str | None) -> str:
    """A clause that starts the sentence, capitalised; after an "If …, " clause, lower-case."""
    return (pre or "") + (sentence if pre else sentence[:1].upper() + sentence[1:])


# A sentence end spaCy's small model misses: after a one-letter name ("… than B. How much …") or
# before a quote; not after a title or an abbreviation that takes a name or number after it.
_MISSED_END = re.compile(r"(?P<word>\b\w+)[.!?][\"']?\s+(?=[\"']?[A-Z])")
_NOT_AN_END = {"mr", "mrs", "ms", "dr", "st", "rs", "no", "vs", "jr", "sr", "prof", "re", "inc", "ltd", "co"}
# What may follow the question without being part of it: a parenthetical note ("(1 centimeter =
# 0.01 meter)", "(Children could get 0 candies)").
_TRAILING_NOTE = re.compile(r"\s*\([^()]*\)\s*\.?\s*")


def last_sentence_span(text: str, spacy_model: str) -> tuple[int, int] | None:
    """Character span of the problem's last sentence, leaving out a trailing parenthetical note and
    splitting where spaCy missed a sentence end; None for an empty text."""
    spans = sentence_spans(text, spacy_model)
    while len(spans) > 1 and _TRAILING_NOTE.fullmatch(text[spans[-1].start:spans[-1].end]):
        spans = spans[:-1]
    if not spans:
        return None
    start, end = spans[-1].start, spans[-1].end
    for match in _MISSED_END.finditer(text, start, end):
        if match["word"].lower() not in _NOT_AN_END and match.end() < end:
            start = match.end()
    while start < end and text[start] in "\"' \n\t":
        start += 1
    return start, end


def rewrite_last_sentence(text: str, spacy_model: str, rewrite) -> str | None:
    """``text`` with its last sentence (:func:`last_sentence_span`) replaced by ``rewrite(sentence,
    text_before)``; None when that says None."""
    span = last_sentence_span(text, spacy_model)
    if span is None:
        return None
    start, end = span
    asked = rewrite(text[start:end], text[:start])
    return None if asked is None else text[:start] + asked + text[end:]


def _ask_the_other_way(sentence: str, before: str, spacy_model: str) -> str | None:
    if match := _WHAT.match(sentence):
        det, np = match["det"], match["np"]
        if _BAD_NP.search(np):
            return None
        return _start(f"find {det} {np}.", match["pre"])
    if match := _FIND.match(sentence):
        det, np = match["det"], match["np"]
        if _BAD_NP.search(np):
            return None
        verb = "are" if _plural(np, spacy_model) else "is"
        return _start(f"what {verb} {det} {np}?", match["pre"])
    return None


def rewrite_question(text: str, *, spacy_model: str = DEFAULT_SPACY_MODEL) -> str | None:
    """``text`` with its last sentence asked the other way, or None when that sentence is not a
    "What is the X?" / "Find the X." question."""
    return rewrite_last_sentence(text, spacy_model, lambda s, before: _ask_the_other_way(s, before, spacy_model))


class LastSentenceRule:
    """A rule generator that rewrites the problem's last sentence (``rewrite``) or refuses with
    ``refusal``; the rewrite must keep every number, unit and name."""

    name: str
    kind: str = "rule"
    refusal: str = ""

    def rewrite(self, text: str, spacy_model: str) -> str | None:
        raise NotImplementedError

    def unavailable_reason(self, resources: GenerationResources) -> str | None:
        return None

    def generate(self, text: str, rng: random.Random, resources: GenerationResources) -> list[GeneratedCandidate]:
        rewritten = self.rewrite(text, resources.spacy_model)
        return one_rewrite(text, text if rewritten is None else rewritten, generator=self.name, prompt="question",
                           refusal=self.refusal, spacy_model=resources.spacy_model)


@dataclass(frozen=True)
class QuestionFormGenerator(LastSentenceRule):
    """The problem with its question asked the other way ("What is the X?" <-> "Find the X.")."""

    name: str = "question_form"
    description: str = "The question asked another way: 'What is the X?' becomes 'Find the X.' and back"
    kind: str = "rule"
    refusal: str = "the question is not a 'What is the …?' or 'Find the ….' sentence"

    def rewrite(self, text: str, spacy_model: str) -> str | None:
        return rewrite_question(text, spacy_model=spacy_model)


# "If A, (then) what/how … ?": the condition and the question, split at the first comma that is
# followed by the question (a comma inside the condition is followed by more of it).
_CONDITION_FIRST = re.compile(
    r"^If (?P<cond>[^?]+?), (?:then )?(?P<main>(?:what|how|which|who|whom|whose|when|where|find|calculate|determine)"
    r"\b[^?]*?)\s*(?P<end>[?.])$", re.I)


# Words of the question that may point to something only the condition introduces; once the question
# comes first they would point forward ("What is its volume if a box …?", "How many does she need
# if Jill …?"), so a question holding one keeps its condition first (labelled failures).
_POINTING_TAGS = {"PRP", "PRP$"}
_POINTING_WORDS = {"this", "that", "these", "those", "such", "so", "other"}


def _points_forward(main: str, cond: str, before: str, spacy_model: str) -> bool:
    """Whether the question, put first, would point to something only the condition introduces:
    it holds a pronoun or pointing word and the condition brings in something new (an indefinite
    noun phrase, or a name the text has not used before)."""
    if not any(t.tag_ in _POINTING_TAGS or t.lower_ in _POINTING_WORDS for t in parse(main, spacy_model)):
        return False
    doc = parse(cond, spacy_model)
    return any(t.lower_ in ("a", "an") for t in doc) or any(
        t.pos_ == "PROPN" and t.text not in before for t in doc)


def move_condition(text: str, *, spacy_model: str = DEFAULT_SPACY_MODEL) -> str | None:
    """``text`` with its last sentence's leading condition moved after the question ("If A, how
    many …?" -> "How many … if A?"), or None when that sentence is not of that form, when the
    question would point forward to what the condition introduces ("What is its volume if a box
    …?"), or when either part already holds an "if" (two stacked conditions).

    >>> move_condition("Tom has 5 pens. If he buys 3 more, how many pens does he have?")
    'Tom has 5 pens. How many pens does he have if he buys 3 more?'
    """
    return rewrite_last_sentence(text, spacy_model, lambda s, before: _condition_last(s, before, spacy_model))


def _condition_last(sentence: str, before: str, spacy_model: str) -> str | None:
    match = _CONDITION_FIRST.match(sentence)
    if match is None:
        return None
    main, cond = match["main"], match["cond"]
    if _points_forward(main, cond, before, spacy_model) or re.search(r"\bif\b", main + " " + cond, re.I):
        return None
    if re.search(r"\bthen\b", main, re.I):
        return None  # "If A, where z > 5, then … what is …?": the question starts later (labelled broken)
    return f"{main[:1].upper()}{main[1:]} if {cond}{match['end']}"


@dataclass(frozen=True)
class ConditionMovedGenerator(LastSentenceRule):
    """The problem with its question's leading condition moved after it ("If A, how many …?" ->
    "How many … if A?")."""

    name: str = "condition_moved"
    description: str = "The question's condition moved after it: 'If A, how many …?' becomes 'How many … if A?'"
    kind: str = "rule"
    refusal: str = "the question does not open with an 'If …,' condition"

    def rewrite(self, text: str, spacy_model: str) -> str | None:
        return move_condition(text, spacy_model=spacy_model)
