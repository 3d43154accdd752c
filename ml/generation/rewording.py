"""Everyday words of a word problem reworded from a small hand-kept lexicon: "buys" -> "purchases",
"each day" -> "every day", "is able to" -> "can", "the store" -> "the shop", "Find the speed" ->
"Determine the speed".

WordNet synonyms break word problems one time in four even when ranked in context ("interest" ->
"sake", "area" -> "country": docs/results/handout.md); a teacher varies a problem with a few words
whose swap never changes what is asked. This lexicon holds only such pairs, each with the condition
under which it is safe (a part of speech, a direct object, a following "to"-infinitive, a time noun
after "each"), and never a number, unit, name, arithmetic word or domain term (price, rate, interest,
profit, area, speed). A noun changes at every mention or at none; each new word is inflected like
the old one (lemminflect), keeps its capitalisation, and "a"/"an" agrees with it.

The pairs are written by hand rather than drawn from a thesaurus: no packaged word list restricts a
synonym to the senses a word problem uses.

>>> reword("Maya buys 3 pens each day at the store.")
'Maya purchases 3 pens every day at the shop.'
>>> reword("She was able to finish the test in 40 minutes. Find the time left.")
'She could complete the exam in 40 minutes. Determine the time left.'
>>> reword("How long will it take 3 workers to build a wall?")
'How much time will it take 3 workers to construct a wall?'
"""
from __future__ import annotations

import random
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..text.nlp import DEFAULT_SPACY_MODEL, parse
from ..text.number_mentions import find_all_numbers
from ..text.units import find_units
from .base import GeneratedCandidate, GenerationResources, one_rewrite
from .names import person_mentions
from .words import inflect, match_case, replace_tokens

if TYPE_CHECKING:
    from spacy.tokens import Token

__all__ = ["LEXICON", "PHRASES", "RewordingGenerator", "Swap", "reword", "rewording_swaps"]


@dataclass(frozen=True)
class Swap:
    """``lemma`` (a word of part of speech ``pos``) written as ``target`` (a lemma, inflected like the
    original; a phrase's first word is inflected) when ``needs`` holds:

    - ``"object"``: the verb has a direct object (or is a participle before its noun);
    - ``"dobj"``: the verb has a direct object ("raises the price", not "the increased price");
    - ``"to"``: the verb is followed by a "to"-infinitive ("wants to buy");
    - ``"no_to"``: it is not ("needs 5 cups", not "needs to");
    - ``"modifier"``: the adjective stands before its noun;
    - ``"sharing"``: the adverb says how something is shared ("divided equally", not "equally
      efficient" or "equally priced");
    - ``"plural"``: … before a plural noun ("how many different codes", not "a different store");
    - ``"time"``: the determiner counts a time noun with no number ("each day", not "each of");
    - ``"imperative"``: the verb starts its sentence as a command ("Find the speed.");
    - ``"work"``: the verb's object is a piece of work ("do a job in 10 days", "do it" where the
      problem is about work);
    - ``"vehicle"``: a vehicle does it ("a train running at 54 km/hr", not "a man runs");
    - ``"point"``: a vehicle passes something without length ("crosses a pole", not "crosses a
      bridge", whose length counts);
    - ``"departure"``: a vehicle leaves a place it names ("a train leaves Delhi", not "leaves a remainder");
    - ``"distance"``, ``"container"``, ``"coin"``, ``"drawn"``: what the verb acts on is a distance
      ("covers 30 km", not "covers the floor"), holds a liquid ("empties the tank"), is a coin, or is a
      ball, card or like token ("two balls are drawn", not "draw a line");
    - ``"sharing_out"``: divided among or between ("divided among A and B", not "divided by 5");
    - ``"determined"``: with a determiner, possessive or adjective ("the examination", not "without examination");
    - ``"chosen"``: the verb has an object or a passive subject ("3 people are selected");
    - ``"superlative"``: right before its noun ("the greatest number", not "greatest common divisor").
    """

    lemma: str
    pos: str
    target: str
    needs: str = ""


