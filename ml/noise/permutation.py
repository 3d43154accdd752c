"""Sentence permutation: q1 (rotate sentences around a random index) and i1 (rotate one
sentence to start at a preposition, keeping the most fluent rotation)."""
from __future__ import annotations

import random

from .base import Units, most_fluent, noise_function, recapitalise
from .resources import NoiseResources
from .units import sentences_of

__all__ = ["SENTENCE_PERMUTATION_SHARE", "i1_sentence_permutation", "q1_sentence_permutation"]

SENTENCE_PERMUTATION_SHARE = 0.5
"""Chance that q1 rotates each sentence (at least one sentence is rotated)."""


def _split_tail(sentence: Units) -> tuple[Units, Units]:
    if sentence and sentence[-1].upos == "PUNCT":
        return sentence[:-1], sentence[-1:]
    return sentence, []


@noise_function
def q1_sentence_permutation(units: Units, rng: random.Random, resources: NoiseResources) -> Units:
    """Rotate a random subset of sentences (at least one) around a random index h:
    s_h … s_k s_1 … s_h-1 (the sentence's final punctuation stays last)."""
    sentences = sentences_of(units)
    if not sentences:
        return []
    chosen = {i for i in range(len(sentences)) if rng.random() < SENTENCE_PERMUTATION_SHARE}
    if not chosen:
        chosen = {rng.randrange(len(sentences))}
    out: Units = []
    for number, sentence in enumerate(sentences):
        body, tail = _split_tail(sentence)
        if number in chosen and len(body) > 1:
            h = rng.randrange(1, len(body))
            body = body[h:] + body[:h]
        out += body + tail
    return recapitalise(out)


# A cut right after one of these would split a phrase from its head ("2 | big pears", "the | way").
_BOUND_LEFT = frozenset({"det", "amod", "nummod", "compound", "poss", "quantmod", "predet", "nmod", "aux", "auxpass",
                         "neg", "case", "prt", "cc"})


def _cut_points(body: Units) -> list[int]:
    """Where i1 may rotate a sentence: before a preposition, except "of" after a noun ("2 gallons
    | of gas" would part the gallons from the gas); without one, at every cut that does not split
    a phrase from its head."""
    prepositions = [h for h in range(1, len(body)) if body[h].upos == "ADP" or body[h].dep in ("prep", "agent")]
    prepositions = [h for h in prepositions
                    if not (body[h].lemma == "of" and body[h].head_upos in ("NOUN", "PROPN", "PRON", "NUM"))]
    if prepositions:
        return prepositions
    free = [h for h in range(1, len(body)) if body[h - 1].dep not in _BOUND_LEFT and body[h].upos != "PUNCT"]
    return free or list(range(1, len(body)))


@noise_function
def i1_sentence_permutation(units: Units, rng: random.Random, resources: NoiseResources) -> Units:
    """Rotate one random sentence so that it starts at a preposition ("On the way home Steve
    rode his car for 5 miles."); a sentence without one is rotated at every cut point (that does
    not split a phrase from its head). The most fluent rotation is kept."""
    sentences = sentences_of(units)
    rotatable = [i for i, s in enumerate(sentences) if len(_split_tail(s)[0]) > 1]
    if not rotatable:
        return list(units)
    number = rotatable[rng.randrange(len(rotatable))]
    body, tail = _split_tail(sentences[number])
    before = [u for s in sentences[:number] for u in s]
    after = [u for s in sentences[number + 1:] for u in s]
    candidates = [recapitalise(before + body[h:] + body[:h] + tail + after) for h in _cut_points(body)]
    return most_fluent(candidates, rng, resources)
