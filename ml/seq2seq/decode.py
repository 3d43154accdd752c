"""How a seq2seq model decodes, as one value (like transformers' ``GenerationConfig``): the diverse
beam search of SCANNING (paper 000) and the platform's number constraints. STEAD and PAP take it
from their preset (``ScanningPreset.decode_config``); :meth:`ml.seq2seq.TextModel.generate` reads it.

>>> DecodeConfig(num_beams=6, num_beam_groups=3).per_group
2
>>> DecodeConfig(num_beams=4, num_beam_groups=3)
Traceback (most recent call last):
...
ValueError: num_beams (4) must be a multiple of num_beam_groups (3)
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

__all__ = ["DecodeConfig"]


@dataclass(frozen=True)
class DecodeConfig:
    """Decoding settings.

    num_beams / num_beam_groups / diversity_penalty: diverse beam search (``num_beam_groups=1``:
        plain beam search); paper 000 uses 6 beams in 3 groups with penalty 10.
    num_return_sequences: at most this many outputs per source (None: every distinct beam).
    max_new_tokens / batch_size / max_source_tokens: lengths and batching.
    copy_numbers: a digit may only write a number of the source (``ml.seq2seq.constraints``).
    require_numbers: with ``copy_numbers``, an output may not end before writing every number.
    no_repeat_ngram: n (0: off) such that no n-gram of an output is written twice (numbers aside).
    drop_cut: leave out outputs cut at ``max_new_tokens`` before their end.
    single_line: no line break in the output of a problem written on one line.
    """

    num_beams: int = 6
    num_beam_groups: int = 3
    diversity_penalty: float = 10.0
    num_return_sequences: int | None = None
    max_new_tokens: int = 96
    batch_size: int = 8
    max_source_tokens: int = 256
    copy_numbers: bool = False
    require_numbers: bool = False
    no_repeat_ngram: int = 0
    drop_cut: bool = False
    single_line: bool = False

    def __post_init__(self) -> None:
        if min(self.num_beams, self.num_beam_groups, self.max_new_tokens, self.batch_size, self.max_source_tokens) < 1:
            raise ValueError("num_beams, num_beam_groups, max_new_tokens, batch_size and max_source_tokens must be >= 1")
        if self.num_beams % self.num_beam_groups:
            raise ValueError(f"num_beams ({self.num_beams}) must be a multiple of num_beam_groups ({self.num_beam_groups})")
        if self.no_repeat_ngram < 0 or self.diversity_penalty < 0:
            raise ValueError("no_repeat_ngram and diversity_penalty must be >= 0")

    @property
    def per_group(self) -> int:
        return self.num_beams // self.num_beam_groups

    def with_overrides(self, **overrides: Any) -> "DecodeConfig":
        return replace(self, **overrides) if overrides else self
