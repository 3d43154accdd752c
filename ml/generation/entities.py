"""Named-entity substitution (paper 002 §3.3.2): people, places and organisations replaced by
others of the same kind (a place or organisation only when its name is written out and does not
read as a person or a label such as a vertex "BC"), CONSISTENTLY: every mention of one entity gets the same new name ("Maya …
she … Maya" -> "Priya … she … Priya"), two entities never get the same one, and a person keeps the
gender the pronouns give them (the pronouns themselves are not touched). Possessives stay
("Maya's" -> "Priya's"); a title stays and only the surname changes ("Mr. Brown" -> "Mr. Khan").

Unlike ParaQD's f7 (one mention at a time, a hard negative), this keeps the problem the same.

>>> import random
>>> out = EntitySubstitutionGenerator().generate(
...     "Maya had 5 pens. She gave 2 to Tom. How many pens does Maya have?", random.Random(0),
...     GenerationResources())[0]
>>> sorted(set(out.meta["mapping"])), out.text.count(out.meta["mapping"]["Maya"])
(['Maya', 'Tom'], 2)
"""
from __future__ import annotations

import random
import re
from collections import Counter
from dataclasses import dataclass

from ..text.nlp import DEFAULT_SPACY_MODEL, named_entities, parse
from ..operators.base import replace_spans
from ..operators.replacement_lists import ENTITY_REPLACEMENTS
from .base import GeneratedCandidate, GenerationResources, NotApplicable, candidates_or_refuse, require_quantities
from .names import FEMALE_NAMES, MALE_NAMES, SURNAMES, UNISEX_NAMES, person_genders, person_mentions

__all__ = ["EntitySubstitutionGenerator", "entity_groups"]

# Places and organisations, from the ParaQD replacement lists (PERSON has its own gendered lists;
# FAC and PRODUCT entries carry articles that rarely fit where the original stood).
PLACE_LABELS = ("GPE", "ORG", "NORP", "LOC")
_TITLE = re.compile(r"^(Mr|Mrs|Ms|Dr|Prof|Miss|Sir|Madam)\.?\s+", re.IGNORECASE)
_SENTENCE_END = re.compile(r"[.?!]\s*$")
_ARTICLE_BEFORE = re.compile(r"\bthe\s+$", re.IGNORECASE)


def _occurrences(text: str, surface: str) -> list[tuple[int, int]]:
    return [(m.start(), m.end()) for m in re.finditer(rf"(?<![\w.]){re.escape(surface)}(?!\w)", text)]


def entity_groups(
    text: str, spacy_model: str = DEFAULT_SPACY_MODEL
) -> list[tuple[str, str, list[tuple[int, int]]]]:
    """``(entity, label, spans)`` for each distinct entity of ``text``, in order of first mention;
    spans cover every occurrence of the entity's words, also where the tagger missed them.

    >>> [(e, label, len(spans)) for e, label, spans in entity_groups("Maya met Tom. Maya paid 5 dollars.")]
    [('Maya', 'PERSON', 2), ('Tom', 'PERSON', 1)]
    """
    labels: dict[str, Counter[str]] = {}
    first: dict[str, int] = {}
    for person in person_mentions(text, spacy_model):
        labels.setdefault(person.text, Counter())["PERSON"] += 2  # our name lists outvote one odd tag
        first.setdefault(person.text, person.start)
    for entity in named_entities(text, labels=PLACE_LABELS, model=spacy_model):
        labels.setdefault(entity.text, Counter())[entity.label] += 1
        first.setdefault(entity.text, entity.start)
    groups, taken = [], set()
    # Longer entities first, so "Mr. Brown" claims its words before "Brown" alone.
    for surface in sorted(labels, key=lambda s: (-len(s), first[s])):
        spans = [s for s in _occurrences(text, surface) if not any(s[0] < b and a < s[1] for a, b in taken)]
        if not spans:
            continue
        taken.update(spans)
        groups.append((surface, labels[surface].most_common(1)[0][0], spans))
    return sorted(groups, key=lambda g: g[2][0][0])


_PERSONAL_PRONOUNS = re.compile(r"\b(he|she|his|her|him|hers|himself|herself)\b", re.IGNORECASE)


_ORG_SUFFIXES = frozenset({
    "inc", "corp", "corporation", "company", "co", "ltd", "limited", "bank", "school", "college", "university",
    "hospital", "airlines", "airways", "motors", "bakery", "store", "stores", "shop", "club", "council", "library",
    "museum", "foods", "farms", "traders", "industries", "group", "insurance", "rail", "railways", "shipping",
})


