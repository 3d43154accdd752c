"""Number-copying constrained decoding: a generated number must be one the input states.

A word problem's paraphrase keeps its numbers; an undertrained seq2seq model often rewrites
them ("discounted 22%" -> "$20"). This logits processor lets a digit be generated only where it
continues towards a number written in the model's input: outside a number, a digit token may only
start one of the input's numbers; inside one, only tokens that extend it towards an input number
are allowed, and the number may only end (any other token) once it is complete. Each input number
is written at most as many times as the input writes it (a paraphrase keeps the multiset, which is
what ν measures). Commas inside numbers are ignored when comparing ("1,200" = "1200"). Given the
input's number words (:func:`source_number_words`), a word that states a number on its own
("one", "twenty", "half": :data:`ml.text.number_words.CARDINAL_WORDS`) or makes a fraction ("a fifth",
"two thirds": :data:`ml.text.number_words.DENOMINATOR_WORDS`) may be written only where the input
says it too, and as often, whether one token writes it or several ("for" + "ty"): ν reads number
words, so "9 salty one cookies" adds a 1 and "a fifth of it" adds 1/5.

With ``require_all`` the output may also not end (its end-of-sequence tokens are forbidden) while
an input number is still unwritten: copying forbids a changed number, this forbids a dropped one,
so a finished output keeps the input's multiset of numbers (ν = 1). Given ``values``, the numbers
the input says in words count too, by value as ν reads them ("One side" needs "one" or "1"). An
output cut off at the length limit can still miss some (the `paper` preset leaves those out).

Like :class:`ml.seq2seq.beams.HammingDiversityLogitsProcessor` it is a plain callable with
transformers' logits-processor signature, so importing ``ml`` does not import torch.
"""
from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from typing import Any
from weakref import WeakKeyDictionary

from ..text.number_mentions import find_all_numbers, number_signature
from ..text.number_words import CARDINAL_WORDS, DENOMINATOR_WORDS

__all__ = ["NUMBER_WORDS", "LineBreakLogitsProcessor", "NumberCopyLogitsProcessor", "available_numbers",
           "line_break_token_ids", "missing_numbers", "numeric_token_ids", "source_number_words", "source_numbers",
           "trailing_number", "word_number_values", "written_forms"]

# A comma belongs to a number only between thousands groups ("1,200"); "{1,2,3}" lists three.
_NUMBER = re.compile(r"(?<![\d,])\d{1,3}(?:,\d{3})+(?![\d])(?:\.\d+)?|\d+(?:\.\d+)?")
_TRAILING = re.compile(r"(\d[\d,]*\.?\d*)$")
_NUMERIC_TOKEN = re.compile(r"^\s?[\d.,]+$")
_WORD = re.compile(r"[A-Za-z]+")
_PARTIAL_WORD = re.compile(r"[A-Za-z]+$")
# The words an output may say only as often as its input: cardinals and fraction denominators.
NUMBER_WORDS = CARDINAL_WORDS | DENOMINATOR_WORDS


def _plain(number: str) -> str:
    return number.replace(",", "")


def source_numbers(text: str) -> Counter[str]:
    """The numbers written with digits in ``text`` (commas removed), with how often each occurs.

    >>> sorted(source_numbers("Sold 1,200 pens at $4.50 in 3 days, 3 a day.").items())
    [('1200', 1), ('3', 2), ('4.50', 1)]
    >>> sorted(source_numbers("Numbers from {1,2....23}, or 12,34.").items())
    [('1', 1), ('12', 1), ('2', 1), ('23', 1), ('34', 1)]
    """
    return Counter(_plain(m.group(0)) for m in _NUMBER.finditer(text))


def _is_numeric_token(text: str) -> bool:
    return bool(text) and bool(_NUMERIC_TOKEN.match(text)) and any(ch.isdigit() or ch in ".," for ch in text)


_TABLES: WeakKeyDictionary = WeakKeyDictionary()


