"""Problem reordering (paper 002, §3.3.1): the facts and the question change places, joined by a
filler ("Given that …, how many …?", "If … and …, then how many …?", "How many …, given that …?").

When the question moves before the facts, its pronouns would come before their antecedents
("How many apples does she have, given that Maya had 5 apples …?"), so each one is replaced by
the person (or thing) it refers to: the most recent compatible person of the facts, with a
possessive for "his"/"her"/"its" (the paper's NER + co-reference step).

>>> text = "Maya had 5 apples. She ate 2 of them. How many apples does she have left?"
>>> resolve_question_pronouns(text)[0]
'Maya had 5 apples. She ate 2 of them. How many apples does Maya have left?'
"""
from __future__ import annotations

import random
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..text.nlp import DEFAULT_SPACY_MODEL, parse, sentence_spans
from ..operators.base import OperatorResult, replace_spans
from ..operators.reordering import ReorderConfig, given_that_reorder
from .base import GeneratedCandidate, GenerationResources, NotApplicable, candidates_or_refuse, require_same_problem
from .names import PRONOUN_GENDER, antecedent, person_genders, person_mentions

if TYPE_CHECKING:
    from spacy.tokens import Token

__all__ = ["ReorderGenerator", "resolve_question_pronouns"]

_POSSESSIVE_PRONOUNS = {"his", "hers", "its"}
# Verbs whose "it" is usually a dummy subject ("How long does it take?", "What is it?").
_DUMMY_IT_VERBS = {"be", "take", "cost", "rain", "seem", "mean", "matter"}
_DETERMINERS = {"a", "an", "the", "this", "that"}


def _is_possessive(token: Token) -> bool:
    return token.lower_ in _POSSESSIVE_PRONOUNS or token.tag_ == "PRP$"


def _thing_antecedent(text: str, facts_end: int, spacy_model: str) -> str | None:
    """"the train" for "A train travels 300 km …": the singular common-noun subject of the last
    fact that has one, made definite; None when there is none or it is not a plain phrase."""
    doc = parse(text, spacy_model)
    for sent in reversed([s for s in doc.sents if s.end_char <= facts_end]):
        subjects = [t for t in sent.root.children if t.dep_ in ("nsubj", "nsubjpass")]
        if len(subjects) != 1:
            continue
        subject = subjects[0]
        if subject.dep_ == "nsubjpass":
            return None  # "a port is being left by a ship": the thing the facts are about is the agent
        if subject.tag_ != "NN" or subject.ent_type_:
            continue
        words = list(doc[subject.left_edge.i:subject.i + 1])
        if any(not t.is_alpha for t in words) or any(t.dep_ not in ("det", "amod", "compound") for t in words[:-1]):
            continue
        if words[0].lower_ in _DETERMINERS:
            words = words[1:]
        elif words[0].dep_ == "det":
            continue  # "every train", "some train": no definite reading
        return "the " + " ".join(t.lower_ if not t.ent_type_ else t.text for t in words)
    return None


def resolve_question_pronouns(
    text: str, spacy_model: str = DEFAULT_SPACY_MODEL
) -> tuple[str, list[dict[str, str]]]:
    """``text`` with the pronouns of its last question replaced by what they refer to in the
    sentences before it, and the replacements made (``{"pronoun", "replacement"}``).

    he/him/his and she/her/hers take the most recent person of the facts who is not of the other
    gender (as the text's pronouns or, failing them, the name tell); "its" and a subject "it"
    take the facts' last singular subject ("the train"). Pronouns with a person named earlier in
    the question itself are left alone.
    """
    spans = sentence_spans(text, spacy_model)
    questions = [s for s in spans if s.text.rstrip().endswith("?")]
    if not questions or questions[-1] is spans[0]:
        return text, []
    question = questions[-1]
    persons = person_mentions(text, spacy_model)
    before = [p for p in persons if p.end <= question.start]
    genders = person_genders(text, spacy_model)
    doc = parse(text, spacy_model)
    edits, changes = [], []
    thing: str | None | bool = False  # computed on first use
    for token in doc:
        if token.idx < question.start or token.idx >= question.end or token.pos_ != "PRON":
            continue
        word = token.lower_
        if word in ("himself", "herself"):
            continue
        replacement = None
        if word in PRONOUN_GENDER:
            if any(question.start <= p.start < token.idx for p in persons):
                continue  # "How many does Maya have if she …": already resolved in the question
            gender = PRONOUN_GENDER[word]
            person = antecedent(gender, before, genders)
            if person is None:
                continue
            replacement = person.text + ("'s" if _is_possessive(token) or word == "hers" else "")
        elif word in ("it", "its"):
            if word == "it" and (token.dep_ != "nsubj" or token.head.lemma_ in _DUMMY_IT_VERBS):
                continue
            if thing is False:
                thing = _thing_antecedent(text, question.start, spacy_model)
            if not thing:
                continue
            replacement = str(thing) + ("'s" if word == "its" else "")
        if replacement is None:
            continue
        if token.text[:1].isupper():
            replacement = replacement[:1].upper() + replacement[1:]
        edits.append((token.idx, token.idx + len(token.text), replacement))
        changes.append({"pronoun": token.text, "replacement": replacement})
    return replace_spans(text, edits), changes


