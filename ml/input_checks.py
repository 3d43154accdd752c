"""What a pasted text must be before the generators see it: English words, and a problem (a number
or a question).

The generators, the judge and the number guard read English word problems; a Spanish problem
came back half rewritten with its names turned into businesses, a Chinese one was refused with
no reason, and a text with no number got an invented place. These checks refuse such a text with
a reason a teacher can act on.

>>> refusal_reason("Maya had 5 apples. How many are left?") is None
True
>>> refusal_reason("Maya tiene 5 manzanas y come 2. ¿Cuántas manzanas le quedan?")[:12]
'English only'
>>> refusal_reason("Describe your favourite holiday.")[:20]
'Not a word problem: '
"""
from __future__ import annotations

import re

from .text.number_mentions import number_signature

__all__ = ["ENGLISH_MIN_SHARE", "english_share", "refusal_reason"]

# Share of a text's words that are common English words (wordfreq Zipf >= 3). Word problems
# score 0.9-1.0 (names and units included); Spanish, French or German ones 0.2-0.5.
ENGLISH_MIN_SHARE = 0.7
_WORD = re.compile(r"[^\W\d_]+", re.UNICODE)


def english_share(text: str) -> float:
    """The share of ``text``'s words (letters only) that are common English words; 0.0 when it
    has none (Chinese, Arabic, …). Capitalised words that are not sentence-initial count as
    names (any language's names pass). Without wordfreq installed, the share of ASCII words."""
    matches = list(_WORD.finditer(text))
    if not matches:
        return 0.0
    try:
        from wordfreq import zipf_frequency
    except ImportError:  # pragma: no cover - wordfreq is a dependency
        return sum(m.group(0).isascii() for m in matches) / len(matches)
    english = 0
    for m in matches:
        word = m.group(0)
        if not word.isascii():
            continue
        before = text[:m.start()].rstrip()
        name = word[:1].isupper() and bool(before) and before[-1] not in ".?!:;\"'¿¡"
        if zipf_frequency(word.lower(), "en") >= 3.0 or name or len(word) == 1:
            english += 1
    return english / len(matches)


_ASKS = re.compile(r"\?|(?:^|[.!:;]\s+)(how|what|which|who|when|where|why|find|calculate|compute|determine|"
                   r"solve|estimate|evaluate|express|show|prove|work out)\b", re.IGNORECASE)


def refusal_reason(text: str) -> str | None:
    """Why ``text`` is not something to paraphrase (None: go ahead). A problem without numbers
    that asks something ("In how many ways can 6 books …" written in words, "x men working x
    hours …") goes ahead; a text that neither states a number nor asks anything does not."""
    if not _WORD.search(text):
        return "Nothing to rewrite: the text has no words (an expression or numbers only)"
    share = english_share(text)
    if share < ENGLISH_MIN_SHARE:
        return (f"English only: {100 * share:.0f} % of the words are English (the generators and the check "
                "that a rewrite is the same problem read English word problems)")
    if not number_signature(text) and not _ASKS.search(text):
        return ("Not a word problem: it states no number and asks nothing (paste the problem with its numbers "
                "and its question)")
    return None
