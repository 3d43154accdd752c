"""SCANNING's noise functions (paper 000, Table 1 and section 3.3) over noise units.

Training (q1–q7): sentence permutation, random shuffling of contiguous spans, complete shuffling,
templatization, synonym substitution, random deletion, word insertion. Inference (i1–i6):
pseudo-adversarial sentence permutation at prepositions and phrase shuffling over the phrase
structure (both keep the most fluent candidate), templatization and synonym substitution that
prefer dependency objects, deletion (= q6) and insertion (= q7).

Constraints (App. A.1.1), enforced here for every function: quantities are single protected units,
never templated, deleted or substituted, and move only as a whole; tokens tagged VERB, ADJ, ADV (and
auxiliaries) are never templated or deleted (substitution and insertion may touch them); one
template per lemma, the same at every mention (``NOUN1`` wherever that noun was).

Every function takes ``(units, rng, resources)`` and returns new units; ``rng`` is the only source
of randomness, so the same seed gives the same output.
"""
from __future__ import annotations

import random
from collections.abc import Callable
from typing import TYPE_CHECKING

from .units import PROTECTED_POS, Unit, detokenize, sentences_of

if TYPE_CHECKING:
    from . import NoiseResources

__all__ = [
    "DELETION_RATE", "INSERTION_RATE", "SHUFFLE_SPAN", "SUBSTITUTION_RATE", "TEMPLATE_POS", "TEMPLATE_RATE",
    "i1_sentence_permutation", "i2_phrase_shuffling", "i3_templatization", "i4_synonym_substitution",
    "i5_deletion", "i6_insertion", "q1_sentence_permutation", "q2_random_shuffling", "q3_complete_shuffling",
    "q4_templatization", "q5_synonym_substitution", "q6_random_deletion", "q7_word_insertion",
]

Units = list[Unit]
DELETION_RATE = 0.15  # share of deletable units removed
INSERTION_RATE = 0.10  # words inserted per unit
SUBSTITUTION_RATE = 0.25  # share of substitutable units replaced when they have a synonym
TEMPLATE_RATE = 0.35  # share of templatable lemmas templated
SHUFFLE_SPAN = (2, 4)  # sizes of the contiguous spans q2 shuffles
TEMPLATE_POS = frozenset({"NOUN", "PRON", "ADP", "DET"})
SUBSTITUTE_POS = frozenset({"NOUN", "VERB", "ADJ", "ADV"})
MAX_FLUENCY_CANDIDATES = 8


def _is_final_punct(units: Units, i: int) -> bool:
    return units[i].pos == "PUNCT" and (i + 1 == len(units) or units[i + 1].sent != units[i].sent)


def _capitalise_start(units: Units) -> Units:
    """Sentence starts capitalised; a word that lost the start lower-cased unless it is a name or "I"."""
    out = list(units)
    seen: set[int] = set()
    for i, unit in enumerate(out):
        first = unit.sent not in seen
        seen.add(unit.sent)
        if unit.protected or unit.template or not unit.text[:1].isalpha():
            continue
        if first and unit.text[0].islower():
            out[i] = unit.with_text(unit.text[0].upper() + unit.text[1:])
        elif not first and unit.text[0].isupper() and unit.index == _sentence_first_index(units, unit) \
                and unit.pos not in ("PROPN",) and unit.text != "I":
            out[i] = unit.with_text(unit.text[0].lower() + unit.text[1:])
    return out


def _sentence_first_index(units: Units, unit: Unit) -> int:
    return min(u.index for u in units if u.sent == unit.sent)


# --- training noise ------------------------------------------------------------------------------


