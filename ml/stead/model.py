"""STEAD at inference (paper 000, section 3.3): noise a problem with the pseudo-adversarial
inference combinations of Table 7, let the denoiser rewrite it with diverse beam search, and keep
the prompt words of the noise that was applied (they become PAP's prompts).

The text model is any :class:`ml.seq2seq.TextModel` (BART from scratch, the MiniLM
encoder-decoder, SmolLM2 decoder-only, or a hub/directory model).
"""
from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .config import ScanningPreset
from .data import example_seed, stead_source

if TYPE_CHECKING:
    from ..seq2seq import TextModel

__all__ = ["NeuralOutput", "collect_outputs", "prompt_words_of", "stead_generate", "stead_inputs"]

PROMPT_ORDER = ("fix", "replace", "shuffle", "passive")


@dataclass(frozen=True)
class NeuralOutput:
    """One decoded candidate: its text, the prompt words it answers ("replace shuffle"), the
    model input it came from and details (noise combination, beam group)."""

    text: str
    prompt: str
    source: str
    meta: dict[str, Any] = field(default_factory=dict)


def prompt_words_of(prompt: str, *extra: str) -> str:
    """The SCANNING prompt words of a prompt string, in the paper's order, without "paraphrase"
    and the colon: ``"paraphrase replace shuffle :"`` -> ``"replace shuffle"``."""
    words = {w for p in (prompt, *extra) for w in p.replace(":", " ").split() if w != "paraphrase"}
    known = [w for w in PROMPT_ORDER if w in words]
    return " ".join(known + sorted(words - set(PROMPT_ORDER)))


def stead_inputs(
    text: str, *, seed: int, preset: ScanningPreset, inference_noise: Callable[[str, random.Random], Any]
) -> list[tuple[str, str, dict[str, Any]]]:
    """(model input, prompt words, meta) for one problem: ``preset.inference_noises`` noised
    versions (a Table 7 combination each, seeded by the text); with ``passive_inference`` the
    first one is also asked for passive voice (``paraphrase passive:``, prompt word "passive")."""
    inputs = []
    for n in range(preset.inference_noises):
        rng = random.Random(example_seed(seed, "stead-infer", n, text))
        noised = inference_noise(text, rng)
        words = prompt_words_of(getattr(noised, "prompt", ""))
        meta = {"combination": getattr(noised, "combination", ""), "noised": noised.text}
        inputs.append((stead_source(noised.text), words, meta))
        if preset.passive_inference and n == 0:
            inputs.append((stead_source(noised.text, passive=True), prompt_words_of(words, "passive"), meta))
    return inputs


def stead_generate(
    model: "TextModel",
    texts: Sequence[str],
    *,
    seed: int,
    preset: ScanningPreset,
    inference_noise: Callable[[str, random.Random], Any],
    batch_size: int = 8,
) -> list[list[NeuralOutput]]:
    """STEAD's candidates for every text (same order), deduplicated per text, never the text itself."""
    plan: list[tuple[int, str, str, dict[str, Any]]] = []
    for index, text in enumerate(texts):
        for source, words, meta in stead_inputs(text, seed=seed, preset=preset, inference_noise=inference_noise):
            plan.append((index, source, words, meta))
    decoded = model.generate(
        [source for _, source, _, _ in plan],
        preset.decode_config(batch_size=batch_size),
        # The problem's numbers, not the noised input's (a synonym insertion can add a "1").
        number_sources=[texts[index] for index, _, _, _ in plan],
    ) if plan else []
    return collect_outputs(texts, plan, decoded)


def collect_outputs(texts: Sequence[str], plan: Sequence[tuple[int, str, str, dict[str, Any]]],
                    decoded: Sequence[Sequence[str]]) -> list[list[NeuralOutput]]:
    """Per text, the decoded beams of its planned inputs ((text index, model input, prompt words,
    meta) each), whitespace-normalised, deduplicated, never the text itself."""
    outputs: list[list[NeuralOutput]] = [[] for _ in texts]
    seen: list[set[str]] = [{t.strip()} for t in texts]
    for (index, source, words, meta), beams in zip(plan, decoded):
        for rank, beam in enumerate(beams):
            candidate = " ".join(beam.split())
            if not candidate or candidate in seen[index]:
                continue
            seen[index].add(candidate)
            outputs[index].append(NeuralOutput(candidate, words, source, {**meta, "beam": rank}))
    return outputs