LEXICON: tuple[Swap, ...] = (
    # verbs
    Swap("buy", "VERB", "purchase"), Swap("purchase", "VERB", "buy"),
    Swap("need", "VERB", "require", "no_to"), Swap("require", "VERB", "need", "no_to"),
    Swap("collect", "VERB", "gather", "object"), Swap("gather", "VERB", "collect", "object"),
    Swap("receive", "VERB", "get", "object"),
    Swap("start", "VERB", "begin"), Swap("begin", "VERB", "start"),
    Swap("finish", "VERB", "complete", "object"), Swap("complete", "VERB", "finish", "object"),
    Swap("contain", "VERB", "hold", "object"), Swap("own", "VERB", "have", "object"),
    Swap("select", "VERB", "choose", "chosen"), Swap("choose", "VERB", "select", "chosen"),
    Swap("hire", "VERB", "employ", "object"), Swap("employ", "VERB", "hire", "object"),
    Swap("donate", "VERB", "give", "object"),
    Swap("try", "VERB", "attempt", "to"), Swap("attempt", "VERB", "try", "to"),
    Swap("want", "VERB", "wish", "to"), Swap("decide", "VERB", "choose", "to"),
    Swap("produce", "VERB", "make", "object"), Swap("assume", "VERB", "suppose"),
    Swap("split", "VERB", "divide", "object"),
    Swap("earn", "VERB", "make", "dobj"), Swap("obtain", "VERB", "get", "dobj"), Swap("create", "VERB", "make", "dobj"),
    Swap("prepare", "VERB", "make", "dobj"), Swap("build", "VERB", "construct", "dobj"),
    Swap("construct", "VERB", "build", "dobj"), Swap("repair", "VERB", "fix", "dobj"),
    Swap("attend", "VERB", "go to", "dobj"), Swap("utilize", "VERB", "use", "dobj"),
    Swap("inform", "VERB", "tell", "dobj"), Swap("distribute", "VERB", "hand out", "dobj"),
    Swap("do", "VERB", "complete", "work"), Swap("run", "VERB", "travel", "vehicle"),
    Swap("cross", "VERB", "pass", "point"), Swap("leave", "VERB", "depart from", "departure"),
    Swap("cover", "VERB", "travel", "distance"), Swap("empty", "VERB", "drain", "container"),
    Swap("toss", "VERB", "flip", "coin"), Swap("pick", "VERB", "select", "drawn"), Swap("draw", "VERB", "take", "drawn"),
    Swap("represent", "VERB", "stand for", "dobj"), Swap("divide", "VERB", "share", "sharing_out"),
    Swap("plan", "VERB", "intend", "to"), Swap("intend", "VERB", "plan", "to"), Swap("wish", "VERB", "want", "to"),
    Swap("find", "VERB", "determine", "imperative"), Swap("determine", "VERB", "find", "imperative"),
    Swap("calculate", "VERB", "work out", "imperative"), Swap("compute", "VERB", "work out", "imperative"),
    # adjectives
    Swap("large", "ADJ", "big", "modifier"), Swap("big", "ADJ", "large", "modifier"),
    Swap("entire", "ADJ", "whole"), Swap("additional", "ADJ", "extra", "modifier"),
    Swap("extra", "ADJ", "additional", "modifier"), Swap("different", "ADJ", "distinct", "plural"),
    Swap("certain", "ADJ", "particular", "modifier"), Swap("original", "ADJ", "initial", "modifier"),
    Swap("initial", "ADJ", "original", "modifier"), Swap("annual", "ADJ", "yearly", "modifier"),
    Swap("yearly", "ADJ", "annual", "modifier"), Swap("specific", "ADJ", "particular", "modifier"),
    Swap("various", "ADJ", "different", "plural"), Swap("quick", "ADJ", "fast", "modifier"),
    Swap("successive", "ADJ", "consecutive", "modifier"), Swap("maximum", "ADJ", "greatest", "modifier"),
    Swap("minimum", "ADJ", "least", "modifier"), Swap("great", "ADJ", "large", "superlative"),
    # adverbs
    Swap("initially", "ADV", "at first"), Swap("originally", "ADV", "at first"),
    Swap("currently", "ADV", "at present"), Swap("approximately", "ADV", "roughly"),
    Swap("roughly", "ADV", "approximately"), Swap("equally", "ADV", "evenly", "sharing"), Swap("evenly", "ADV", "equally", "sharing"),
    Swap("exactly", "ADV", "precisely"), Swap("immediately", "ADV", "right away"),
    Swap("simultaneously", "ADV", "at the same time"),
    Swap("usually", "ADV", "normally"), Swap("normally", "ADV", "usually"),
    Swap("completely", "ADV", "entirely"), Swap("entirely", "ADV", "completely"),
    Swap("nearly", "ADV", "almost"), Swap("almost", "ADV", "nearly"),
    Swap("finally", "ADV", "in the end"), Swap("eventually", "ADV", "in the end"),
    Swap("additionally", "ADV", "also"), Swap("instantly", "ADV", "immediately"), Swap("altogether", "ADV", "in total"),
    # nouns
    Swap("store", "NOUN", "shop"), Swap("shop", "NOUN", "store"), Swap("kid", "NOUN", "child"),
    Swap("pupil", "NOUN", "student"),
    Swap("trip", "NOUN", "journey"), Swap("journey", "NOUN", "trip"),
    Swap("mom", "NOUN", "mother"), Swap("dad", "NOUN", "father"),
    Swap("student", "NOUN", "pupil"), Swap("child", "NOUN", "kid"), Swap("exam", "NOUN", "test"),
    Swap("test", "NOUN", "exam"), Swap("teacher", "NOUN", "instructor"), Swap("gift", "NOUN", "present"),
    Swap("bike", "NOUN", "bicycle"), Swap("bicycle", "NOUN", "bike"), Swap("movie", "NOUN", "film"),
    Swap("film", "NOUN", "movie"), Swap("automobile", "NOUN", "car"), Swap("vacation", "NOUN", "holiday"),
    Swap("employee", "NOUN", "worker"), Swap("labourer", "NOUN", "worker"), Swap("laborer", "NOUN", "worker"),
    Swap("workman", "NOUN", "worker"), Swap("cistern", "NOUN", "tank"), Swap("article", "NOUN", "item"),
    Swap("examination", "NOUN", "exam", "determined"),
    # determiners
    Swap("each", "DET", "every", "time"), Swap("every", "DET", "each", "time"),
)