def _without_article(surface: str) -> str:
    return surface[4:] if surface.lower().startswith("the ") else surface


def _known(surface: str, label: str) -> bool:
    """Whether ``surface`` is recognisably a place, a nationality or an organisation, not a school
    subject, a food or a racing driver the tagger called one ("Math", "Vegetables", "Vettel"):
    a place or nationality the replacement lists hold, an organisation named with its kind
    ("… Bank", "… College")."""
    name = _without_article(surface)
    if label in ("GPE", "LOC"):
        places = {o.lower().removeprefix("the ") for key in ("GPE", "LOC") for o in ENTITY_REPLACEMENTS.get(key, ())}
        return name.lower() in places
    if label == "NORP":  # a list, not an ending: the tagger calls "Sebastian" (Vettel) a nationality
        return name in ENTITY_REPLACEMENTS.get("NORP", ())
    words = name.split()
    return len(words) >= 2 and words[-1].lower().strip(".") in _ORG_SUFFIXES


def _replaceable_place(surface: str, text: str, spacy_model: str, label: str = "ORG") -> bool:
    """A place or organisation that can safely get another name: a known one (:func:`_known`),
    written out with four or more letters and lower-case letters in it (not "BC" or "ABE", vertex
    names; not "p.a."), no digits, and not what reads as a person (a name the person lists know, or
    the subject of the problem's he/she: "Blue Ocean Shipping shared some stickers … he")."""
    if not _known(surface, label):
        return False
    if not _without_article(surface)[:1].isupper():
        return False  # "from the arctic" is a kind of place, not a name: "the Amazon" changed the story
    words = surface.split()
    letters = [c for c in surface if c.isalpha()]
    if len(letters) < 4 or not any(c.islower() for c in surface) or any(c.isdigit() or c == "." for c in surface):
        return False
    if any(len(w) == 1 for w in words) or words[0] in _KNOWN_GIVEN_NAMES:
        return False
    if _PERSONAL_PRONOUNS.search(text):
        doc = parse(text, spacy_model)
        for token in doc:
            if token.text == words[-1] and token.dep_ in ("nsubj", "nsubjpass", "poss"):
                return False
    return True


_KNOWN_GIVEN_NAMES = frozenset(FEMALE_NAMES + MALE_NAMES + UNISEX_NAMES)


def _replaceable_person(surface: str) -> bool:
    """A person whose name can safely change: a titled name ("Mr. Brown") or one that opens with a
    given name the name lists know. The tagger also calls products and labels people ("Kale Kids",
    "Toothpaste A", "Box W"): renaming those changed the problem."""
    if _TITLE.match(surface):
        return True
    words = surface.split()
    return bool(words) and words[0] in _KNOWN_GIVEN_NAMES and all(len(w) > 1 for w in words)


def _other_case(surface: str, text: str) -> bool:
    """Whether ``text`` also writes ``surface`` in another case ("jack" beside "Jack")."""
    return any(m.group(0) != surface for m in re.finditer(rf"(?<!\w){re.escape(surface)}(?!\w)", text, re.I))


def _pool(gender: str | None) -> tuple[str, ...]:
    if gender == "female":
        return FEMALE_NAMES
    if gender == "male":
        return MALE_NAMES
    return FEMALE_NAMES + MALE_NAMES + UNISEX_NAMES


def _present(text: str, name: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(name)}(?!\w)", text, re.IGNORECASE) is not None


