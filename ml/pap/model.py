"""PAP at inference (paper 000, sections 3.5 and 3.8): the problem under each prompt
(``shuffle``, ``replace``, ``fix``, ``passive`` and their combinations), decoded with diverse
beam search; every output keeps the prompt words it was asked for."""
from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..stead.config import ScanningPreset
from ..stead.model import NeuralOutput, collect_outputs, prompt_words_of
from .data import pap_source

if TYPE_CHECKING:
    from ..seq2seq import TextModel

__all__ = ["pap_generate"]


def pap_generate(
    model: "TextModel",
    texts: Sequence[str],
    *,
    preset: ScanningPreset,
    prompts: Sequence[str] | None = None,
    batch_size: int = 8,
) -> list[list[NeuralOutput]]:
    """PAP's candidates for every text (same order): one diverse beam search per (text, prompt),
    deduplicated per text, never the text itself."""
    prompts = [prompt_words_of(p) for p in (prompts or preset.pap_prompts)]
    plan = [(index, prompt, pap_source(prompt, text)) for index, text in enumerate(texts) for prompt in prompts]
    decoded = model.generate(
        [source for _, _, source in plan],
        preset.decode_config(batch_size=batch_size),
        number_sources=[texts[index] for index, _, _ in plan],
    ) if plan else []
    return collect_outputs(texts, [(index, source, prompt, {}) for index, prompt, source in plan], decoded)