def _if_then(given_first: OperatorResult, text: str, spacy_model: str) -> str | None:
    """"If <facts>, then <question>?" from given_that_reorder's "Given that <facts>, <question>?"
    (the facts joined by ", that"/"and that" become ", "/"and"); None when the question or a fact
    is itself conditional, or the output does not have the expected shape."""
    full = given_first.text
    spans = sentence_spans(text, spacy_model)
    index = given_first.meta.get("question_sentence")
    start = full.find("Given that ")
    if index is None or start < 0 or (start > 0 and full[start - 1] != " "):
        return None
    kept, out = full[:start], full[start:]
    if any(s.text.lower().startswith(("if ", "when ", "suppose ", "assume ")) or " if " in s.text.lower()
           for s in spans):
        return None
    question = spans[index].text.strip()
    body_length = len(question) - (1 if question[-1] in ".?!" else 0)
    boundary = len(out) - body_length - (1 if question[-1] in ".?!" else 0) - 2
    if boundary <= len("Given that ") or out[boundary:boundary + 2] != ", ":
        return None
    facts = out[len("Given that "):boundary].replace(" and that ", " and ").replace(", that ", ", ")
    rest = out[boundary + 2:]
    # "…, then how many fish would Lucy have then?" says "then" twice.
    then = "" if re.search(r"\bthen\b", rest, re.IGNORECASE) else "then "
    return f"{kept}If {facts}, {then}{rest}"


# "Given that A and B, how many …?" at most: four-clause run-ons were rejected by people.
MAX_CLAUSES = 3


@dataclass(frozen=True)
class ReorderGenerator:
    """Problem reordering: a facts-first candidate ("Given that" or "If … then", drawn) and a
    question-first candidate with its pronouns resolved. At most ``max_clauses`` clauses are
    joined into the question's sentence; earlier facts stay sentences of their own."""

    name: str = "reorder"
    description: str = ("Problem reordering (paper 002): 'Given that …, how many …?' / 'If … then …' and the "
                        "question first with its pronouns resolved")
    kind: str = "rule"
    max_clauses: int | None = MAX_CLAUSES

    def unavailable_reason(self, resources: GenerationResources) -> str | None:
        return None

    def generate(self, text: str, rng: random.Random, resources: GenerationResources) -> list[GeneratedCandidate]:
        model = resources.spacy_model
        given_first = given_that_reorder(text, rng, config=ReorderConfig("given_first", self.max_clauses),
                                         spacy_model=model)
        candidates = []
        filler = rng.choice(["given that", "if then"])
        if_then = _if_then(given_first, text, model) if filler == "if then" else None
        if if_then is not None:
            try:
                require_same_problem(text, if_then, generator=self.name, spacy_model=model)
                candidates.append(self._candidate(if_then, style="facts_first", filler="if then"))
            except NotApplicable:
                if_then = None
        if if_then is None:
            candidates.append(self._candidate(given_first.text, style="facts_first", filler="given that"))
        resolved, changes = resolve_question_pronouns(text, model)
        try:
            question_first = given_that_reorder(resolved, rng, config=ReorderConfig("question_first", self.max_clauses),
                                                spacy_model=model)
            require_same_problem(text, question_first.text, generator=self.name, spacy_model=model)
            candidates.append(self._candidate(question_first.text, style="question_first", filler="given that",
                                              resolved=changes))
        except NotApplicable:
            pass
        return candidates_or_refuse(text, candidates, generator=self.name, reason="nothing to reorder")

    def _candidate(self, text: str, **meta: Any) -> GeneratedCandidate:
        return GeneratedCandidate(text=text, generator=self.name, prompt="shuffle", meta=meta)
