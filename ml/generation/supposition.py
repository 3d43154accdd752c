"""A sentence's leading condition stated as a supposition: "If A, (then) B" -> "Suppose A. (Then) B".

Exam problems often put their facts in an "If …," clause ("If a cellphone is purchased for Rs.490
and sold for Rs.465.50, find the loss percentage?"). Stating the condition as a sentence of its own
keeps every fact and the question word for word and changes how the problem reads, which no other
rule does for the many one-sentence problems of this form.

Where the condition ends is read from the parse: the clause that "If" opens (its verb's subtree)
must end at a comma, or, without one, be followed directly by the question or a command. The
condition may not hold a second "if", the main clause must have words of its own, and a sentence
whose condition opens in the middle ("…, if he chooses 3 …") is left alone.

>>> suppose("If he buys 3 more pens, how many pens does he have?")
'Suppose he buys 3 more pens. How many pens does he have?'
>>> suppose("Tom has 5 pens. If he buys 3 more, then he has 8 pens. What is 5 + 3?")
'Tom has 5 pens. Suppose he buys 3 more. Then he has 8 pens. What is 5 + 3?'
>>> suppose("When it rains, Tom stays home. How many days did he stay?") is None
True
"""
from __future__ import annotations

import random
import re
from dataclasses import dataclass

from ..text.nlp import DEFAULT_SPACY_MODEL, parse, sentence_spans
from .base import GeneratedCandidate, GenerationResources, one_rewrite

__all__ = ["SuppositionGenerator", "state_condition", "suppose"]

# What may start the main clause when no comma closes the condition: the question or a command.
_MAIN_WITHOUT_COMMA = re.compile(
    r"^(?:then\s+)?(?:what|how|which|who|whom|whose|when|where|find|calculate|determine|compute|work out)\b", re.I)
_CONDITION_THEN_QUESTION = re.compile(
    r"^If (?P<cond>[^?]+?), (?:then )?(?:what|how|find|calculate|determine)\b", re.I)
_THEN = re.compile(r"^then\b,?\s*", re.I)
# A main clause that only points back ("…, then so is B", "…, the same") or is a blank to fill;
# stated apart from its condition it would not read as a sentence.
_TOO_SHORT_WORDS = 2


def _condition_end(sentence: str, spacy_model: str) -> int | None:
    """Character offset in ``sentence`` (which opens with "If ") where the condition ends: the end
    of the clause "If" opens, per the parse; None when the parse gives no clear end."""
    doc = parse(sentence, spacy_model)
    if len(doc) < 4 or doc[0].lower_ != "if":
        return None
    head = doc[0].head
    # ROOT: the parser took the condition's verb as the sentence's, so the parse gives no clear end
    if head is doc[0] or head.dep_ not in ("advcl", "ccomp", "csubj"):
        return None
    end = max(t.i for t in head.subtree)
    if doc[0].i != min(t.i for t in head.subtree):
        return None
    while end > 0 and doc[end].is_punct and doc[end].text in ",;:":
        end -= 1  # the comma that closes the condition hangs from its verb
    if end + 1 >= len(doc):
        return None
    return doc[end].idx + len(doc[end].text)


def state_condition(sentence: str, *, spacy_model: str = DEFAULT_SPACY_MODEL) -> str | None:
    """``sentence`` ("If A, B") as "Suppose A. B", or None when it does not open with a condition
    whose end is clear: where the parse ends the clause "If" opens, or else (the parser lost the
    clause: "If 12 ounces of Brand V paper cost $ 12, what is …") the first comma followed by the
    question or a command."""
    if not sentence.startswith("If ") or sentence.count("?") > 1:
        return None
    ends = [_condition_end(sentence, spacy_model)]
    if match := _CONDITION_THEN_QUESTION.match(sentence):
        if ends[0] is not None and ends[0] < match.end("cond"):
            # the question follows a later comma: the condition is a list of facts that runs up to it
            # ("If the monkeys need 200, the gorillas need 400, and the baboons 100, how many …"),
            # not the clause the parser closed at the first comma
            ends = []
        ends.append(match.end("cond"))
    for end in ends:
        if end is not None and (stated := _stated(sentence, end)) is not None:
            return stated
    return None


def _stated(sentence: str, end: int) -> str | None:
    """``sentence`` split after its condition at ``end`` and stated as a supposition, or None when
    what follows is not a main clause of its own."""
    condition, rest = sentence[3:end].strip(), sentence[end:].lstrip()
    if rest.startswith(","):
        rest = rest[1:].lstrip()
    elif not _MAIN_WITHOUT_COMMA.match(rest):
        return None
    if re.search(r"\bif\b", condition, re.I) or condition.endswith(("and", "or", ",")):
        return None
    then = _THEN.match(rest)
    main = rest[then.end():] if then else rest
    if len(re.findall(r"[A-Za-z]+", main)) < _TOO_SHORT_WORDS or not main[:1].isalpha():
        return None
    if re.match(r"(?:and|or|but|which|who|that|respectively|each|too|also|as well|instead|only)\b", main, re.I):
        # the comma closed part of a list, a relative clause or a trailing adverb ("… are 2/5, 3/8
        # and 2/7, respectively, what is …"), not the condition
        return None
    if then:
        first = main[:1] if _keeps_capital(main) else main[:1].lower()
        return f"Suppose {condition}. Then {first}{main[1:]}"
    return f"Suppose {condition}. {main[:1].upper()}{main[1:]}"


def _keeps_capital(main: str) -> bool:
    """Whether the main clause's first word is a name or a label (keeps its capital after "Then")."""
    first = main.split(" ", 1)[0]
    return len(first) == 1 or first[1:2].isupper() or first == "I"


def suppose(text: str, *, spacy_model: str = DEFAULT_SPACY_MODEL) -> str | None:
    """``text`` with the first sentence that opens with an "If …," condition stated as a
    supposition; None when no sentence does."""
    if "If " not in text:
        return None  # most problems: no parse needed
    for span in sentence_spans(text, spacy_model):
        sentence = text[span.start:span.end]
        if "If " not in sentence:
            continue
        stripped = sentence.lstrip()
        offset = span.start + len(sentence) - len(stripped)
        rewritten = state_condition(stripped, spacy_model=spacy_model)
        if rewritten is not None:
            return text[:offset] + rewritten + text[span.end:]
    return None


@dataclass(frozen=True)
class SuppositionGenerator:
    """The problem with a sentence's leading "If …," condition stated as a supposition."""

    name: str = "supposition"
    description: str = "A leading condition stated on its own: 'If A, find B.' becomes 'Suppose A. Find B.'"
    kind: str = "rule"
    refusal: str = "no sentence opens with an 'If …,' condition"

    def unavailable_reason(self, resources: GenerationResources) -> str | None:
        return None

    def generate(self, text: str, rng: random.Random, resources: GenerationResources) -> list[GeneratedCandidate]:
        rewritten = suppose(text, spacy_model=resources.spacy_model)
        return one_rewrite(text, text if rewritten is None else rewritten, generator=self.name, prompt="condition",
                           refusal=self.refusal, spacy_model=resources.spacy_model)