class _Vocabulary:
    """The vocabulary read once per tokenizer (every group of every batch builds a processor).

    numeric: id -> text of the tokens that write digits, '.' or ','; words: id -> (word, whether
    the token opens a new word) of the tokens that are a whole number word; pieces: lower-cased
    text -> ids of the letters-only tokens that continue a word ("ty" of "for" + "ty");
    line_breaks: ids of the tokens that write a line break."""

    def __init__(self, tokenizer: Any) -> None:
        self.size = len(tokenizer)
        self.numeric: dict[int, str] = {}
        self.words: dict[int, tuple[str, bool]] = {}
        self.pieces: dict[str, list[int]] = {}
        self.line_breaks: list[int] = []
        for token_id in range(self.size):
            text = tokenizer.decode([token_id])
            if "\n" in text:  # "\n12" too: a line break before a number is still one
                self.line_breaks.append(token_id)
            if _is_numeric_token(text):
                self.numeric[token_id] = text
                continue
            word = text.strip().lower()
            if word in NUMBER_WORDS:
                self.words[token_id] = (word, text[0].isspace())
            if text.isalpha():
                self.pieces.setdefault(text.lower(), []).append(token_id)


def _vocabulary(tokenizer: Any) -> _Vocabulary:
    try:
        cached = _TABLES.get(tokenizer)
    except TypeError:  # a tokenizer that cannot be weakly referenced is read every time
        cached = None
    if cached is not None and cached.size == len(tokenizer):
        return cached
    vocabulary = _Vocabulary(tokenizer)
    try:
        _TABLES[tokenizer] = vocabulary
    except TypeError:
        pass
    return vocabulary


def numeric_token_ids(tokenizer: Any) -> frozenset[int]:
    """The ids of the tokens that write digits, '.' or ',' (with at most a leading space)."""
    return frozenset(_vocabulary(tokenizer).numeric)


def line_break_token_ids(tokenizer: Any) -> list[int]:
    """The ids of the tokens that write a line break."""
    return list(_vocabulary(tokenizer).line_breaks)


def source_number_words(text: str) -> Counter[str]:
    """The number words ``text`` says (lower-cased), with how often: an output of it may say each
    as often.

    >>> sorted(source_number_words("One third of the twenty-five pens, one of them red.").items())
    [('five', 1), ('one', 2), ('third', 1), ('twenty', 1)]
    """
    return Counter(w for w in (m.group(0).lower() for m in _WORD.finditer(text)) if w in NUMBER_WORDS)


def word_number_values(text: str) -> Counter | None:
    """The values of every number of ``text``, digits and words, as ν reads them
    (:func:`ml.text.number_mentions.number_signature`), where ``text`` writes a number in words; None
    where it writes numbers with digits only (:func:`missing_numbers` then says what is missing).

    >>> sorted(word_number_values("One side is 4 m.").items()), word_number_values("A side is 4 m.")
    ([(Fraction(1, 1), 1), (Fraction(4, 1), 1)], None)
    """
    spans = find_all_numbers(text)
    if not any(span.source == "words" for span in spans):
        return None
    return Counter(span.value for span in spans)


def available_numbers(generated: str, numbers: Counter[str]) -> frozenset[str]:
    """The input numbers ``generated`` may still write: those it has written (the number being
    written at its end aside) fewer times than the input.

    >>> sorted(available_numbers("3 pens and 3", source_numbers("3 boxes of 3 pens, 12 in all")))
    ['12', '3']
    >>> sorted(available_numbers("3 pens and 3 boxes", source_numbers("3 boxes of 3 pens, 12 in all")))
    ['12']
    """
    match = _TRAILING.search(generated)
    head = generated[: match.start()] if match else generated
    used = Counter(_plain(m.group(0)) for m in _NUMBER.finditer(head))
    return frozenset(n for n, count in numbers.items() if used[n] < count)


def missing_numbers(generated: str, numbers: Counter[str]) -> Counter[str]:
    """The input numbers ``generated`` has not written yet (as often as the input writes them).

    >>> sorted(missing_numbers("3 pens and 12", source_numbers("3 boxes of 3 pens, 12 in all")).items())
    [('3', 1)]
    """
    return numbers - Counter(_plain(m.group(0)) for m in _NUMBER.finditer(generated))


def trailing_number(text: str) -> str:
    """The number being written at the end of ``text`` (commas removed), or ''.

    >>> trailing_number("He has 1,2"), trailing_number("It costs 4."), trailing_number("Go.")
    ('12', '4.', '')
    """
    match = _TRAILING.search(text)
    return _plain(match.group(1)) if match else ""