# Fixed phrases, matched in the text (case kept on the first letter): (pattern, replacement).
PHRASES: tuple[tuple[str, str], ...] = (
    (r"\bin order to\b", "to"),
    (r"\b(?:is|are) able to\b", "can"),
    (r"\b(?:was|were) able to\b", "could"),
    (r"\bin total(?=[,.?!])", "altogether"),
    (r"\bin all(?=[,.?!])", "altogether"),
    (r"\bat the same time\b", "simultaneously"),
    (r"\bright away\b", "immediately"),
    (r"\bis equal to\b", "equals"),
    (r"\bare equal to\b", "equal"),
    (r"\bhow long (will|does|did|would|do|can|could) it take\b", r"how much time \1 it take"),
    (r"\bat random\b", "randomly"),
    (r"\bin the beginning\b", "at first"),
    (r"\bin addition to\b", "besides"),
    (r"\bbecause of\b", "due to"),
    (r"\bper annum\b", "per year"),
    (r"\bin place of\b", "instead of"),
    (r"\bin what time\b", "in how much time"),
    (r"(?:(?<=^)|(?<=[.?!] ))find out\b", "determine"),
    (r"\bconsists of\b", "is made up of"),
    (r"\bconsisted of\b", "was made up of"),
)

_TIME_NOUNS = frozenset({"day", "week", "month", "year", "hour", "minute", "second", "morning", "evening",
                         "night", "afternoon", "weekend", "time", "semester", "season", "game", "round", "visit"})
# Entities that name something ("the Corner Store"); a date or quantity ("each day") may be reworded.
_NAME_ENTITIES = frozenset({"PERSON", "ORG", "GPE", "LOC", "NORP", "FAC", "PRODUCT", "WORK_OF_ART", "EVENT", "LAW",
                            "LANGUAGE"})
