"""SCANNING's noise functions (paper 000, Table 1 and section 3.3) over noise units.

Training (q1–q7): sentence permutation, random shuffling of contiguous spans, complete shuffling,
templatization, synonym substitution, random deletion, word insertion. Inference (i1–i6):
pseudo-adversarial sentence permutation at prepositions and phrase shuffling over the phrase
structure (both keep the most fluent candidate), templatization and synonym substitution that
prefer dependency objects, deletion (= q6) and insertion (= q7).

Constraints (App. A.1.1), enforced for every function: a quantity is one protected unit, never
templated, deleted or substituted, and moves only as a whole; tokens tagged VERB, ADJ, ADV (and
AUX, and negations) are never templated or deleted, while substitution and insertion may touch
verbs, adjectives and adverbs; inserted and substituted words are never number or unit words;
one template per entity, the same at every mention (``NOUN1`` wherever that noun was).

Every function works on a text (``fn(text, rng, resources) -> str``, one cached parse) and on
units (``fn(units, rng, resources) -> units``, for combinations); ``rng`` is the only source of
randomness, so the same seed gives the same output.

>>> import random
>>> q6_random_deletion("Steve rode his car for 5 miles on the way home.", random.Random(1))
'Steve rode car for 5 miles on the way home.'
"""
from __future__ import annotations

import functools
import random
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Union, overload

from .resources import NoiseResources
from .units import Unit, detokenize, parse_units, sentences_of

__all__ = [
    "DELETION_RATE", "INSERTION_RATE", "MAX_FLUENCY_CANDIDATES", "SHUFFLE_SPAN", "SUBSTITUTE_POS",
    "SUBSTITUTION_RATE", "TEMPLATE_POS", "TEMPLATE_RATE", "NoiseFunction", "i1_sentence_permutation",
    "i2_phrase_shuffling", "i3_templatization", "i4_synonym_substitution", "i5_deletion", "i6_insertion",
    "noise_function", "q1_sentence_permutation", "q2_random_shuffling", "q3_complete_shuffling",
    "q4_templatization", "q5_synonym_substitution", "q6_random_deletion", "q7_word_insertion",
]

Units = list[Unit]

DELETION_RATE = 0.15
"""Share of the deletable units (not locked, not sentence-final punctuation) q6/i5 remove (at least one)."""
INSERTION_RATE = 0.10
"""Words q7/i6 insert per unit of the text (at least one)."""
SYNONYM_INSERTION_SHARE = 0.5
"""Share of the inserted words that are synonyms of words present (the rest: corpus words)."""
SUBSTITUTION_RATE = 0.25
"""Share of the substitutable units q5/i4 replace (at least one), among those with a synonym."""
TEMPLATE_RATE = 0.35
"""Share of the templatable entities (upos + key) q4/i3 template (at least one)."""
SENTENCE_PERMUTATION_SHARE = 0.5
"""Chance that q1 rotates each sentence (at least one sentence is rotated)."""
SHUFFLE_SPAN = (2, 4)
"""Sizes of the contiguous spans q2 shuffles; it shuffles one span per eight units (at least one)."""
TEMPLATE_POS = frozenset({"NOUN", "PRON", "ADP", "DET"})
"""Tags q4/i3 template (``NOUN1``, ``PRON1``, ``ADP1``, ``DET1``)."""
SUBSTITUTE_POS = frozenset({"NOUN", "VERB", "ADJ", "ADV"})
"""Tags q5/i4 substitute and whose synonyms q7/i6 insert."""
MAX_FLUENCY_CANDIDATES = 8
"""PAN scores at most this many distinct candidates (sampled when there are more)."""


# --- text or units --------------------------------------------------------------------------------

UnitsFunction = Callable[[Units, random.Random, NoiseResources], Units]


class NoiseFunction:
    """A noise function usable on a text (returns a text) or on units (returns units)."""

    def __init__(self, function: UnitsFunction) -> None:
        functools.update_wrapper(self, function)
        self.function = function

    @overload
    def __call__(self, x: str, rng: random.Random, resources: NoiseResources | None = None) -> str: ...

    @overload
    def __call__(self, x: Sequence[Unit], rng: random.Random, resources: NoiseResources | None = None) -> Units: ...

    def __call__(self, x: Union[str, Sequence[Unit]], rng: random.Random,
                 resources: NoiseResources | None = None) -> Union[str, Units]:
        resources = resources if resources is not None else NoiseResources()
        if isinstance(x, str):
            return detokenize(self.function(list(parse_units(x, resources.spacy_model)), rng, resources))
        return self.function(list(x), rng, resources)

    def __repr__(self) -> str:
        return f"<noise function {self.__name__}>"