def q1_sentence_permutation(units: Units, rng: random.Random, resources: NoiseResources) -> Units:
    """Rotate a random subset of sentences (at least one) around a random index h: s_h … s_k s_1 … s_h-1
    (the sentence's final punctuation stays last)."""
    sentences = sentences_of(units)
    chosen = [i for i in range(len(sentences)) if rng.random() < 0.5] or [rng.randrange(len(sentences))]
    out: Units = []
    for number, sentence in enumerate(sentences):
        body, tail = _split_tail(sentence)
        if number in chosen and len(body) > 2:
            h = rng.randrange(1, len(body))
            body = body[h:] + body[:h]
        out += body + tail
    return _capitalise_start(out)


def _split_tail(sentence: Units) -> tuple[Units, Units]:
    if sentence and sentence[-1].pos == "PUNCT":
        return sentence[:-1], sentence[-1:]
    return sentence, []


def q2_random_shuffling(units: Units, rng: random.Random, resources: NoiseResources) -> Units:
    """Shuffle contiguous spans of 2–4 units, about one span per eight units."""
    out = list(units)
    for _ in range(max(1, len(out) // 8)):
        size = rng.randint(*SHUFFLE_SPAN)
        if len(out) <= size:
            break
        start = rng.randrange(0, len(out) - size)
        span = out[start:start + size]
        rng.shuffle(span)
        out[start:start + size] = span
    return out


def q3_complete_shuffling(units: Units, rng: random.Random, resources: NoiseResources) -> Units:
    """Every unit shuffled (quantities stay whole)."""
    out = list(units)
    rng.shuffle(out)
    return out


def _templatable(unit: Unit) -> bool:
    return not unit.protected and not unit.template and unit.pos in TEMPLATE_POS and unit.pos not in PROTECTED_POS


def _templatize(units: Units, rng: random.Random, prefer_objects: bool) -> Units:
    keys: dict[tuple[str, str], list[int]] = {}
    for i, unit in enumerate(units):
        if _templatable(unit):
            keys.setdefault((unit.pos, unit.lemma), []).append(i)
    if not keys:
        return list(units)
    ordered = sorted(keys)  # deterministic before the draw
    count = max(1, round(TEMPLATE_RATE * len(ordered)))
    if prefer_objects:
        objects = [k for k in ordered if any(units[i].is_object for i in keys[k])]
        rng.shuffle(objects)
        rest = [k for k in ordered if k not in objects]
        rng.shuffle(rest)
        chosen = (objects + rest)[:count]
    else:
        chosen = rng.sample(ordered, count)
    counters: dict[str, int] = {}
    names: dict[tuple[str, str], str] = {}
    for key in sorted(chosen, key=lambda k: keys[k][0]):  # numbered by first mention
        counters[key[0]] = counters.get(key[0], 0) + 1
        names[key] = f"{key[0]}{counters[key[0]]}"
    out = list(units)
    for key, name in names.items():
        for i in keys[key]:
            out[i] = out[i].with_text(name, template=True)
    return out


def q4_templatization(units: Units, rng: random.Random, resources: NoiseResources) -> Units:
    """Replace the mentions of some lemmas by their POS tag and an index, consistently."""
    return _templatize(units, rng, prefer_objects=False)


def _substitute(units: Units, rng: random.Random, resources: NoiseResources, prefer_objects: bool) -> Units:
    if resources.synonyms is None:
        return list(units)
    eligible = [i for i, u in enumerate(units) if not u.protected and not u.template and u.pos in SUBSTITUTE_POS]
    if prefer_objects:
        objects = [i for i in eligible if units[i].is_object]
        rng.shuffle(objects)
        rest = [i for i in eligible if not units[i].is_object]
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
        options = [s for s in resources.lookup(unit.text, unit.lemma, unit.pos) if s.lower() != unit.text.lower()]
        if not options:
            continue
        choice = rng.choice(sorted(options))
        if unit.text[:1].isupper():
            choice = choice[:1].upper() + choice[1:]
        out[i] = unit.with_text(choice)
        budget -= 1
    return out


def q5_synonym_substitution(units: Units, rng: random.Random, resources: NoiseResources) -> Units:
    """Replace a sample of content words (nouns, verbs, adjectives, adverbs) by synonyms."""
    return _substitute(units, rng, resources, prefer_objects=False)


def q6_random_deletion(units: Units, rng: random.Random, resources: NoiseResources) -> Units:
    """Delete about 15 % of the deletable units (not quantities, not VERB/ADJ/ADV, not templates,
    not sentence-final punctuation)."""
    deletable = [i for i, u in enumerate(units) if not u.protected and not u.template
                 and u.pos not in PROTECTED_POS and not _is_final_punct(units, i)]
    if not deletable:
        return list(units)
    count = max(1, round(DELETION_RATE * len(deletable)))
    gone = set(rng.sample(deletable, min(count, len(deletable))))
    return [u for i, u in enumerate(units) if i not in gone]


def q7_word_insertion(units: Units, rng: random.Random, resources: NoiseResources) -> Units:
    """Insert random corpus words and synonyms of words present, about one per ten units."""
    out = list(units)
    count = max(1, round(INSERTION_RATE * len(units)))
    present = [u for u in units if not u.protected and not u.template and u.pos in SUBSTITUTE_POS]
    for _ in range(count):
        word = None
        if present and resources.synonyms is not None and rng.random() < 0.5:
            unit = rng.choice(present)
            options = sorted(s for s in resources.lookup(unit.text, unit.lemma, unit.pos) if " " not in s)
            word = rng.choice(options) if options else None
        if word is None and resources.vocabulary:
            word = rng.choice(resources.vocabulary)
        if word is None:
            continue
        position = rng.randrange(0, len(out) + 1)
        sent = out[min(position, len(out) - 1)].sent if out else 0
        out.insert(position, Unit(word, " ", "X", word.lower(), "dep", sent, index=-1))
    return out


# --- inference noise (pseudo-adversarial) --------------------------------------------------------


def _most_fluent(candidates: list[Units], rng: random.Random, resources: NoiseResources) -> Units:
    unique: dict[str, Units] = {}
    for candidate in candidates:
        unique.setdefault(detokenize(candidate), candidate)
    texts = sorted(unique)
    if len(texts) > MAX_FLUENCY_CANDIDATES:
        texts = rng.sample(texts, MAX_FLUENCY_CANDIDATES)
    if resources.fluency is None:
        return unique[rng.choice(texts)]
    scores = resources.fluency.score(texts)
    best = max(range(len(texts)), key=lambda i: (scores[i], -i))
    return unique[texts[best]]


def i1_sentence_permutation(units: Units, rng: random.Random, resources: NoiseResources) -> Units:
    """Rotate one sentence so that it starts at a preposition ("On the way home Steve rode …");
    with no preposition, at every cut point. The most fluent rotation is kept."""
    sentences = sentences_of(units)
    order = [i for i, s in enumerate(sentences) if len(_split_tail(s)[0]) > 2]
    if not order:
        return list(units)
    number = rng.choice(order)
    body, tail = _split_tail(sentences[number])
    cuts = [h for h in range(1, len(body)) if body[h].pos == "ADP" or body[h].dep == "prep"] or list(range(1, len(body)))
    candidates = []
    for h in cuts:
        rotated = body[h:] + body[:h]
        new = [u for s in sentences[:number] for u in s] + rotated + tail + [u for s in sentences[number + 1:] for u in s]
        candidates.append(_capitalise_start(new))
    return _most_fluent(candidates, rng, resources)


def _unit_ranges(units: Units, resources: NoiseResources) -> dict[str, list[tuple[int, int]]]:
    """Phrase spans (NP, VP, PP, CC) as contiguous position ranges of the current units."""
    from ..nlp import parse
    from ..phrases import phrase_spans

    original = [u for u in units if u.index >= 0]
    if not original:
        return {}
    text = resources.source_text
    if not text:
        return {}
    spans = phrase_spans(parse(text, resources.spacy_model), backend=resources.phrase_backend)
    resources.note("constituency", spans.backend)
    position = {u.index: p for p, u in enumerate(units) if u.index >= 0}
    by_token: dict[int, int] = {}
    for u in units:
        if u.index >= 0:
            for t in range(u.token_start, u.token_end):
                by_token[t] = u.index
    out: dict[str, list[tuple[int, int]]] = {}
    for phrase in spans:
        indices = sorted({by_token[t] for t in range(phrase.token_start, phrase.token_end) if t in by_token})
        if not indices:
            continue
        positions = sorted(position[i] for i in indices if i in position)
        if not positions or positions[-1] - positions[0] + 1 != len(positions):
            continue  # no longer contiguous (an earlier noise moved part of it)
        out.setdefault(phrase.label, []).append((positions[0], positions[-1] + 1))
    return out


def _swap(units: Units, a: tuple[int, int], b: tuple[int, int]) -> Units | None:
    if a[0] > b[0]:
        a, b = b, a
    if a[1] > b[0]:
        return None  # overlapping
    return units[:a[0]] + units[b[0]:b[1]] + units[a[1]:b[0]] + units[a[0]:a[1]] + units[b[1]:]


def i2_phrase_shuffling(units: Units, rng: random.Random, resources: NoiseResources) -> Units:
    """Shuffle phrases with four regularities and keep the most fluent result: (i) a PP moved to the
    front of its sentence, (ii) the phrases before and after a CC swapped, (iii) two verb phrases
    swapped, (iv) a random NP swapped with a random VP."""
    ranges = _unit_ranges(units, resources)
    candidates: list[Units] = []
    for start, end in ranges.get("PP", []):
        first = min(p for p, u in enumerate(units) if u.sent == units[start].sent)
        if start > first and all(units[p].sent == units[start].sent for p in range(start, end)):
            candidates.append(units[:first] + units[start:end] + units[first:start] + units[end:])
    for cc_start, _ in ranges.get("CC", []):
        before = [r for label in ("NP", "VP") for r in ranges.get(label, []) if r[1] == cc_start]
        after = [r for label in ("NP", "VP") for r in ranges.get(label, []) if r[0] == cc_start + 1]
        if before and after:
            swapped = _swap(units, max(before, key=lambda r: r[1] - r[0]), max(after, key=lambda r: r[1] - r[0]))
            if swapped:
                candidates.append(swapped)
    vps = ranges.get("VP", [])
    for _ in range(3):
        if len(vps) >= 2:
            a, b = rng.sample(vps, 2)
            swapped = _swap(units, a, b)
            if swapped:
                candidates.append(swapped)
        if vps and ranges.get("NP"):
            swapped = _swap(units, rng.choice(ranges["NP"]), rng.choice(vps))
            if swapped:
                candidates.append(swapped)
    candidates = [_capitalise_start(c) for c in candidates if _same_sentences(c)]
    if not candidates:
        return list(units)
    return _most_fluent(candidates, rng, resources)


def _same_sentences(units: Units) -> bool:
    """A shuffle must not move words across sentences."""
    seen: list[int] = []
    for unit in units:
        if not seen or seen[-1] != unit.sent:
            if unit.sent in seen:
                return False
            seen.append(unit.sent)
    return True


def i3_templatization(units: Units, rng: random.Random, resources: NoiseResources) -> Units:
    """Templatization that templates dependency objects first."""
    return _templatize(units, rng, prefer_objects=True)


def i4_synonym_substitution(units: Units, rng: random.Random, resources: NoiseResources) -> Units:
    """Synonym substitution that replaces dependency objects first."""
    return _substitute(units, rng, resources, prefer_objects=True)


i5_deletion = q6_random_deletion
i6_insertion = q7_word_insertion

NoiseFunction = Callable[[Units, random.Random, "NoiseResources"], Units]
