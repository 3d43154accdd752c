"""Checks of a rewrite's English and meaning that the numeracy features cannot see.

Blind labels of the platform's own candidates (``../shared/data/labels``) found that every rule-based
candidate keeps every number: what breaks is the English. A wrong-sense synonym ("interest" →
"sake", "area" → "country"), a domain term swapped, a run-on "given that …, that …" sentence with
an imperative glued after "that" ("given that consider …"), a stacked passive or one with a pronoun
agent ("were sold by him"), a person renamed to a company. Each check here is a number in
:data:`ENGLISH_FEATURE_NAMES`, with the direction it may push a decision in
:data:`ENGLISH_FEATURE_SIGNS`:

- ``changed_fluency``: the mean log-probability, under the fluency LM, of the candidate's tokens in
  the words it changed or added (0 when it changed none); a wrong-sense word reads improbably there;
- ``substitute_fit``: for each word swapped one for one, how much closer (or further) the new word's
  embedding is to the whole problem than the old word's; the minimum over swaps (0 without swaps).
  "sake" is far from a problem about simple interest, "compute" as close as "calculate";
- ``domain_terms_lost``: occurrences of the problem's quantity nouns (price, profit, interest,
  rate, area, ratio, speed, …) that the candidate no longer has;
- ``broken_joins``: "that" joining a clause that starts with an imperative or a conjunction
  ("given that consider", "and that but"), beyond the problem's own;
- ``longest_sentence``: log(longest candidate sentence / longest problem sentence), in words;
- ``passive_stack``: passive clauses in the candidate's most passive sentence beyond the problem's;
- ``pronoun_agent``: "by him/her/them/it…" agents beyond the problem's;
- ``names_added``: proper nouns the candidate introduces that the problem does not have;
- ``question_lost``: the share of the question sentence's content words the candidate drops.

All take plain strings; the LM's per-token log-probabilities (``ml.noise.fluency``
:meth:`~ml.noise.fluency.CausalLMFluency.token_logprobs`) and a word embedder are passed in.

>>> broken_joins("Find x, given that consider a train and that it runs.")
1
"""
from __future__ import annotations

import difflib
import math
import re
from collections import Counter
from collections.abc import Callable, Sequence

import numpy as np

from ..vocabulary import DOMAIN_TERMS

ENGLISH_FEATURE_NAMES = (
    "changed_fluency", "substitute_fit", "domain_terms_lost", "broken_joins", "longest_sentence",
    "passive_stack", "pronoun_agent", "names_added", "question_lost",
)
ENGLISH_FEATURE_SIGNS = {
    "changed_fluency": 1, "substitute_fit": 1, "domain_terms_lost": -1, "broken_joins": -1, "longest_sentence": -1,
    "passive_stack": -1, "pronoun_agent": -1, "names_added": -1, "question_lost": -1,
}
_PRONOUNS = frozenset({"him", "her", "them", "it", "me", "us", "you", "himself", "herself", "themselves"})
_JOIN_STARTERS = frozenset({"let", "consider", "find", "take", "now", "but", "then", "so", "suppose", "calculate",
                            "determine", "assume", "what", "how", "if"})
_WORD = re.compile(r"[A-Za-z]+(?:'[a-z]+)?|\d+(?:[.,]\d+)*|[^\w\s]")

# (character offsets of each token, its log-probability), as CausalLMFluency.token_logprobs returns.
TokenLogprobs = tuple[Sequence[tuple[int, int]], Sequence[float]]
# words -> one L2-normalised embedding row per word (or text).
WordEmbedder = Callable[[list[str]], np.ndarray]


def _words(text: str) -> list[tuple[str, int]]:
    return [(m.group(0), m.start()) for m in _WORD.finditer(text)]


def changed_words(original: str, candidate: str) -> tuple[list[tuple[str, int]], list[tuple[str, str]]]:
    """(the candidate's words, with their character offsets, that the problem does not have at that
    place; the (old, new) pairs of words swapped one for one), by a word-level diff.

    >>> changed_words("The area is 5.", "The country is 5.")
    ([('country', 4)], [('area', 'country')])
    """
    a, b = _words(original), _words(candidate)
    al, bl = [w.lower() for w, _ in a], [w.lower() for w, _ in b]
    new: list[tuple[str, int]] = []
    swaps: list[tuple[str, str]] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=al, b=bl, autojunk=False).get_opcodes():
        if tag in ("replace", "insert"):
            new += b[j1:j2]
        if tag == "replace" and i2 - i1 == j2 - j1:
            swaps += [(al[i], bl[j]) for i, j in zip(range(i1, i2), range(j1, j2)) if al[i].isalpha() and bl[j].isalpha()]
        elif tag == "replace" and i2 - i1 <= 2 and j2 - j1 <= 2:
            swaps.append((" ".join(al[i1:i2]), " ".join(bl[j1:j2])))
    return new, swaps


def changed_fluency(candidate_lm: TokenLogprobs, spans: Sequence[tuple[int, int]]) -> float:
    """Mean log-probability of the LM tokens that overlap ``spans`` (0.0 when none do)."""
    offsets, logprobs = candidate_lm
    values = [lp for (s, e), lp in zip(offsets, logprobs) if any(s < b and e > a for a, b in spans)]
    return float(sum(values) / len(values)) if values else 0.0


def substitute_fit(original: str, swaps: Sequence[tuple[str, str]], embed: WordEmbedder | None) -> float:
    """min over swaps of cos(new word, problem) − cos(old word, problem); 0.0 without swaps or embedder."""
    if not swaps or embed is None:
        return 0.0
    words = [w for pair in swaps for w in pair]
    vectors = np.asarray(embed([*words, original]))
    problem = vectors[-1]
    return float(min(vectors[2 * k + 1] @ problem - vectors[2 * k] @ problem for k in range(len(swaps))))