def noise_function(function: UnitsFunction) -> NoiseFunction:
    """Decorator: a units function becomes a :class:`NoiseFunction`."""
    return NoiseFunction(function)


# --- helpers --------------------------------------------------------------------------------------


def _is_final_punct(units: Units, i: int) -> bool:
    return units[i].upos == "PUNCT" and (i + 1 == len(units) or units[i + 1].sentence != units[i].sentence)


def _keeps_capital(unit: Unit) -> bool:
    text = unit.text
    return (unit.upos == "PROPN" or text == "I" or (text.isupper() and len(text) > 1)
            or (len(text) == 1 and text.isupper() and unit.upos != "DET"))


def _recapitalise(units: Units) -> Units:
    """Each sentence starts with a capital; a word that no longer starts its sentence loses the
    capital it had as a sentence start, unless it is a name, "I" or an acronym."""
    out = list(units)
    previous = None
    for i, unit in enumerate(out):
        first = unit.sentence != previous
        previous = unit.sentence
        if unit.protected or unit.template or not unit.text[:1].isalpha():
            continue
        if first and unit.text[0].islower():
            out[i] = unit.with_text(unit.text[0].upper() + unit.text[1:])
        elif not first and unit.sentence_start and unit.text[0].isupper() and not _keeps_capital(unit):
            out[i] = unit.with_text(unit.text[0].lower() + unit.text[1:])
    return out


def _split_tail(sentence: Units) -> tuple[Units, Units]:
    if sentence and sentence[-1].upos == "PUNCT":
        return sentence[:-1], sentence[-1:]
    return sentence, []


def _body_and_end(units: Units) -> tuple[Units, Units]:
    """The units without the text's final punctuation, and that punctuation."""
    if units and units[-1].upos == "PUNCT":
        return units[:-1], units[-1:]
    return units, []


def _inserted(word: str, sentence: int) -> Unit:
    return Unit(word, " ", "X", word.lower(), "dep", sentence, key=word.lower())


# --- training noise -------------------------------------------------------------------------------


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
    return _recapitalise(out)