# Particles of phrasal verbs ("starts out", "picks up"); the tagger also reads "buy in a week" as a
# particle, which is no phrasal verb.
_PARTICLES = frozenset({"out", "up", "off", "down", "away", "over", "back", "on", "about", "around", "through"})
_SHARING_VERBS = frozenset({"divide", "share", "split", "distribute", "spread", "space", "allocate", "cut", "give",
                            "pay", "sell", "pack", "place", "put", "arrange", "hand"})
# Modifiers that make a name of their own with the noun ("round trip", "general store").
_FIXED_MODIFIERS = frozenset({"round", "return", "field", "business", "day", "school", "general", "department",
                              "convenience", "grocery", "thrift", "candy", "toy", "pet", "book", "maiden", "road"})
_BY_KEY = {(s.lemma, s.pos): s for s in LEXICON}
_DISTANCES = frozenset({"distance", "journey", "km", "kilometre", "kilometer", "mile", "metre", "meter", "route"})
_CONTAINERS = frozenset({"tank", "cistern", "pool", "reservoir", "bucket", "tub", "drum", "barrel", "vessel"})
_TOKENS = frozenset({"ball", "card", "marble", "ticket", "chip", "bead", "sock", "bulb", "coin", "disc", "token"})
_WORK = frozenset({"work", "job", "task", "piece", "assignment", "project"})
_VEHICLES = frozenset({"train", "car", "bus", "truck", "boat", "ship", "vehicle", "motorboat", "steamer", "lorry",
                       "tram", "jeep", "van", "taxi", "scooter", "motorcycle"})
# Things a train passes in an instant (a pole, a man), unlike a bridge or a platform whose length
# the problem adds: "crosses" and "passes" mean the same only for these.
_POINTS = frozenset({"pole", "post", "man", "person", "boy", "girl", "woman", "tree", "signal", "lamp", "milestone",
                     "pillar", "telegraph", "signpost", "child", "cyclist", "pedestrian"})


def _subject_lemma(token: Token) -> str | None:
    """The lemma of who does ``token``: its subject, or the noun a participle describes."""
    for child in token.children:
        if child.dep_ in ("nsubj", "nsubjpass"):
            return child.lemma_.lower()
    if token.dep_ in ("acl", "amod", "relcl"):
        return token.head.lemma_.lower()
    return None


def _things(token: Token) -> list[str]:
    """The lemmas of what ``token`` acts on: its direct objects, its passive subjects, or the noun a
    participle describes ("the balls drawn")."""
    found = [c.lemma_.lower() for c in token.children if c.dep_ in ("dobj", "obj", "nsubjpass")]
    if not found and token.dep_ in ("acl", "amod"):
        found = [token.head.lemma_.lower()]
    return found