def broken_joins(text: str, doc=None) -> int:
    """Clauses joined by "that" (after "given", "and" or a comma) that start with an imperative,
    a conjunction or a question word: "given that consider …", "and that but …"."""
    if doc is None:
        tokens = [(w.lower(), "") for w, _ in _words(text)]
    else:
        tokens = [(t.lower_, t.tag_) for t in doc]
    count = 0
    for i in range(1, len(tokens) - 1):
        word, _ = tokens[i]
        if word == "that" and (tokens[i - 1][0] in ("given", "and", ",")):
            following, tag = tokens[i + 1]
            if following in _JOIN_STARTERS or tag in ("VB", "CC", "UH"):
                count += 1
    return count


def _sentence_stats(doc) -> tuple[int, int]:
    """(words in the longest sentence, passive clauses in the most passive sentence)."""
    longest = passives = 0
    for sent in doc.sents:
        longest = max(longest, sum(1 for t in sent if not t.is_punct and not t.is_space))
        passives = max(passives, sum(1 for t in sent if t.dep_ == "auxpass"))
    return max(longest, 1), passives


def _pronoun_agents(text: str) -> int:
    words = [w.lower() for w, _ in _words(text)]
    return sum(1 for a, b in zip(words, words[1:]) if a == "by" and b in _PRONOUNS)


def _question_words(doc) -> set[str]:
    questions = [s for s in doc.sents if s.text.strip().endswith("?")]
    if not questions:
        return set()
    return {t.lemma_.lower() for t in questions[-1] if t.pos_ in ("NOUN", "PROPN", "ADJ")}


def english_features(original: str, candidate: str, *, original_doc, candidate_doc,
                     candidate_lm: TokenLogprobs | None = None, embed: WordEmbedder | None = None) -> dict[str, float]:
    """The checks of :data:`ENGLISH_FEATURE_NAMES` for one pair; ``*_doc`` are spaCy parses of the
    two texts, ``candidate_lm`` the candidate's per-token log-probabilities (``changed_fluency`` is
    0 without), ``embed`` a word embedder (``substitute_fit`` is 0 without)."""
    new, swaps = changed_words(original, candidate)
    lemmas_c = Counter(t.lemma_.lower() for t in candidate_doc)
    # Quantity words as nouns only: "amounts to" (a verb) is not the amount asked for.
    terms_o = Counter(t.lemma_.lower() for t in original_doc if t.pos_ in ("NOUN", "PROPN"))
    terms_c = Counter(t.lemma_.lower() for t in candidate_doc if t.pos_ in ("NOUN", "PROPN"))
    longest_o, passives_o = _sentence_stats(original_doc)
    longest_c, passives_c = _sentence_stats(candidate_doc)
    vocabulary = {w.lower() for w, _ in _words(original)}
    proper_o = {t.text for t in original_doc if t.pos_ == "PROPN"}
    question = _question_words(original_doc)
    spans = [(start, start + len(word)) for word, start in new]
    return {
        "changed_fluency": changed_fluency(candidate_lm, spans) if candidate_lm is not None and spans else 0.0,
        "substitute_fit": substitute_fit(original, swaps, embed),
        "domain_terms_lost": float(sum(max(0, n - terms_c[lemma]) for lemma, n in terms_o.items()
                                       if lemma in DOMAIN_TERMS)),
        "broken_joins": float(max(0, broken_joins(candidate, candidate_doc) - broken_joins(original, original_doc))),
        "longest_sentence": math.log(longest_c / longest_o),
        "passive_stack": float(max(0, passives_c - passives_o)),
        "pronoun_agent": float(max(0, _pronoun_agents(candidate) - _pronoun_agents(original))),
        "names_added": float(len({t.text for t in candidate_doc if t.pos_ == "PROPN" and t.text not in proper_o
                                  and t.text.lower() not in vocabulary})),
        "question_lost": (len(question - set(lemmas_c)) / len(question)) if question else 0.0,
    }


def english_reasons(values: dict[str, float]) -> list[dict[str, object]]:
    """The English checks as explanation rows ``{"check", "passed", "detail"}``."""
    rows: list[dict[str, object]] = []
    fit = values.get("substitute_fit", 0.0)
    rows.append({"check": "word choice", "passed": fit > -0.08,
                 "detail": "swapped words fit the problem" if fit > -0.08 else
                 f"a swapped word fits the problem worse than the word it replaced ({fit:+.2f})"})
    lost = int(values.get("domain_terms_lost", 0))
    rows.append({"check": "quantity words", "passed": lost == 0,
                 "detail": "quantity words (price, interest, area, …) kept" if lost == 0 else
                 f"{lost} quantity word(s) of the problem replaced or dropped"})
    joins = int(values.get("broken_joins", 0))
    longest = math.exp(values.get("longest_sentence", 0.0))
    rows.append({"check": "sentences", "passed": joins == 0 and longest <= 2.5,
                 "detail": ("a clause glued after \"that\" reads broken" if joins else
                            f"longest sentence {longest:.1f}× the problem's")})
    passive = int(values.get("passive_stack", 0)) + int(values.get("pronoun_agent", 0))
    rows.append({"check": "passive voice", "passed": passive == 0,
                 "detail": "no stacked passive or pronoun agent" if passive == 0 else
                 "stacked passive or an agent like \"by him\""})
    names = int(values.get("names_added", 0))
    rows.append({"check": "new names", "passed": names == 0,
                 "detail": "no new names" if names == 0 else f"{names} name(s) the problem does not have"})
    q = values.get("question_lost", 0.0)
    rows.append({"check": "question", "passed": q < 0.5,
                 "detail": "the question's words kept" if q < 0.5 else "the question's words changed"})
    return rows
