"""Which words of a problem a substitution may touch, and how a new word is written in: inflected
like the old one (lemminflect), with its capitalisation, and "a"/"an" agreeing.

Shared by synonym substitution, fill-mask and the EDA baseline.

>>> inflect("purchase", "VBD"), inflect("large", "JJR"), match_case("automobile", "Car")
('purchased', 'larger', 'Automobile')
>>> [t.text for t in replaceable_tokens("Maya bought 12 apples at the market. How many apples are left?")]
['bought', 'apples', 'market', 'apples']
"""
from __future__ import annotations

import difflib
from functools import lru_cache
from typing import TYPE_CHECKING

from ..text.nlp import DEFAULT_SPACY_MODEL, parse
from ..text.number_mentions import find_all_numbers
from ..operators.base import replace_spans
from ..text.units import UNITS, find_units
from .names import person_mentions

if TYPE_CHECKING:
    from spacy.tokens import Doc, Token

__all__ = [
    "CONTENT_POS",
    "LIGHT_VERBS",
    "MATH_WORDS",
    "inflect",
    "is_variant",
    "lexicon_lemmas",
    "match_case",
    "replace_tokens",
    "replaceable_tokens",
    "usable_word",
]

CONTENT_POS = ("NOUN", "VERB", "ADJ", "ADV")
# Verbs too polysemous to swap safely, as sources and as synonyms ("begin" -> "get").
LIGHT_VERBS = frozenset({"be", "have", "do", "get", "make", "take", "go", "come", "give", "put", "set", "let",
                         "keep", "hold", "pass", "feature"})
# Words that carry the arithmetic of a problem: a "synonym" would change it ("average" -> "norm").
MATH_WORDS = frozenset({
    "left", "total", "altogether", "together", "per", "each", "every", "remaining", "rest", "remain", "more",
    "less", "fewer", "same", "other", "another", "first", "second", "third", "last", "half", "twice", "double",
    "triple", "times", "number", "amount", "average", "sum", "difference", "product", "quotient", "percent",
    "percentage", "rate", "ratio", "equal", "equally", "only", "many", "much", "some", "all", "both", "least",
    "most", "whole", "part", "initially", "originally", "now", "then", "still", "already", "again", "also",
    "pair", "dozen", "score", "couple", "quarter", "single", "alone", "extra", "additional",
})
# Imperatives that ask the question ("Find the speed").
_QUESTION_VERBS = {"find", "calculate", "compute", "determine", "estimate", "evaluate", "solve", "express",
                   "give", "state", "work"}
_WH_TAGS = {"WDT", "WP", "WP$", "WRB"}
# Tags whose word is the lemma itself (no inflection to apply).
_BASE_TAGS = {"NN", "NNP", "VB", "VBP", "JJ", "RB"}
_VOWEL_SOUND_EXCEPTIONS_AN = ("hour", "honest", "honor", "honour", "heir")
_VOWEL_SOUND_EXCEPTIONS_A = ("uni", "use", "usu", "eu", "one", "once", "ewe")


@lru_cache(maxsize=4096)
def inflect(lemma: str, tag: str) -> str | None:
    """``lemma`` inflected for the Penn ``tag`` ("purchase", "VBD" -> "purchased"); None when
    lemminflect has no form for it."""
    from lemminflect import getInflection

    if tag in _BASE_TAGS:
        return lemma
    forms = getInflection(lemma, tag=tag)
    return forms[0] if forms else None


def match_case(word: str, model: str) -> str:
    """``word`` written with the capitalisation of ``model``."""
    if model.isupper() and len(model) > 1:
        return word.upper()
    if model[:1].isupper():
        return word[:1].upper() + word[1:]
    return word


@lru_cache(maxsize=8192)
def lexicon_lemmas(word: str) -> dict[str, tuple[str, ...]]:
    from lemminflect import getAllLemmas

    return getAllLemmas(word.lower())


def is_variant(a: str, b: str) -> bool:
    """Spelling or inflectional variants of one word ("organise"/"organize", "book"/"books"), not
    compounds ("market"/"marketplace")."""
    a, b = a.lower(), b.lower()
    if a == b:
        return True
    short, long = sorted((a, b), key=len)
    if short in long and len(long) - len(short) <= 3:
        return True
    return difflib.SequenceMatcher(None, a, b).ratio() >= 0.8