def written_forms(number: str) -> tuple[str, ...]:
    """How an input number (commas removed) may be written: as it is and, from four digits on,
    with thousands commas. "1,8" or "4,50" is no way of writing 18 or 4.50.

    >>> written_forms("1200"), written_forms("4.50"), written_forms("1234567.5")
    (('1200', '1,200'), ('4.50',), ('1234567.5', '1,234,567.5'))
    """
    whole, dot, fraction = number.partition(".")
    forms = [number]
    if len(whole) > 3 and whole.isdigit():
        head = len(whole) % 3 or 3
        groups = [whole[:head]] + [whole[i:i + 3] for i in range(head, len(whole), 3)]
        forms.append(",".join(groups) + dot + fraction)
    return tuple(forms)


def _raw_trailing(text: str) -> str:
    match = _TRAILING.search(text)
    return match.group(1) if match else ""


def _complete(raw: str, forms: frozenset[str]) -> bool:
    """Whether the number written as ``raw`` may end here, ``forms`` being the written forms of
    the numbers still available (a trailing '.' or ',' may be the sentence's punctuation)."""
    return raw in forms or raw.rstrip(".") in forms or raw.rstrip(",") in forms


def _prefix(raw: str, forms: frozenset[str]) -> bool:
    return any(form.startswith(raw) for form in forms)


