"""Shuffling: q2 (contiguous spans of 2–4 units), q3 (every unit) and i2 (phrases moved by
the regularities of App. A.2.1 over the constituency parse, keeping the most fluent result)."""
from __future__ import annotations

import random
from functools import lru_cache

from ..text.nlp import parse
from ..text.phrases import phrase_spans
from .base import MAX_FLUENCY_CANDIDATES, Units, most_fluent, noise_function, recapitalise
from .resources import NoiseResources
from .units import detokenize

__all__ = ["SHUFFLE_SPAN", "i2_phrase_shuffling", "q2_random_shuffling", "q3_complete_shuffling"]

SHUFFLE_SPAN = (2, 4)
"""Sizes of the contiguous spans q2 shuffles; it shuffles one span per eight units (at least one)."""


def _body_and_end(units: Units) -> tuple[Units, Units]:
    """The units without the text's final punctuation, and that punctuation."""
    if units and units[-1].upos == "PUNCT":
        return units[:-1], units[-1:]
    return units, []


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


@lru_cache(maxsize=2048)
def _phrases(text: str, spacy_model: str, backend: str) -> tuple[str, tuple[tuple[str, int, int], ...]]:
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
                candidate = recapitalise(group[round_])
                candidates.setdefault(detokenize(candidate), candidate)
    if not candidates:
        return list(units)
    return most_fluent(list(candidates.values()), rng, resources)