@dataclass(frozen=True)
class EntitySubstitutionGenerator:
    """Consistent named-entity substitution (people by gender, places and organisations from the
    ParaQD lists). ``max_candidates`` distinct draws."""

    name: str = "entity_substitution"
    description: str = ("Named-entity substitution, consistent across mentions: people by people of the same "
                        "gender, places and organisations by others; pronouns and possessives kept")
    kind: str = "rule"
    max_candidates: int = 2

    def __post_init__(self) -> None:
        if self.max_candidates < 1:
            raise ValueError("max_candidates must be >= 1")

    def unavailable_reason(self, resources: GenerationResources) -> str | None:
        return None

    def generate(self, text: str, rng: random.Random, resources: GenerationResources) -> list[GeneratedCandidate]:
        model = resources.spacy_model
        groups = entity_groups(text, model)
        if not groups:
            raise NotApplicable("no named entity", operator=self.name)
        # A name also written in another case ("Jack … did jack receive") is left alone: its other
        # spelling would keep the old name.
        people = [g[0] for g in groups if g[1] == "PERSON" and _replaceable_person(g[0]) and not _other_case(g[0], text)]
        # A surname said alone follows its full or titled name ("Mr. Brown … Brown took 14 hours").
        parts = {word for name in people for word in _TITLE.sub("", name).split()}
        kept = [g for g in groups if (g[0] in people or g[0] in parts if g[1] == "PERSON"
                                      else _replaceable_place(g[0], text, model, g[1]))]
        # A name also inside an entity that stays ("Together Lily, David …" read as one person) would
        # be renamed at some mentions only: it is left alone too.
        staying = [span for g in groups if g not in kept for span in g[2]]
        groups = [g for g in kept if not any(a < e and s < b for s, e in _occurrences(text, g[0]) for a, b in staying)]
        if not groups:
            raise NotApplicable("no name that can be replaced safely (a person needs a known given name or a title; "
                                "a place or organisation a written-out name that does not read as a person)",
                                operator=self.name)
        genders = person_genders(text, model)
        candidates = []
        for _ in range(2 * self.max_candidates):
            out, mapping = self._substitute(text, rng, groups, genders)
            if not mapping:
                continue
            try:  # a new name must not read as a number or unit ("Will", "Min")
                require_quantities(text, out, generator=self.name)
            except NotApplicable:
                continue
            candidates.append(GeneratedCandidate(out, self.name, "replace", {
                "mapping": mapping, "labels": {s: label for s, label, _ in groups if s in mapping},
            }))
            if len({c.text for c in candidates}) >= self.max_candidates:
                break
        return candidates_or_refuse(text, candidates, generator=self.name, reason="no entity could be replaced",
                                    limit=self.max_candidates)

    def _substitute(
        self, text: str, rng: random.Random, groups: list[tuple[str, str, list[tuple[int, int]]]],
        genders: dict[str, str | None],
    ) -> tuple[str, dict[str, str]]:
        used: set[str] = set()
        mapping: dict[str, str] = {}
        parts: dict[str, str] = {}  # "Smith" -> "Khan" once "John Smith" became "Ravi Khan"
        edits = []
        # Whole names first, so that their parts mentioned alone follow them.
        for surface, label, spans in sorted(groups, key=lambda g: (g[1] != "PERSON", -len(g[0].split()))):
            if label == "PERSON" and surface in parts:
                new = parts[surface]
            else:
                new = self._replacement(text, rng, surface, label, genders.get(surface), used, spans)
            if new is None:
                continue
            used.add(new.lower())
            mapping[surface] = new
            old_words, new_words = _TITLE.sub("", surface).split(), _TITLE.sub("", new).split()
            if label == "PERSON" and len(old_words) == len(new_words) and len(surface.split()) > 1:
                for old_word, new_word in zip(old_words, new_words):
                    parts.setdefault(old_word, new_word)
            for start, end in spans:
                word = new
                if word[:1].islower() and (start == 0 or _SENTENCE_END.search(text, 0, start)):
                    word = word[:1].upper() + word[1:]
                edits.append((start, end, word))
        order = [surface for surface, _, _ in groups if surface in mapping]
        return replace_spans(text, edits), {surface: mapping[surface] for surface in order}

    def _replacement(
        self, text: str, rng: random.Random, surface: str, label: str, gender: str | None, used: set[str],
        spans: list[tuple[int, int]],
    ) -> str | None:
        def fresh(options: tuple[str, ...]) -> list[str]:
            return [o for o in options if o.lower() not in used and o.lower() != surface.lower()
                    and not _present(text, o.split()[-1] if o.split() else o)]

        if label == "PERSON":
            title = _TITLE.match(surface)
            if title:  # "Mr. Brown" -> "Mr. Khan": the title carries the gender
                options = fresh(SURNAMES)
                return title.group(0) + rng.choice(options) if options else None
            words = surface.split()
            options = fresh(_pool(gender))
            if not options:
                return None
            given = rng.choice(options)
            if len(words) > 1:  # "John Smith" -> "Ravi Khan"
                surnames = [s for s in fresh(SURNAMES) if s.lower() not in used]
                return f"{given} {rng.choice(surnames)}" if surnames else given
            return given
        options = fresh(tuple(o for o in ENTITY_REPLACEMENTS.get(label, ()) if not o.lower().startswith("a ")))
        after_the = any(_ARTICLE_BEFORE.search(text, 0, start) for start, _ in spans)
        if after_the:
            # "the United States" -> "the Red Cross" keeps one article; a bare name after "the" does not fit
            options = [o[4:] for o in options if o.lower().startswith("the ")]
        elif any(o.lower().startswith("the ") for o in options):
            options = [o for o in options if not o.lower().startswith("the ")] or options
        return rng.choice(options) if options else None
