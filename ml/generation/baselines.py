"""Baselines to compare the generators against (kind "baseline": never in the default set).

- ``copy``: the problem itself (SCANNING's copy-like lower bound; the only generator allowed to
  return its input).
- ``eda``: EDA (Wei & Zou 2019) as published: synonym replacement, random insertion, random swap
  and random deletion over whitespace words with alpha = 0.1, one candidate per operation.
  Numbers are NOT protected, as in EDA: a deletion or a swap may drop or move a quantity, which
  is what the baseline is there to show. Synonyms come from the same source as the ``synonym``
  generator (WordNet, else embedding neighbours); without one, only swap and deletion run.

>>> import random
>>> CopyGenerator().generate("A train covers 300 km.", random.Random(0), GenerationResources())[0].text
'A train covers 300 km.'
"""
from __future__ import annotations

import random
import re
from dataclasses import dataclass
from typing import Callable

from .base import GeneratedCandidate, GenerationResources, GeneratorUnavailable, NotApplicable, candidates_or_refuse
from .synonyms import synonym_lookup
from .words import match_case

__all__ = ["CopyGenerator", "EdaConfig", "EdaGenerator", "eda_operation"]

_CORE = re.compile(r"^(\W*)([A-Za-z]+(?:'[a-z]+)?)(\W*)$")
_OPERATIONS = {"sr": "replace", "ri": "fix", "rs": "shuffle", "rd": "fix"}


@dataclass(frozen=True)
class CopyGenerator:
    """The input, unchanged."""

    name: str = "copy"
    description: str = "Copy baseline: the problem itself"
    kind: str = "baseline"

    def unavailable_reason(self, resources: GenerationResources) -> str | None:
        return None

    def generate(self, text: str, rng: random.Random, resources: GenerationResources) -> list[GeneratedCandidate]:
        return [GeneratedCandidate(text, self.name, "", {})]


@dataclass(frozen=True)
class EdaConfig:
    """alpha: EDA's share of words changed (n = max(1, alpha * words)) and its deletion
    probability; operations: which of sr, ri, rs, rd run (one candidate each); tries: draws per
    operation before giving up on an output that differs from the input."""

    alpha: float = 0.1
    operations: tuple[str, ...] = ("sr", "ri", "rs", "rd")
    tries: int = 5

    def __post_init__(self) -> None:
        if not 0 < self.alpha <= 1:
            raise ValueError("alpha must be in (0, 1]")
        unknown = set(self.operations) - set(_OPERATIONS)
        if unknown or not self.operations:
            raise ValueError(f"operations must be some of {sorted(_OPERATIONS)}, not {sorted(unknown)}")
        if self.tries < 1:
            raise ValueError("tries must be >= 1")


Synonyms = Callable[[str], tuple[str, ...]]


def _core(word: str) -> tuple[str, str, str] | None:
    match = _CORE.match(word)
    return (match.group(1), match.group(2), match.group(3)) if match else None


def _stop_words() -> frozenset[str]:
    from spacy.lang.en.stop_words import STOP_WORDS

    return frozenset(STOP_WORDS)


def _with_synonyms(words: list[str], synonyms: Synonyms) -> list[int]:
    stop = _stop_words()
    out = []
    for i, word in enumerate(words):
        core = _core(word)
        if core and core[1].lower() not in stop and synonyms(core[1]):
            out.append(i)
    return out


def eda_operation(operation: str, words: list[str], rng: random.Random, alpha: float, synonyms: Synonyms) -> list[str]:
    """One EDA operation on whitespace words: "sr" synonym replacement of n non-stop words, "ri"
    n insertions of a synonym of a random word at a random place, "rs" n swaps of two words,
    "rd" deletion of each word with probability alpha (one word always stays).

    >>> eda_operation("rs", ["a", "b", "c"], random.Random(1), 0.1, lambda w: ())
    ['c', 'b', 'a']
    """
    words = list(words)
    n = max(1, int(alpha * len(words)))
    if operation == "sr":
        positions = _with_synonyms(words, synonyms)
        rng.shuffle(positions)
        for i in positions[:n]:
            before, core, after = _core(words[i])  # type: ignore[misc]
            words[i] = before + match_case(rng.choice(synonyms(core)), core) + after
        return words
    if operation == "ri":
        for _ in range(n):
            positions = _with_synonyms(words, synonyms)
            if not positions:
                break
            core = _core(words[rng.choice(positions)])[1]  # type: ignore[index]
            words.insert(rng.randint(0, len(words)), rng.choice(synonyms(core)))
        return words
    if operation == "rs":
        for _ in range(n):
            if len(words) < 2:
                break
            i, j = rng.sample(range(len(words)), 2)
            words[i], words[j] = words[j], words[i]
        return words
    if operation == "rd":
        kept = [w for w in words if rng.random() > alpha]
        return kept or [rng.choice(words)]
    raise ValueError(f"unknown EDA operation {operation!r}")


@dataclass(frozen=True)
class EdaGenerator:
    """EDA baseline: one candidate per operation (numbers unprotected, as in EDA)."""

    name: str = "eda"
    description: str = ("EDA baseline (Wei & Zou 2019): synonym replacement, random insertion, swap and deletion, "
                        "alpha 0.1, numbers unprotected")
    kind: str = "baseline"
    config: EdaConfig = EdaConfig()

    def unavailable_reason(self, resources: GenerationResources) -> str | None:
        return None

    def generate(self, text: str, rng: random.Random, resources: GenerationResources) -> list[GeneratedCandidate]:
        words = text.split()
        if len(words) < 2:
            raise NotApplicable("fewer than two words", operator=self.name)
        try:
            lookup = synonym_lookup(resources)
            source: str | None = lookup.source

            def synonyms(word: str) -> tuple[str, ...]:
                return lookup(word, word, None)
        except GeneratorUnavailable:
            source = None

            def synonyms(word: str) -> tuple[str, ...]:
                return ()

        candidates = []
        for operation in self.config.operations:
            if operation in ("sr", "ri") and source is None:
                continue
            for _ in range(self.config.tries):
                out = " ".join(eda_operation(operation, words, rng, self.config.alpha, synonyms))
                if out != text:
                    meta = {"operation": operation}
                    if operation in ("sr", "ri"):
                        meta["synonym_source"] = source
                    candidates.append(GeneratedCandidate(out, self.name, _OPERATIONS[operation], meta))
                    break
        return candidates_or_refuse(text, candidates, generator=self.name, reason="no EDA operation changed the text")
