"""STEAD's training examples (paper 000, sections 3.2 and 3.5).

Each example maps ``[prompt || noised x] -> target``: the prompt is ``paraphrase:`` and the
target the original problem, except for a fixed ``passive_fraction`` of the problems (paper:
20 %) whose target is their passive-voice version (the platform's rule-based passive,
``ml.operators.passive``, in place of the paper's pretrained style transfer) under the prompt
``paraphrase passive:``. The noise is one of the 10 training combinations of Table 6, drawn
afresh for every problem in every epoch; the draw depends only on (seed, epoch, problem index),
so an epoch's examples are the same after a restart.
"""
from __future__ import annotations

import logging
import random
import zlib
from collections.abc import Callable, Sequence

from ..operators.base import OperatorNotApplicable
from ..operators.passive import active_to_passive
from ..text.nlp import DEFAULT_SPACY_MODEL

__all__ = [
    "STEAD_PASSIVE_PROMPT",
    "STEAD_PROMPT",
    "example_seed",
    "passive_targets",
    "stead_examples",
    "stead_source",
]

logger = logging.getLogger(__name__)

STEAD_PROMPT = "paraphrase:"
STEAD_PASSIVE_PROMPT = "paraphrase passive:"


def stead_source(noised: str, *, passive: bool = False) -> str:
    """STEAD's input: the prompt, a space, the noised text."""
    return f"{STEAD_PASSIVE_PROMPT if passive else STEAD_PROMPT} {noised}"


def example_seed(seed: int, *parts: object) -> int:
    """A stable 31-bit seed from ``seed`` and any parts (epoch, index, text): the same on every run."""
    key = ":".join(str(p) for p in (seed, *parts)).encode("utf-8")
    return zlib.crc32(key) & 0x7FFFFFFF


def passive_targets(
    problems: Sequence[str],
    *,
    fraction: float,
    seed: int,
    spacy_model: str = DEFAULT_SPACY_MODEL,
    convert: Callable[[str], str | None] | None = None,
) -> dict[int, str]:
    """{problem index: passive version} for about ``fraction`` of ``problems``.

    Problems are visited in a seeded order and converted until the quota is met; a problem the
    rule cannot turn passive (no active transitive clause) is skipped, so the quota is met from
    the others when they allow it. ``convert`` replaces the rule (tests).
    """
    if not problems or fraction <= 0:
        return {}
    if convert is None:
        def convert(text: str) -> str | None:
            try:
                return active_to_passive(text, random.Random(0), spacy_model=spacy_model).text
            except OperatorNotApplicable:
                return None

    quota = round(fraction * len(problems))
    order = sorted(range(len(problems)), key=lambda i: example_seed(seed, "passive", i))
    chosen: dict[int, str] = {}
    for index in order:
        if len(chosen) >= quota:
            break
        passive = convert(problems[index])
        if passive and passive.strip() != problems[index].strip():
            chosen[index] = passive
    if len(chosen) < quota:
        logger.info("passive targets: %d of the %d wanted (the rule applies to no more problems)", len(chosen), quota)
    return chosen


def stead_examples(
    problems: Sequence[str],
    epoch: int,
    *,
    seed: int,
    noise: Callable[[str, random.Random], str],
    passive: dict[int, str] | None = None,
) -> list[tuple[str, str]]:
    """(source, target) pairs of one epoch: fresh training noise for every problem.

    ``noise(text, rng)`` applies one sampled training combination (``ml.noise``) and returns
    the noised text.
    """
    passive = passive or {}
    examples = []
    for index, text in enumerate(problems):
        rng = random.Random(example_seed(seed, "stead", epoch, index))
        noised = noise(text, rng)
        if index in passive:
            examples.append((stead_source(noised, passive=True), passive[index]))
        else:
            examples.append((stead_source(noised), text))
    return examples