def _holds(token: Token, needs: str) -> bool:
    children = list(token.children)
    if needs in ("object", "dobj"):
        has_object = any(c.dep_ in ("dobj", "obj") for c in children)
        return has_object or needs == "object" and token.tag_ == "VBN" and token.dep_ == "amod"
    if needs in ("to", "no_to"):
        infinitive = any(c.dep_ == "xcomp" and any(g.lower_ == "to" for g in c.children) for c in children)
        following_to = token.i + 1 < len(token.doc) and token.doc[token.i + 1].lower_ == "to"
        return (infinitive or following_to) if needs == "to" else not (infinitive or following_to)
    if needs == "sharing":
        return token.head.lemma_.lower() in _SHARING_VERBS
    if needs in ("modifier", "plural"):
        head = token.head
        # before a common noun, not a label read as one ("the initial A" names a letter)
        return (token.dep_ == "amod" and head.i > token.i and head.pos_ == "NOUN" and not head.text.isupper()
                and (needs == "modifier" or head.tag_ == "NNS"))
    if needs == "time":
        head = token.head
        return (token.dep_ == "det" and head.lemma_.lower() in _TIME_NOUNS and head.i == token.i + 1
                and not any(c.dep_ == "nummod" for c in head.children))
    if needs == "imperative":
        return token.i == token.sent.start and token.tag_ == "VB" and token.dep_ == "ROOT"
    if needs == "work":
        found = [c for c in children if c.dep_ in ("dobj", "obj")]
        objects = [c.lemma_.lower() for c in found]
        about_work = re.search(r"\b(work|job|task)\b", token.doc.text, flags=re.I) is not None
        # only a determiner or an adjective between "do" and its work: "did the machine work today"
        # is an inverted question whose verb the tagger read as the object (it became "completed")
        between = all(t.tag_ in ("DT", "JJ", "PRP$", "CD") for o in found for t in token.doc[token.i + 1:o.i])
        return bool(objects) and between and all(o in _WORK or o == "it" and about_work for o in objects)
    if needs in ("distance", "container", "coin", "drawn"):
        things = _things(token)
        wanted = {"distance": _DISTANCES, "container": _CONTAINERS, "coin": {"coin"}, "drawn": _TOKENS}[needs]
        return bool(things) and all(t in wanted for t in things)
    if needs == "determined":
        return any(c.dep_ in ("det", "poss", "amod") for c in children)
    if needs == "chosen":
        return bool(_things(token))
    if needs == "superlative":
        head = token.head
        return token.tag_ == "JJS" and token.dep_ == "amod" and head.i == token.i + 1 and head.pos_ == "NOUN"
    if needs == "sharing_out":
        return any(c.dep_ == "prep" and c.lower_ in ("among", "between", "amongst") for c in children)
    if needs == "departure":
        objects = [c for c in children if c.dep_ in ("dobj", "obj")]
        return _subject_lemma(token) in _VEHICLES and len(objects) == 1 and objects[0].pos_ in ("PROPN", "NOUN")
    if needs in ("vehicle", "point"):
        if _subject_lemma(token) not in _VEHICLES:
            return False
        objects = [c.lemma_.lower() for c in children if c.dep_ in ("dobj", "obj")]
        return needs == "vehicle" or bool(objects) and all(o in _POINTS for o in objects)
    return True


def _loose(token: Token) -> bool:
    """Whether an adverb stands at the edge of its clause (sentence start, after or before a comma
    or the sentence's end), where a phrase can take its place."""
    doc = token.doc
    before = doc[token.i - 1] if token.i > 0 else None
    after = doc[token.i + 1] if token.i + 1 < len(doc) else None
    return (token.i == token.sent.start or (before is not None and before.is_punct)
            or after is None or after.is_punct)


def _target_form(token: Token, swap: Swap) -> str | None:
    first, _, rest = swap.target.partition(" ")
    if swap.pos in ("VERB", "NOUN", "ADJ"):
        form = inflect(first, token.tag_)  # "largest" -> "biggest", "kids" -> "children"
        if form is None:
            return None
    else:
        form = first
    return match_case(form + (" " + rest if rest else ""), token.text)


def _protected(text: str, spacy_model: str) -> list[tuple[int, int]]:
    spans = [(n.start, n.end) for n in find_all_numbers(text, ordinals=True)]
    spans += [(u.start, u.end) for u in find_units(text)]
    spans += [(p.start, p.end) for p in person_mentions(text, spacy_model)]
    return spans


def rewording_swaps(text: str, spacy_model: str = DEFAULT_SPACY_MODEL,
                    keep: list[tuple[int, int]] = ()) -> list[tuple[Token, str]]:
    """The lexicon's swaps that apply to ``text``: ``(token, new words)``, every mention alike;
    ``keep``: character spans left as they are (words a fixed phrase just wrote)."""
    doc = parse(text, spacy_model)
    protected = _protected(text, spacy_model) + list(keep)
    # A pair whose target is already in the text is left alone: "the remainder … the rest" would
    # trade places, and a problem that says both "bought" and "purchased" keeps its wording.
    present = {t.lemma_.lower() for t in doc} | {t.lower_ for t in doc}
    swaps, blocked = [], set()
    for token in doc:
        swap = _BY_KEY.get((token.lemma_.lower(), token.pos_))
        if swap is None:
            continue
        form = _swap_form(token, swap, present, protected)
        if form is None:
            blocked.add(swap)
        else:
            swaps.append((token, swap, form))
    # A noun is the same thing at every mention: where one mention cannot be swapped ("the kids'
    # tickets"), none is.
    return [(token, form) for token, swap, form in swaps if swap.pos != "NOUN" or swap not in blocked]


