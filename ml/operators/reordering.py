"""Problem reordering: the facts become a "Given that ..." clause of the question.

A valid, structure-changing positive (paper 002's problem reordering).

>>> given_that_reorder("A train covers 300 km in 5 hours. What is its speed?", random.Random(0)).text
'Given that a train covers 300 km in 5 hours, what is its speed?'
"""
from __future__ import annotations

import random
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from ..text.nlp import DEFAULT_SPACY_MODEL, capitalized_elsewhere, keeps_capital, parse, sentence_spans
from .base import OperatorNotApplicable, OperatorResult, make_result, tidy_spacing
from .preservation import require_preserved

if TYPE_CHECKING:
    from spacy.tokens import Token

__all__ = ["ReorderConfig", "given_that_reorder"]

_QUESTION_START = re.compile(
    r"^(what|how|which|who|whom|whose|when|where|why|find|calculate|compute|determine|estimate|evaluate|"
    r"solve|express|give|state|work out)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class ReorderConfig:
    """style: "given_first" -> "Given that <facts>, <question>?";
    "question_first" -> "<Question>, given that <facts>?"; "random" picks one with the rng.
    max_clauses: at most this many clauses (finite verbs heading a sentence, a conjoined,
    adverbial, complement or relative clause) in the joined sentence; the earlier facts stay
    sentences of their own before it ("A. B. Given that C and D, how …?"). None: every fact is
    joined (the paper's operator). With a limit, the operator also refuses what reads badly when
    joined: an imperative fact ("given that let A …"), quoted speech or a colon, facts after the
    question, and a question sentence that holds a statement (a segmentation slip)."""

    style: Literal["given_first", "question_first", "random"] = "given_first"
    max_clauses: int | None = None

    def __post_init__(self) -> None:
        if self.style not in ("given_first", "question_first", "random"):
            raise ValueError(f"unknown reordering style {self.style!r}")
        if self.max_clauses is not None and self.max_clauses < 2:
            raise ValueError("max_clauses must be >= 2 (a fact and the question) or None")


_CLAUSE_DEPS = {"ROOT", "conj", "advcl", "ccomp", "relcl"}
_FINITE_TAGS = {"VBD", "VBZ", "VBP", "MD"}
# Words that open a subordinate clause or an adverbial: a fact that starts with one does not read
# after "given that". (A word list, not the tagger: the small pipeline tags some names ADV.)
_OPENING_ADVERBS = frozenset({
    "when", "whenever", "if", "unless", "while", "whilst", "as", "after", "before", "since", "because", "although",
    "though", "once", "until", "till", "now", "then", "however", "also", "so", "thus", "hence", "therefore",
    "meanwhile", "later", "finally", "again", "still", "already", "yet", "where", "wherever", "moreover", "besides",
    "instead", "otherwise", "initially", "originally", "eventually", "afterwards", "suddenly", "similarly",
    # a conjunction that ties the fact to the one before it ("But she remembers …")
    "but", "and", "or", "nor",
})
_INNER_BOUNDARY = re.compile(r"[.!?][\"')\]]?\s+[A-Z]")


def _clauses(span_text: str, spacy_model: str) -> int:
    """Finite clauses of a sentence: finite verbs heading the sentence or a conjoined, adverbial,
    complement or relative clause ("to pass", "running" head none)."""
    doc = parse(span_text, spacy_model)

    def finite(t: Token) -> bool:
        return t.tag_ in _FINITE_TAGS or any(c.dep_ in ("aux", "auxpass") and c.tag_ in _FINITE_TAGS
                                             for c in t.children)

    return max(1, sum(1 for t in doc if t.pos_ in ("VERB", "AUX") and t.dep_ in _CLAUSE_DEPS and finite(t)))


def _unjoinable(span_text: str, spacy_model: str) -> bool:
    """A fact that does not read after "given that": an order ("Let A be …", "Take the time as
    …") or one that opens with a subordinate clause or an adverb ("When …, …", "Now, …")."""
    if re.match(r"\s*(?:[*•·▪\-–—]|\d+[.)]\s)", span_text):
        return True  # an item of a list ("* Speed of each person …"): "given that * Speed …" is broken
    doc = parse(span_text.strip(), spacy_model)
    first = next((t for t in doc if not t.is_punct and not t.is_space), None)
    if first is None:
        return False
    if re.search(r"[.!?]\s+\w", span_text.strip()[:-1]):
        return True  # two sentences the segmenter kept together ("… 43 sheep. he wanted …")
    root = next(iter(doc.sents)).root
    finite = root.tag_ in _FINITE_TAGS or any(c.dep_ in ("aux", "auxpass") and c.tag_ in _FINITE_TAGS
                                              for c in root.children)
    if not finite:
        return True  # a fragment ("Two years ago, while his mother was twice his age that time.")
    subjects = [c for c in root.children if c.dep_ in ("nsubj", "nsubjpass", "expl")]
    head = subjects[0].left_edge.i if subjects else root.i
    if any(t.text == "," for t in doc if t.i < head):
        return True  # an opener before the subject ("Two years ago, …"): "given that two years ago, …"
    if first.lower_ in _OPENING_ADVERBS:
        return True  # "given that when the trains start, …", "given that now, …": not joinable either
    if first.lower_ in ("let", "suppose", "assume", "consider", "take", "note", "find", "calculate"):
        return True
    return first.tag_ == "VB" and first.dep_ == "ROOT" and not any(c.dep_ in ("nsubj", "nsubjpass")
                                                                  for c in first.children)


def _joinable_suffix(facts: list[str], question: str, max_clauses: int, spacy_model: str) -> int:
    """How many of the last facts join the question within ``max_clauses`` (0: none can)."""
    budget = max_clauses - _clauses(question, spacy_model)
    count = 0
    for fact in reversed(facts):
        if _unjoinable(fact, spacy_model) or '"' in fact or re.search(r":\s", fact) or "\n" in fact.strip():
            break
        need = _clauses(fact, spacy_model)
        if need > budget:
            break
        budget -= need
        count += 1
    return count


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
    question = spans[q].text.strip()
    kept = ""
    if config.max_clauses is not None:
        if q != len(spans) - 1:
            raise OperatorNotApplicable("facts after the question", operator="given_that")
        if _INNER_BOUNDARY.search(question) or "\n" in question:
            raise OperatorNotApplicable("the question sentence holds a statement", operator="given_that")
        if not _QUESTION_START.match(question.strip()):
            # "He lost 5 of his pennies, how many …?", "The cloths sold … is worth?": no question to join to
            raise OperatorNotApplicable("the question does not open with a question word", operator="given_that")
        joined = _joinable_suffix(facts, question, config.max_clauses, spacy_model)
        if joined == 0:
            raise OperatorNotApplicable(f"no fact reads after 'given that' within {config.max_clauses} clauses",
                                        operator="given_that")
        if joined < len(facts):
            kept = text[spans[0].start:spans[len(facts) - joined - 1].end].strip() + " "
            facts = facts[len(facts) - joined:]
    fact_clause = _join_facts([_decapitalize(_strip_end(f), spacy_model, text) for f in facts])
    end = question[-1] if question[-1] in ".?!" else "."
    body = question[:-1].rstrip() if question[-1] in ".?!" else question
    style = config.style if config.style != "random" else rng.choice(["given_first", "question_first"])
    if style == "given_first":
        out = f"{kept}Given that {fact_clause}, {_decapitalize(body, spacy_model, text)}{end}"
    else:
        out = f"{kept}{body}, given that {fact_clause}{end}"
    out = tidy_spacing(out)
    require_preserved(text, out, operator="given_that", spacy_model=spacy_model)
    return make_result(text, out, "given_that", True, style=style, question_sentence=q,
                       kept_sentences=len(spans) - 1 - len(facts))