@lru_cache(maxsize=1)
def _unit_words() -> frozenset[str]:
    words = set()
    for unit in UNITS.values():
        for form in (unit.singular, unit.plural, *unit.variants, *unit.abbreviations):
            words.update(w.lower().strip(".") for w in form.split())
    return frozenset(w for w in words if w)


@lru_cache(maxsize=1)
def _stop_words() -> frozenset[str]:
    from spacy.lang.en.stop_words import STOP_WORDS

    return frozenset(STOP_WORDS)


def usable_word(word: str) -> bool:
    """A word that may be written in as a synonym: a plain lower-case content word (nouns, verbs,
    adjectives, adverbs in lemminflect's lexicon), not a number, unit, light verb or arithmetic
    word. (spaCy's stop list is not used here: it holds content words such as "move".)"""
    return (word.isalpha() and word.isascii() and len(word) >= 3 and word not in _unit_words()
            and word not in LIGHT_VERBS and word not in MATH_WORDS and not find_all_numbers(word)
            and any(pos in CONTENT_POS for pos in lexicon_lemmas(word)))


# --- which words may change ---------------------------------------------------------------------


def _protected_spans(text: str, doc: Doc, spacy_model: str) -> list[tuple[int, int]]:
    spans = [(n.start, n.end) for n in find_all_numbers(text, ordinals=True)]
    spans += [(u.start, u.end) for u in find_units(text)]
    spans += [(e.start_char, e.end_char) for e in doc.ents]
    spans += [(p.start, p.end) for p in person_mentions(text, spacy_model)]
    return spans


def replaceable_tokens(
    text: str, spacy_model: str = DEFAULT_SPACY_MODEL, pos: tuple[str, ...] = CONTENT_POS
) -> list[Token]:
    """The tokens of ``text`` a substitution may touch: content words of the given parts of speech
    that are no number, unit, named entity, person, question word, stop word, light verb or
    arithmetic word ("left", "total", "each")."""
    doc = parse(text, spacy_model)
    protected = _protected_spans(text, doc, spacy_model)
    words = []
    for token in doc:
        start, end = token.idx, token.idx + len(token.text)
        if token.pos_ not in pos or token.tag_ in ("NNP", "NNPS") or not token.is_alpha or len(token.text) < 3:
            continue
        if token.dep_ == "compound":
            continue  # "walnut trees", "Park workers": the modifier names a kind, a synonym changes it
        lemma = token.lemma_.lower()
        if token.is_stop or token.lower_ in _stop_words() or lemma in LIGHT_VERBS or lemma in MATH_WORDS \
                or token.lower_ in MATH_WORDS or token.lower_ in _unit_words() or lemma in _unit_words():
            continue
        if token.tag_ in _WH_TAGS or (token.i > 0 and doc[token.i - 1].lower_ == "how"):
            continue
        if lemma in _QUESTION_VERBS and token.i == token.sent.start:
            continue
        if any(start < b and a < end for a, b in protected):
            continue
        words.append(token)
    return words


def _article_edit(token: Token, new_word: str) -> tuple[int, int, str] | None:
    """Fix "a"/"an" before a replaced word ("an apple" -> "a fruit")."""
    if token.i == 0:
        return None
    article = token.doc[token.i - 1]
    if article.lower_ not in ("a", "an"):
        return None
    lower = new_word.lower()
    vowel = lower[:1] in "aeiou"
    if lower.startswith(_VOWEL_SOUND_EXCEPTIONS_AN):
        vowel = True
    elif lower.startswith(_VOWEL_SOUND_EXCEPTIONS_A):
        vowel = False
    wanted = "an" if vowel else "a"
    if article.lower_ == wanted:
        return None
    return article.idx, article.idx + len(article.text), match_case(wanted, article.text)


def replace_tokens(text: str, replacements: list[tuple[Token, str]]) -> str:
    """``text`` with each ``(token, new word)`` written in, "a"/"an" before it made to agree."""
    edits = []
    for token, word in replacements:
        edits.append((token.idx, token.idx + len(token.text), word))
        article = _article_edit(token, word)
        if article is not None:
            edits.append(article)
    return replace_spans(text, edits)
