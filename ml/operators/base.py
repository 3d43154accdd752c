"""What every operator returns or raises, and the small text-editing helpers they share.

An operator is a pure function ``op(text, rng, **resources) -> OperatorResult``. When it
cannot do its job on a text (no units to expand, no entity, no number, no model) it raises
:class:`OperatorNotApplicable` with a reason, instead of returning the input unchanged; an
output equal to the input is refused the same way (only f2, the identity, may return its input).
"""
from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from ..text.nlp import ABBREVIATIONS

__all__ = [
    "OperatorNotApplicable",
    "OperatorResult",
    "Similarity",
    "TextGenerator",
    "capitalize_first",
    "choose_some",
    "delete_spans",
    "edit_text",
    "make_result",
    "replace_spans",
    "tidy_spacing",
]

# similarity(anchor, candidates) -> one cosine similarity per candidate.
Similarity = Callable[[str, list[str]], list[float]]
# A batch text generator: translations, paraphrases, reconstructions.
TextGenerator = Callable[[list[str]], list[str]]


class OperatorNotApplicable(Exception):
    """An operator cannot produce an output for this text; ``reason`` says why."""

    def __init__(self, reason: str, *, operator: str | None = None) -> None:
        self.reason = reason
        self.operator = operator
        super().__init__(f"{operator}: {reason}" if operator else reason)


@dataclass(frozen=True)
class OperatorResult:
    """An operator's output: ``valid`` is the label it implies (True: still the same problem)."""

    text: str
    operator: str
    valid: bool
    meta: dict[str, Any] = field(default_factory=dict)


def choose_some(rng: random.Random, items: Sequence[Any], limit: int, position: Callable[[Any], int]) -> list:
    """The paper's ``w = rand(1, min(limit, k))`` of the ``k`` items, drawn without replacement and
    returned in text order (``position``: an item's offset in the text).

    >>> import random
    >>> picked = choose_some(random.Random(0), [30, 10, 20], 2, lambda x: x)
    >>> 1 <= len(picked) <= 2 and picked == sorted(picked)
    True
    """
    w = rng.randint(1, min(limit, len(items)))
    return sorted(rng.sample(list(items), w), key=position)


def make_result(original: str, text: str, operator: str, valid: bool, **meta: Any) -> OperatorResult:
    """Build a result, refusing an output that is empty or equal to the input."""
    if not text.strip():
        raise OperatorNotApplicable("the output would be empty", operator=operator)
    if text.strip() == original.strip():
        raise OperatorNotApplicable("the output would equal the input", operator=operator)
    return OperatorResult(text=text, operator=operator, valid=valid, meta=meta)


def replace_spans(text: str, edits: Sequence[tuple[int, int, str]]) -> str:
    """Apply non-overlapping ``(start, end, replacement)`` edits to ``text``.

    >>> replace_spans("John ate 5 apples", [(0, 4, "Mary"), (9, 10, "some")])
    'Mary ate some apples'
    """
    out, pos = [], 0
    for start, end, replacement in sorted(edits):
        if start < pos:
            raise ValueError("overlapping edits")
        out.append(text[pos:start])
        out.append(replacement)
        pos = end
    out.append(text[pos:])
    return "".join(out)


_SPACE_RUN = re.compile(r"[ \t]{2,}")
_SPACE_BEFORE_PUNCT = re.compile(r"[ \t]+([.,;:?!)\]])")
_SPACE_AFTER_OPEN = re.compile(r"([(\[])[ \t]+")
_DOUBLE_COMMA = re.compile(r",\s*([,.;:?!])")
_LEADING_PUNCT = re.compile(r"^[\s,;:]+")


def tidy_spacing(text: str) -> str:
    """Collapse the spaces and stray commas an edit leaves behind.

    >>> tidy_spacing("Alex went  from  , to Boston .")
    'Alex went from, to Boston.'
    """
    text = _SPACE_RUN.sub(" ", text)
    text = _SPACE_BEFORE_PUNCT.sub(r"\1", text)
    text = _SPACE_AFTER_OPEN.sub(r"\1", text)
    text = _DOUBLE_COMMA.sub(r"\1", text)
    text = _LEADING_PUNCT.sub("", text)
    return text.strip()


def capitalize_first(text: str) -> str:
    """Upper-case the first letter (sentence starts after an edit)."""
    for i, ch in enumerate(text):
        if ch.isalpha():
            return text[:i] + ch.upper() + text[i + 1:]
        if not ch.isspace() and ch not in "\"'([":
            return text
    return text


_SENTENCE_END = re.compile(r"[.?!]\s*$")
_LAST_WORD = re.compile(r"(\S+)\s*$")


def _ends_with_abbreviation(text: str) -> bool:
    last = _LAST_WORD.search(text)
    return bool(last) and last.group(1).lower() in ABBREVIATIONS


def edit_text(text: str, edits: Sequence[tuple[int, int, str]]) -> str:
    """Apply non-overlapping ``(start, end, replacement)`` edits and tidy the spacing. An empty
    replacement deletes: a possessive left without its owner goes too ("John's"), and a
    sentence whose first word went starts with a capital again.

    >>> edit_text("Alex drove from New York to Boston.", [(0, 5, ""), (16, 25, ""), (28, 34, "Lima")])
    'Drove from to Lima.'
    """
    out = text
    previous_start = len(text) + 1
    for start, end, replacement in sorted(edits, reverse=True):
        if end > previous_start:
            raise ValueError("overlapping edits")
        previous_start = start
        if replacement:
            out = out[:start] + replacement + out[end:]
            continue
        for suffix in ("'s", "\u2019s"):
            if out.startswith(suffix, end):
                end += len(suffix)
        tail = out[end:]
        at_sentence_start = start == 0 or (bool(_SENTENCE_END.search(out[:start]))
                                           and not _ends_with_abbreviation(out[:start]))
        if at_sentence_start and out[start:start + 1].isupper():
            tail = capitalize_first(tail)
        out = out[:start] + tail
    return tidy_spacing(out)


def delete_spans(text: str, spans: Sequence[tuple[int, int]]) -> str:
    """Delete character spans (see :func:`edit_text`).

    >>> delete_spans("Alex drove from New York to Boston.", [(0, 5), (16, 25)])
    'Drove from to Boston.'
    """
    return edit_text(text, [(start, end, "") for start, end in spans])
