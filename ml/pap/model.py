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
        num_beams=preset.num_beams,
        num_beam_groups=preset.num_beam_groups,
        diversity_penalty=preset.diversity_penalty,
        max_new_tokens=preset.max_new_tokens,
        batch_size=batch_size,
        copy_numbers=preset.copy_numbers,
        require_numbers=preset.require_numbers,
        no_repeat_ngram=preset.no_repeat_ngram,
        drop_cut=preset.drop_cut,
        single_line=preset.single_line,
        number_sources=[texts[index] for index, _, _ in plan],
    ) if plan else []
    return collect_outputs(texts, [(index, source, prompt, {}) for index, prompt, source in plan], decoded)
