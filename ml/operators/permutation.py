"""Sentence permutation at a preposition: an adverbial prepositional phrase moves to the front.

A valid, structure-changing positive (SCANNING's "sentence permutation at prepositions", here
kept grammatical: the phrase leads, followed by a comma).

>>> permute_at_preposition("A train covers 300 km in 5 hours.", random.Random(0)).text
'In 5 hours, a train covers 300 km.'
"""
from __future__ import annotations

import random
from typing import TYPE_CHECKING

from ..text.nlp import DEFAULT_SPACY_MODEL, capitalized_elsewhere, keeps_capital, parse, sentence_spans
from .base import OperatorNotApplicable, OperatorResult, make_result, tidy_spacing
from .preservation import require_preserved

if TYPE_CHECKING:
    from spacy.tokens import Span

__all__ = ["front_prepositional_phrase", "permute_at_preposition", "prepositional_phrases"]

# Prepositions that head adjuncts (time, place, manner, rate), which can open a sentence.
# Others mostly head arguments ("goes to the gym", "gave 3 to his mom", "the speed of the
# train") that sound wrong in front.
_MOVABLE_PREPOSITIONS = {
    "in", "on", "at", "for", "during", "after", "before", "within", "over", "by", "from", "with", "under",
    "throughout", "since", "until", "till", "per", "across", "around", "near", "inside", "outside", "without",
    "through", "between", "among", "every",
}
_CLOCK_SUFFIXES = {"a.m.", "p.m.", "am", "pm", "a.m", "p.m"}



_FINITE_TAGS = {"VBD", "VBZ", "VBP", "MD"}


def _strict_ok(sent: Span, start: int, end: int, context: str) -> bool:
    """Moves that read well in a handout: the sentence has a finite main verb (not "An engine
    moving at 10 m/s."), the phrase holds no verb (a relative clause stays with its noun: not "In
    the tunnel which can fly at 1000 mph, a bee is left"), is at most 6 words, opens with its
    preposition (not "Already in the case, …"), is not the argument right after an object-less
    verb ("For 5 employees, my company's funding allows."), is not one of phrases that pair up across
    a coordination after the verb, does not follow a coordination after the verb (it may belong to
    the last conjunct: "buying trouser at Rs 70 each and shirt at 30 each") or a list, is not followed by
    the rest of a list ("with terms 4/30, n/100"), and the sentence does not open with a capital
    that is also a variable ("A train … between A and B")."""
    root = sent.root
    if not (root.tag_ in _FINITE_TAGS or any(c.dep_ in ("aux", "auxpass") and c.tag_ in _FINITE_TAGS
                                             for c in root.children)):
        return False
    phrase = sent.doc[start:end]
    if len(phrase) > 6 or any(t.pos_ in ("VERB", "AUX") for t in phrase):
        return False
    if any(t.text == "," for t in phrase):
        return False  # the phrase took a list's next item with it ("in 5 hours, pipe B in 10 hours")
    if phrase[0].dep_ != "prep":
        return False  # "already in the case": the modifier would go with the phrase and attach to the wrong noun
    if start == root.i + 1 and not any(c.dep_ in ("dobj", "attr", "acomp", "prt") for c in root.children):
        return False  # the verb's own argument ("allows for 5 employees", "weighs in a bag"), not an adjunct
    if any(c.dep_ == "prep" and any(g.dep_ == "conj" for g in c.children) for c in root.rights):
        return False  # coordinated phrases pair up ("to $600 in 2 years and to $700 in 4 years"): not "In 4 years, …"
    # After a coordination or a list the phrase may belong to its last part ("trouser at Rs 70 each and shirt
    # at 30 each", "in 5 hours, pipe B in 10 hours"); a comma right before the phrase only introduces it
    # ("cross a bridge, at the same speed?").
    if any(t.dep_ == "cc" or t.text == "," for t in sent.doc[root.i + 1:start - 1]):
        return False
    rest = [t for t in sent.doc[end:sent.end] if t.text not in ".?!"]
    if rest and (rest[0].text == "," or rest[0].dep_ == "cc") and not any(t.pos_ in ("VERB", "AUX") for t in rest):
        return False  # a list goes on after it ("with terms 4/30, n/100", "in 10 hours and pipe C in 30 hours")
    first = sent[0]
    return not (len(first.text) == 1 and first.text.isupper() and first.text != "I"
                and capitalized_elsewhere(first.text, context))


