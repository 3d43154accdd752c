"""Case, accents and spacing of an uncased model's output restored from its source.

An uncased WordPiece vocabulary (the MiniLM base) decodes ``Tom paid $4.50 for NOUN1's 1,200``
as ``tom paid $ 4. 50 for noun1 ' s 1, 200``. :func:`restore_from_source` rebuilds the text:

- spacing: two pieces are joined when the source has them joined (``4 . 50`` inside the source's
  ``4.50``, ``mary - jane``, ``didn ' t``); otherwise by English rules (no space before ``. , ! ? ;
  : % )``, none after ``( $``, contractions, digit ``. , : /`` digit);
- case and accents: a word takes its form in the source (``noun1`` → ``NOUN1``, ``apfel`` →
  ``Äpfel``) when the source writes it capitalised or accented other than only at a sentence start,
  or at a sentence start when it is not a common function word (``Tom`` yes, ``How`` no);
- sentence starts are capitalised.

Words the source does not contain stay lower-case (a name the model invents is not recognised).
"""
from __future__ import annotations

import re
import unicodedata

__all__ = ["restore_from_source"]

_PIECE = re.compile(r"\w+|[^\w\s]")
_CLOSING = set(".,!?;:%)]}")
_OPENING = set("([{$£€")
_CONTRACTIONS = {"s", "t", "re", "ll", "ve", "d", "m"}
_FALLBACK_STOP = {
    "a", "an", "the", "how", "what", "which", "who", "whom", "whose", "when", "where", "why", "if", "then",
    "there", "this", "that", "these", "those", "he", "she", "it", "they", "we", "you", "i", "his", "her",
    "its", "their", "our", "your", "my", "in", "on", "at", "of", "for", "to", "from", "by", "with", "and",
    "or", "but", "so", "after", "before", "each", "every", "all", "some", "one", "is", "are", "was", "were",
}


def _stop_words() -> set[str]:
    try:
        from spacy.lang.en.stop_words import STOP_WORDS
    except ImportError:  # spaCy is optional here
        return _FALLBACK_STOP
    return set(STOP_WORDS) | _FALLBACK_STOP


def _key(piece: str) -> str:
    decomposed = unicodedata.normalize("NFD", piece.lower())
    return "".join(ch for ch in decomposed if unicodedata.category(ch) != "Mn")


def _pieces(text: str) -> list[tuple[str, bool]]:
    """(piece, joined to the previous piece without whitespace)."""
    out = []
    end = None
    for match in _PIECE.finditer(text):
        out.append((match.group(0), end is not None and match.start() == end))
        end = match.end()
    return out


def _sentence_starts(pieces: list[tuple[str, bool]]) -> set[int]:
    starts, expect = set(), True
    for index, (piece, _) in enumerate(pieces):
        if piece in ".!?":
            expect = True
        elif expect and piece[0].isalnum():
            starts.add(index)
            expect = False
    return starts


def restore_from_source(text: str, source: str) -> str:
    """``text`` (an uncased model's decoded output) with the spacing, case and accents of ``source``."""
    src = _pieces(source)
    keys = [_key(p) for p, _ in src]
    glued_pairs = {(keys[i - 1], keys[i]) for i in range(1, len(src)) if src[i][1]}
    glued_triples = {(keys[i - 2], keys[i - 1], keys[i]) for i in range(2, len(src)) if src[i][1] and src[i - 1][1]}
    starts = _sentence_starts(src)
    forms: dict[str, str] = {}
    initial: dict[str, str] = {}
    for index, (piece, _) in enumerate(src):
        if piece == keys[index]:
            continue
        (initial if index in starts else forms).setdefault(keys[index], piece)
    plain_elsewhere = {keys[i] for i, (p, _) in enumerate(src) if p == keys[i] and i not in starts}
    stop = _stop_words()
    for key, form in initial.items():
        if key not in forms and key not in plain_elsewhere and key not in stop:
            forms[key] = form

    out = [p for p, _ in _pieces(text)]
    okeys = [_key(p) for p in out]
    pieces = [forms.get(k, p) for p, k in zip(out, okeys)]
    parts: list[str] = []
    joined = [False] * len(pieces)
    for i, piece in enumerate(pieces):
        joined[i] = bool(i) and _glued(okeys, i, glued_pairs, glued_triples, joined)
        if i and not joined[i]:
            parts.append(" ")
        parts.append(piece)
    joined = "".join(parts)
    return re.sub(r"(^|[.!?]\s+)([a-z])", lambda m: m.group(1) + m.group(2).upper(), joined)


def _glued(keys: list[str], i: int, pairs: set[tuple[str, str]], triples: set[tuple[str, str, str]],
           joined: list[bool]) -> bool:
    """Whether piece ``i`` follows piece ``i - 1`` without a space (``joined``: decisions so far)."""
    prev, cur = keys[i - 1], keys[i]
    nxt = keys[i + 1] if i + 1 < len(keys) else None
    if nxt is not None and (prev, cur, nxt) in triples:
        return True
    if i >= 2 and (keys[i - 2], prev, cur) in triples:
        return True
    prev_word, cur_word = prev[-1].isalnum(), cur[0].isalnum()
    if (prev, cur) in pairs and not (not prev_word and cur_word and prev in ".,!?;:"):
        return True  # punctuation followed by a word needs the triple (``4.50`` vs ``apples. 50``)
    if prev in ".,:/" and i >= 2 and keys[i - 2][-1:].isdigit() and cur[:1].isdigit():
        decimal_already = prev == "." and i >= 3 and keys[i - 3] == "." and joined[i - 2]
        return not decimal_already  # 4.50, 1,200, 3:30, 3/4 (but 7.25. 50 stays apart)
    if cur in _CLOSING or prev in _OPENING:
        return True
    if cur == "'" and prev_word and nxt in _CONTRACTIONS:
        return True
    if prev == "'" and cur in _CONTRACTIONS and i >= 2 and keys[i - 2][-1:].isalnum():
        return True
    return False