def _swap_form(token: Token, swap: Swap, present: set[str], protected: list[tuple[int, int]]) -> str | None:
    """What ``token`` is written as under ``swap``, or None where the swap is not safe there."""
    doc = token.doc
    if token.tag_ in ("NNP", "NNPS") or token.dep_ == "compound" or token.ent_type_ in _NAME_ENTITIES:
        return None
    if not _holds(token, swap.needs) or _already_there(swap.target, doc.text.lower(), present):
        return None
    if swap.pos == "VERB" and any(c.dep_ == "prt" and c.lower_ in _PARTICLES for c in token.children):
        return None  # a phrasal verb is a word of its own: "starts out" is not "begins out"
    if swap.pos == "ADV" and " " in swap.target and not _loose(token):
        return None  # "He at first had …": a phrase reads well only at a clause's edge
    start, end = token.idx, token.idx + len(token.text)
    if any(start < b and a < end for a, b in protected):
        return None
    if swap.pos == "NOUN":
        if any(c.dep_ == "compound" or c.lower_ in _FIXED_MODIFIERS for c in token.children):
            return None  # "round trip", "grocery store": the pair is a name of its own
        following = doc[token.i + 1] if token.i + 1 < len(doc) else None
        if following is not None and (following.like_num or following.text.isupper()):
            return None  # a label ("store A", "trip 2") names one thing; it is not reworded
        if following is not None and following.tag_ == "POS":
            return None  # "the kids' tickets" would lose its apostrophe's place
    return _target_form(token, swap)


def _already_there(target: str, lowered: str, present: set[str]) -> bool:
    """Whether the problem already says ``target`` (a word, any form; a phrase, as written)."""
    if " " in target:
        return re.search(rf"\b{re.escape(target)}\b", lowered) is not None
    return target in present


def _phrases(text: str) -> tuple[str, list[tuple[int, int]]]:
    """``text`` with the fixed phrases rewritten, and the spans of what they wrote (so that no word
    swap turns a phrase's output back: "at the same time" -> "simultaneously" -> "at the same time")."""
    spans: list[tuple[int, int]] = []
    for pattern, replacement in PHRASES:
        pieces, written, last, length = [], [], 0, 0
        for match in re.finditer(pattern, text, flags=re.I):
            new = match_case(match.expand(replacement), match.group(0))
            start = length + match.start() - last
            pieces += [text[last:match.start()], new]
            written.append((match.start(), match.end(), start, start + len(new)))
            last, length = match.end(), start + len(new)
        if not written:
            continue
        pieces.append(text[last:])
        text = "".join(pieces)
        spans = [_shifted(span, written) for span in spans] + [(a, b) for _, _, a, b in written]
    return text, spans


def _shifted(span: tuple[int, int], written: list[tuple[int, int, int, int]]) -> tuple[int, int]:
    shift = sum((new_end - new_start) - (end - start) for start, end, new_start, new_end in written
                if end <= span[0])
    return span[0] + shift, span[1] + shift


def reword(text: str, spacy_model: str = DEFAULT_SPACY_MODEL) -> str:
    """``text`` with every swap of the lexicon that applies (unchanged where none does): the fixed
    phrases first, then the word swaps outside what they wrote."""
    phrased, written = _phrases(text)
    return replace_tokens(phrased, rewording_swaps(phrased, spacy_model, keep=written))


@dataclass(frozen=True)
class RewordingGenerator:
    """The problem with its everyday words reworded from a hand-kept lexicon of safe pairs."""

    name: str = "rewording"
    description: str = ("Everyday words reworded from a hand-kept lexicon: 'buys 3 pens each day at the store' "
                        "becomes 'purchases 3 pens every day at the shop'")
    kind: str = "rule"

    def unavailable_reason(self, resources: GenerationResources) -> str | None:
        return None

    def generate(self, text: str, rng: random.Random, resources: GenerationResources) -> list[GeneratedCandidate]:
        return one_rewrite(text, reword(text, resources.spacy_model), generator=self.name, prompt="lexicon",
                           refusal="no word of the rewording lexicon in a context where its swap is safe",
                           spacy_model=resources.spacy_model)