def prepositional_phrases(sent: Span) -> list[tuple[int, int]]:
    """Token ranges (sentence-relative) of PPs attached to the main verb after it."""
    root = sent.root
    # With "be" the phrase is often the predicate itself ("how much water is in the tank").
    if root.pos_ not in ("VERB", "AUX") or root.lemma_ == "be":
        return []
    children = list(root.children)
    subjects = [c for c in children if c.dep_ in ("nsubj", "nsubjpass", "expl")]
    if not subjects:
        return []
    subject_start = min(s.left_edge.i for s in subjects)
    # A sentence that already opens with a phrase or a clause ("In April, ...", "If he ...")
    # would get two openers; coordinated verbs would let the phrase scope over both.
    # (A question's fronted wh-phrase and inverted auxiliary are not openers: "In total, how
    # many hours did it take?")
    openers = [c for c in root.lefts if c.i < subject_start and not c.is_punct and c.dep_ not in ("aux", "auxpass")
               and not any(t.tag_ in ("WDT", "WP", "WP$", "WRB") for t in c.subtree)]
    if openers or any(c.dep_ == "conj" and c.pos_ in ("VERB", "AUX") for c in children):
        return []
    # "buys bread for $4.20 and cheese for $2.05": which price goes with which object is too
    # fragile in the parse to move a phrase out of it.
    if any(c.dep_ == "dobj" and any(g.dep_ == "conj" for g in c.children) for c in children):
        return []
    ranges = []
    last_word = max((t.i for t in sent if not t.is_punct), default=root.i)
    for child in root.rights:
        if child.dep_ != "prep" or child.lower_ not in _MOVABLE_PREPOSITIONS:
            continue
        if not any(c.dep_ == "pobj" for c in child.children):
            continue
        start, end = child.left_edge.i, child.right_edge.i + 1
        if start <= root.i or end - 1 > last_word:
            continue
        if any(t.dep_ in ("cc", "conj") for t in sent.doc[start:end]):
            continue
        following = sent.doc[end] if end < sent.end else None
        if following is not None and following.lower_ in _CLOCK_SUFFIXES:
            continue
        ranges.append((start - sent.start, end - sent.start))
    return ranges


def front_prepositional_phrase(sent: Span, start: int, end: int, context: str = "") -> str:
    """The sentence with tokens [start, end) (sentence-relative) moved to the front; ``context``
    (the whole problem) helps tell names from sentence-initial capitals."""
    tokens = [t for t in sent]
    phrase = sent[start:end].text
    before = tokens[:start]
    after = tokens[end:]
    # A comma that introduced the moved phrase goes with it.
    if before and before[-1].text == ",":
        before = before[:-1]
    final = after[-1].text if after and after[-1].is_punct and after[-1].text in ".?!" else ""
    if final:
        after = after[:-1]
    rest = "".join(t.text_with_ws for t in before).rstrip() + " " + "".join(t.text_with_ws for t in after).strip()
    rest = rest.strip()
    if before and not keeps_capital(before[0]) and not capitalized_elsewhere(before[0].text, context):
        rest = rest[:1].lower() + rest[1:]
    out = tidy_spacing(f"{phrase[:1].upper()}{phrase[1:]}, {rest}") + final
    return out


def permute_at_preposition(
    text: str, rng: random.Random, *, spacy_model: str = DEFAULT_SPACY_MODEL, strict: bool = False
) -> OperatorResult:
    """Structural positive: one prepositional phrase of one sentence moves to its front; the
    sentence and phrase are chosen with ``rng``. ``strict`` (the paraphrase generator): only the
    moves :func:`_strict_ok` allows."""
    spans = sentence_spans(text, spacy_model)
    candidates = []
    for index, span in enumerate(spans):
        sents = list(parse(span.text, spacy_model).sents)
        if len(sents) != 1:
            continue  # spaCy disagrees on the sentence's extent ("Rs. 20"): leave it alone
        sent = sents[0]
        candidates += [(index, sent, start, end) for start, end in prepositional_phrases(sent)
                       if not strict or _strict_ok(sent, sent.start + start, sent.start + end, text)]
    if not candidates:
        raise OperatorNotApplicable("no prepositional phrase after a main verb to move", operator="pp_permutation")
    index, sent, start, end = rng.choice(candidates)
    span = spans[index]
    sentence_text = span.text
    rewritten = (sentence_text[:sent.start_char] + front_prepositional_phrase(sent, start, end, text)
                 + sentence_text[sent.end_char:])
    result = text[:span.start] + rewritten + text[span.end:]
    require_preserved(text, result, operator="pp_permutation", spacy_model=spacy_model)
    return make_result(text, result, "pp_permutation", True, sentence=index, phrase=sent[start:end].text)