class NumberCopyLogitsProcessor:
    """Forbid tokens that would write a number the input does not contain.

    tokenizer: the model's tokenizer (to read the generated tail and the numeric tokens);
    numbers: per input of the batch, :func:`source_numbers` of its input text; offset: positions
    of ``input_ids`` before the generated part; beams: rows per input in this search;
    require_all with eos_token_ids: no end of sequence while an input number is unwritten;
    number_words: per input, :func:`source_number_words` of its input text (None: number words
    are not constrained); values: per input, :func:`word_number_values` of its input text, so
    that with require_all a number the input says in words ("one side", "a sixth") must be
    said too, in words or digits (None, or None for an input: its digits only).
    """

    def __init__(self, tokenizer: Any, numbers: Sequence[Counter[str]], *, offset: int, beams: int,
                 require_all: bool = False, eos_token_ids: Sequence[int] = (),
                 number_words: Sequence[Counter[str]] | None = None,
                 values: Sequence[Counter | None] | None = None) -> None:
        self.tokenizer = tokenizer
        self.numbers = list(numbers)
        self.offset = int(offset)
        self.beams = int(beams)
        self.eos = [int(t) for t in eos_token_ids if t is not None] if require_all else []
        if require_all and not self.eos:
            raise ValueError("require_all needs the end-of-sequence token ids")
        if number_words is not None and len(number_words) != len(self.numbers):
            raise ValueError("number_words must give one set per input")
        self.number_words = list(number_words) if number_words is not None else None
        if values is not None and len(values) != len(self.numbers):
            raise ValueError("values must give one entry per input")
        self.values = list(values) if values is not None else [None] * len(self.numbers)
        vocabulary = _vocabulary(tokenizer)
        self.numeric: dict[int, str] = vocabulary.numeric
        self.word_tokens: dict[int, tuple[str, bool]] = vocabulary.words if self.number_words is not None else {}
        self.pieces: dict[str, list[int]] = vocabulary.pieces

    def _banned_words(self, tail: str, said: Counter[str]) -> list[int]:
        """The tokens that would write a number word the input does not say, or has said as often
        as the output already has: whole number-word tokens that start a word ("some" + "one"
        continues a word and stays allowed), and pieces that finish one begun by the tokens
        before ("for" + "ty", "fif" + "th")."""
        partial = _PARTIAL_WORD.search(tail)
        used = Counter(m.group(0).lower() for m in _WORD.finditer(tail))
        spent = {word for word in NUMBER_WORDS if used[word] >= said[word]}
        banned = [token_id for token_id, (word, spaced) in self.word_tokens.items()
                  if word in spent and (spaced or partial is None)]
        if partial is not None:
            head = partial.group(0).lower()
            for word in spent:
                if len(word) > len(head) and word.startswith(head):
                    banned.extend(self.pieces.get(word[len(head):], ()))
        return banned

    def _unsaid(self, text: str, row_input: int) -> bool:
        """Whether ``text`` still misses a number of the input (digits; with ``values``, also
        the numbers the input says in words, compared by value as ν compares them)."""
        if missing_numbers(text, self.numbers[row_input]):
            return True
        values = self.values[row_input]
        if not values:
            return False
        return bool(values - number_signature(text))

    def _allowed_numeric(self, tail: str, numbers: frozenset[str]) -> tuple[list[int], bool]:
        """(numeric token ids allowed after ``tail``, whether non-numeric tokens are allowed)."""
        forms = frozenset(form for n in numbers for form in written_forms(n))  # once per step, not per token
        run = _raw_trailing(tail)  # as written, commas and all
        free = not run or _complete(run, forms)
        # A digit right after a bare "." or "," would write ".20" (0.20) or ",5": no input number.
        bare_mark = not run and tail[-1:] in (".", ",")
        allowed = []
        for token_id, text in self.numeric.items():
            body = text.strip()
            has_digit = any(ch.isdigit() for ch in body)
            if run and not text[0].isspace():  # continues the number being written
                if not has_digit and len(body) > 1:  # ",," or "...": punctuation, not part of a number
                    if free:
                        allowed.append(token_id)
                    continue
                extended = run + body
                if (has_digit and _prefix(extended, forms)) or (
                        not has_digit and (_prefix(extended, forms) or _complete(run, forms))):
                    allowed.append(token_id)
            elif free:  # the number (if any) ends here; this token starts afresh
                if not has_digit:
                    allowed.append(token_id)
                elif body[0].isdigit() and _prefix(_raw_trailing(body), forms) and not (
                        bare_mark and not text[0].isspace()):
                    allowed.append(token_id)
        return allowed, free

    def __call__(self, input_ids, scores):
        import torch

        generated = input_ids[:, self.offset:]
        numeric_ids = torch.tensor(list(self.numeric), device=scores.device, dtype=torch.long)
        for row in range(scores.shape[0]):
            text = self.tokenizer.decode(generated[row].tolist(), skip_special_tokens=True)
            numbers = self.numbers[row // self.beams]
            if self.eos and self._unsaid(text, row // self.beams):
                scores[row, self.eos] = float("-inf")  # a number is still unwritten: go on
            if self.number_words is not None:
                words = self._banned_words(text, self.number_words[row // self.beams])
                if words:
                    scores[row, words] = float("-inf")
            allowed, free = self._allowed_numeric(text, available_numbers(text, numbers))
            keep = torch.tensor(allowed, device=scores.device, dtype=torch.long)
            if not free and not allowed:
                continue  # nothing the input allows (a number from before the tail): leave the row alone
            if free:
                # Any non-numeric token; numeric ones only where they write an input number.
                banned = torch.ones(len(numeric_ids), dtype=torch.bool, device=scores.device)
                if len(allowed):
                    banned &= ~torch.isin(numeric_ids, keep)
                scores[row, numeric_ids[banned]] = float("-inf")
            else:
                # Inside an unfinished number: only its continuations.
                row_scores = torch.full_like(scores[row], float("-inf"))
                if len(allowed):
                    row_scores[keep] = scores[row, keep]
                scores[row] = row_scores
        return scores


class LineBreakLogitsProcessor:
    """Forbid line breaks in the outputs of inputs whose text has none: a one-line problem's
    paraphrase is one line. A decoder-only model whose output may not end yet (a number still
    owed) otherwise tends to go on with its prompt's own format ("\\nRewritten: ...") and
    paraphrase the problem a second time.

    single_line: per input of the batch, whether its outputs must stay on one line; beams: rows
    per input in this search.
    """

    def __init__(self, tokenizer: Any, single_line: Sequence[bool], *, beams: int) -> None:
        self.single_line = [bool(flag) for flag in single_line]
        self.beams = int(beams)
        self.line_breaks = line_break_token_ids(tokenizer)

    def __call__(self, input_ids, scores):
        if not self.line_breaks:
            return scores
        for row in range(scores.shape[0]):
            if self.single_line[row // self.beams]:
                scores[row, self.line_breaks] = float("-inf")
        return scores