@noise_function
def q2_random_shuffling(units: Units, rng: random.Random, resources: NoiseResources) -> Units:
    """Shuffle contiguous spans of 2–4 units in place, one span per eight units (at least one)."""
    body, end = _body_and_end(units)
    for _ in range(max(1, len(body) // 8)):
        size = rng.randint(*SHUFFLE_SPAN)
        if len(body) < size:
            size = len(body)
        if size < 2:
            break
        start = rng.randrange(0, len(body) - size + 1)
        span = body[start:start + size]
        rng.shuffle(span)
        body[start:start + size] = span
    return body + end


@noise_function
def q3_complete_shuffling(units: Units, rng: random.Random, resources: NoiseResources) -> Units:
    """Every unit shuffled (quantities stay whole; the text's final punctuation stays last)."""
    body, end = _body_and_end(units)
    rng.shuffle(body)
    return body + end


def _templatable(unit: Unit) -> bool:
    return not unit.locked and unit.upos in TEMPLATE_POS


def _templatize(units: Units, rng: random.Random, prefer_objects: bool) -> Units:
    mentions: dict[tuple[str, str], list[int]] = {}
    for i, unit in enumerate(units):
        if _templatable(unit):
            mentions.setdefault((unit.upos, unit.key), []).append(i)
    if not mentions:
        return list(units)
    ordered = sorted(mentions)  # deterministic before the draw
    count = max(1, round(TEMPLATE_RATE * len(ordered)))
    if prefer_objects:
        objects = [k for k in ordered if any(units[i].is_object for i in mentions[k])]
        rest = [k for k in ordered if k not in objects]
        rng.shuffle(objects)
        rng.shuffle(rest)
        chosen = (objects + rest)[:count]
    else:
        chosen = rng.sample(ordered, count)
    counters: dict[str, int] = {}
    out = list(units)
    for key in sorted(chosen, key=lambda k: mentions[k][0]):  # numbered by first mention
        counters[key[0]] = counters.get(key[0], 0) + 1
        name = f"{key[0]}{counters[key[0]]}"
        for i in mentions[key]:
            out[i] = out[i].with_text(name, template=True)
    return out


@noise_function
def q4_templatization(units: Units, rng: random.Random, resources: NoiseResources) -> Units:
    """Replace every mention of some entities (nouns by lemma, pronouns by person: "He" and
    "his" are one) by their POS tag and an index (``NOUN1``, ``PRON1``, ``ADP1``, ``DET1``)."""
    return _templatize(units, rng, prefer_objects=False)


def _substitute(units: Units, rng: random.Random, resources: NoiseResources, prefer_objects: bool) -> Units:
    if resources.synonyms is None:
        resources.note("synonyms", "none")
        return list(units)
    eligible = [i for i, u in enumerate(units) if not u.protected and not u.template and u.upos in SUBSTITUTE_POS]
    if prefer_objects:
        objects = [i for i in eligible if units[i].is_object]
        rest = [i for i in eligible if not units[i].is_object]
        rng.shuffle(objects)
        rng.shuffle(rest)
        eligible = objects + rest
    else:
        rng.shuffle(eligible)
    budget = max(1, round(SUBSTITUTION_RATE * len(eligible))) if eligible else 0
    out = list(units)
    for i in eligible:
        if budget <= 0:
            break
        unit = units[i]
        options = resources.lookup(unit.text, unit.lemma, unit.upos)
        if not options:
            continue
        choice = rng.choice(options)
        if unit.text[:1].isupper():
            choice = choice[:1].upper() + choice[1:]
        out[i] = unit.with_text(choice)
        budget -= 1
    return out


@noise_function
def q5_synonym_substitution(units: Units, rng: random.Random, resources: NoiseResources) -> Units:
    """Replace a sample of nouns, verbs, adjectives and adverbs by synonyms (none without a
    synonym lookup)."""
    return _substitute(units, rng, resources, prefer_objects=False)


@noise_function
def q6_random_deletion(units: Units, rng: random.Random, resources: NoiseResources) -> Units:
    """Delete about 15 % of the deletable units: not quantities, not VERB/ADJ/ADV/AUX, not
    negations, not templates, not sentence-final punctuation."""
    deletable = [i for i, u in enumerate(units) if not u.locked and not _is_final_punct(units, i)]
    if not deletable:
        return list(units)
    count = max(1, round(DELETION_RATE * len(deletable)))
    gone = set(rng.sample(deletable, min(count, len(deletable))))
    return [u for i, u in enumerate(units) if i not in gone]


@noise_function
def q7_word_insertion(units: Units, rng: random.Random, resources: NoiseResources) -> Units:
    """Insert random corpus words and synonyms of words present, about one per ten units."""
    out = list(units)
    count = max(1, round(INSERTION_RATE * len(units)))
    present = [u for u in units if not u.protected and not u.template and u.upos in SUBSTITUTE_POS]
    for _ in range(count):
        word = None
        if present and resources.synonyms is not None and rng.random() < SYNONYM_INSERTION_SHARE:
            unit = present[rng.randrange(len(present))]
            options = [s for s in resources.lookup(unit.text, unit.lemma, unit.upos) if " " not in s]
            word = rng.choice(options) if options else None
        if word is None and resources.vocabulary:
            word = resources.vocabulary[rng.randrange(len(resources.vocabulary))]
        if word is None:
            continue
        position = rng.randrange(0, len(out) + 1)
        sentence = out[min(position, len(out) - 1)].sentence if out else 0
        out.insert(position, _inserted(word, sentence))
    return out


# --- inference noise (pseudo-adversarial) ---------------------------------------------------------


def _most_fluent(candidates: list[Units], rng: random.Random, resources: NoiseResources) -> Units:
    """The candidate the fluency LM scores highest (at most MAX_FLUENCY_CANDIDATES distinct
    ones, sampled; without an LM a random one)."""
    unique: dict[str, Units] = {}
    for candidate in candidates:
        unique.setdefault(detokenize(candidate), candidate)
    texts = sorted(unique)
    if len(texts) > MAX_FLUENCY_CANDIDATES:
        texts = sorted(rng.sample(texts, MAX_FLUENCY_CANDIDATES))
    if resources.fluency is None:
        return unique[texts[rng.randrange(len(texts))]]
    scores = resources.fluency.score(texts)
    best = max(range(len(texts)), key=lambda i: (scores[i], -i))
    return unique[texts[best]]


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
    candidates = [_recapitalise(before + body[h:] + body[:h] + tail + after) for h in _cut_points(body)]
    return _most_fluent(candidates, rng, resources)


@lru_cache(maxsize=2048)
def _phrases(text: str, spacy_model: str, backend: str) -> tuple[str, tuple[tuple[str, int, int], ...]]:
    from ..text.nlp import parse
    from ..text.phrases import phrase_spans

    spans = phrase_spans(parse(text, spacy_model), backend=backend)
    return spans.backend, tuple((p.label, p.token_start, p.token_end) for p in spans)


def _unit_ranges(units: Units, resources: NoiseResources) -> dict[str, list[tuple[int, int]]]:
    """The phrases (NP, VP, PP, CC) of the units' source text as contiguous position ranges of
    the current units (a phrase an earlier noise broke up is left out)."""
    source = next((u.source for u in units if u.index >= 0 and u.source), "")
    if not source:
        return {}
    backend, phrases = _phrases(source, resources.spacy_model, resources.phrase_backend)
    resources.note("constituency", backend)
    position_of_token: dict[int, int] = {}
    for position, unit in enumerate(units):
        if unit.index >= 0 and unit.source == source:
            for t in range(unit.token_start, unit.token_end):
                position_of_token[t] = position
    out: dict[str, list[tuple[int, int]]] = {}
    for label, token_start, token_end in phrases:
        positions = sorted({position_of_token[t] for t in range(token_start, token_end) if t in position_of_token})
        if not positions or positions[-1] - positions[0] + 1 != len(positions):
            continue
        span = (positions[0], positions[-1] + 1)
        if span not in out.get(label, []):
            out.setdefault(label, []).append(span)
    return out


def _swap(units: Units, a: tuple[int, int], b: tuple[int, int]) -> Units | None:
    if a[0] > b[0]:
        a, b = b, a
    if a[1] > b[0]:
        return None  # overlapping
    return units[:a[0]] + units[b[0]:b[1]] + units[a[1]:b[0]] + units[a[0]:a[1]] + units[b[1]:]


def _move_front(units: Units, span: tuple[int, int], target: int) -> Units:
    start, end = span
    return units[:target] + units[start:end] + units[target:start] + units[end:]


def _same_sentences(units: Units) -> bool:
    """A shuffle must not move words across sentences."""
    seen: list[int] = []
    for unit in units:
        if not seen or seen[-1] != unit.sentence:
            if unit.sentence in seen:
                return False
            seen.append(unit.sentence)
    return True


@noise_function
def i2_phrase_shuffling(units: Units, rng: random.Random, resources: NoiseResources) -> Units:
    """Shuffle phrases with the four regularities of App. A.2.1 and keep the most fluent result:
    (i) a PP moved to the front of its parent phrase ("Steve for 5 miles rode his car") or of its
    clause ("For 5 miles Steve rode his car"), (ii) the phrases before and after a CC swapped,
    (iii) two verb phrases (each with its dependents) swapped, (iv) a random NP swapped with a
    random VP. Unchanged when no phrase can move."""
    ranges = _unit_ranges(units, resources)
    moved_pps: list[Units | None] = []
    containers = [r for label in ("NP", "VP", "PP") for r in ranges.get(label, [])]
    for start, end in ranges.get("PP", []):
        sentence = units[start].sentence
        first = min(p for p, u in enumerate(units) if u.sentence == sentence)
        parents = [r for r in containers if r[0] <= start and end <= r[1] and r != (start, end)]
        targets = {first}
        if parents:
            targets.add(min(parents, key=lambda r: (r[1] - r[0], r[0]))[0])
        moved_pps += [_move_front(units, (start, end), t) for t in sorted(targets) if t < start]
    conjunctions: list[Units | None] = []
    for cc_start, _ in ranges.get("CC", []):
        before = [r for label in ("NP", "VP") for r in ranges.get(label, []) if r[1] == cc_start]
        after = [r for label in ("NP", "VP") for r in ranges.get(label, []) if r[0] == cc_start + 1]
        if before and after:
            conjunctions.append(_swap(units, max(before, key=lambda r: (r[1] - r[0], r)),
                                      max(after, key=lambda r: (r[1] - r[0], r))))
    vps, nps = ranges.get("VP", []), ranges.get("NP", [])
    verbs = [_swap(units, a, b) for i, a in enumerate(vps) for b in vps[i + 1:] if a[1] <= b[0] or b[1] <= a[0]]
    noun_verbs = [_swap(units, n, v) for n in nps for v in vps if n[1] <= v[0] or v[1] <= n[0]]
    # Each regularity gets its turn before any gets a second one (PAN scores a bounded number).
    groups = []
    for group in (moved_pps, conjunctions, verbs, noun_verbs):
        valid = [c for c in group if c is not None and _same_sentences(c)]
        rng.shuffle(valid)
        groups.append(valid)
    candidates: dict[str, Units] = {}
    for round_ in range(max((len(g) for g in groups), default=0)):
        for group in groups:
            if round_ < len(group) and len(candidates) < MAX_FLUENCY_CANDIDATES:
                candidate = _recapitalise(group[round_])
                candidates.setdefault(detokenize(candidate), candidate)
    if not candidates:
        return list(units)
    return _most_fluent(list(candidates.values()), rng, resources)


@noise_function
def i3_templatization(units: Units, rng: random.Random, resources: NoiseResources) -> Units:
    """Templatization that templates entities with a dependency-object mention first."""
    return _templatize(units, rng, prefer_objects=True)


@noise_function
def i4_synonym_substitution(units: Units, rng: random.Random, resources: NoiseResources) -> Units:
    """Synonym substitution that replaces dependency objects first."""
    return _substitute(units, rng, resources, prefer_objects=True)


i5_deletion = q6_random_deletion
i6_insertion = q7_word_insertion
