"""Presets for the SCANNING generators (paper 000): STEAD the denoiser and PAP the paraphraser.

``paper`` is the paper's recipe (section 4 and appendix C): AdamW lr 8e-5, linear schedule with
10 % warm-up, weight decay 0.03, seed 3407, 15 epochs, batch 128 (here by gradient accumulation
over micro-batches), diverse beam search with 6 beams in 3 groups and diversity penalty 10; it
decodes with both number constraints (``copy_numbers``, ``require_numbers``), which the paper
does not have.
``tiny`` keeps the same optimiser and decoding but a small model, few epochs and few problems,
so a 2-core CPU trains it in minutes (tests and the demo).

The base (``scratch``: a BART from a fresh configuration and a byte-level BPE tokenizer trained
on the corpus; ``minilm``: an encoder-decoder warm-started from the packaged MiniLM;
``smollm2``: the packaged SmolLM2-135M fine-tuned decoder-only; or a hub id / local directory)
is chosen by the caller (the platform's ``PARALAB_SEQ2SEQ_BASE``); a preset only says which
scratch size it would build.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import Any

from ..seq2seq.decode import DecodeConfig

__all__ = ["PRESETS", "ScanningPreset", "preset"]


@dataclass(frozen=True)
class ScanningPreset:
    """Training and decoding settings shared by STEAD and PAP.

    epochs / batch_size / micro_batch: passes over the corpus, effective batch (accumulated) and
        the batch one forward pass sees.
    max_problems: problems drawn from the training corpus (None: all).
    max_seconds: wall-clock budget for one training run (None: none); the run stops cleanly,
        saves and says so in its result.
    scratch_size: the BART size built for base "scratch" ("tiny", "small", "base").
    vocab_size: BPE vocabulary of the scratch tokenizer.
    max_source_tokens / max_target_tokens: truncation lengths (dynamic padding below them).
    passive_fraction: share of STEAD's training targets turned passive (paper: 20 %).
    inference_noises: noised inputs STEAD decodes per problem (Table 7 combinations) and
        passive_inference: whether one of them also asks for passive voice.
    pap_prompts: prompts PAP generates with at inference (each decoded with diverse beam search).
    selected_per_problem: k of PAMMR when building PAP's parallel corpus (paper: 2).
    copy_numbers: decode with the number-copying constraint (a digit may only write a number of
        the input, ``ml.seq2seq.constraints``); beyond the paper, which decodes unconstrained.
    require_numbers: with copy_numbers, an output may not end before it has written every
        number of its input (none dropped); beyond the paper.
    no_repeat_ngram: n (0: off) such that no n-gram of an output is written twice (numbers
        aside), counted over the output only; beyond the paper.
    drop_cut: leave out outputs cut at max_new_tokens before their end; beyond the paper.
    single_line: no line break in an output of a problem written on one line; beyond the paper.
    """

    name: str
    epochs: int = 15
    batch_size: int = 128
    micro_batch: int = 16
    learning_rate: float = 8e-5
    weight_decay: float = 0.03
    warmup_ratio: float = 0.1
    seed: int = 3407
    max_problems: int | None = None
    max_seconds: float | None = None
    scratch_size: str = "base"
    vocab_size: int = 16000
    max_source_tokens: int = 192
    max_target_tokens: int = 160
    num_beams: int = 6
    num_beam_groups: int = 3
    diversity_penalty: float = 10.0
    max_new_tokens: int = 160
    passive_fraction: float = 0.2
    inference_noises: int = 2
    passive_inference: bool = True
    pap_prompts: tuple[str, ...] = ("replace shuffle", "replace", "fix", "fix replace", "passive replace")
    selected_per_problem: int = 2
    copy_numbers: bool = True
    require_numbers: bool = False
    no_repeat_ngram: int = 0
    drop_cut: bool = False
    single_line: bool = False

    def __post_init__(self) -> None:
        if self.epochs < 1 or self.batch_size < 1 or self.micro_batch < 1:
            raise ValueError("epochs, batch_size and micro_batch must be >= 1")
        if self.batch_size % self.micro_batch:
            raise ValueError("batch_size must be a multiple of micro_batch (gradient accumulation)")
        if not 0.0 <= self.passive_fraction <= 1.0:
            raise ValueError("passive_fraction must lie in [0, 1]")
        if self.num_beams % self.num_beam_groups:
            raise ValueError("num_beams must be a multiple of num_beam_groups")
        if self.no_repeat_ngram == 1 or self.no_repeat_ngram < 0:
            raise ValueError("no_repeat_ngram must be 0 (off) or >= 2")
        if self.max_problems is not None and self.max_problems < 1:
            raise ValueError("max_problems must be >= 1 or None")

    def decode_config(self, *, batch_size: int = 8) -> DecodeConfig:
        """How STEAD and PAP decode with this preset, ``batch_size`` sources at a time."""
        return DecodeConfig(
            num_beams=self.num_beams, num_beam_groups=self.num_beam_groups, diversity_penalty=self.diversity_penalty,
            max_new_tokens=self.max_new_tokens, batch_size=batch_size, copy_numbers=self.copy_numbers,
            require_numbers=self.require_numbers, no_repeat_ngram=self.no_repeat_ngram, drop_cut=self.drop_cut,
            single_line=self.single_line,
        )

    def with_overrides(self, **changes: Any) -> "ScanningPreset":
        """A copy with the given fields replaced (None values are ignored)."""
        return replace(self, **{k: v for k, v in changes.items() if v is not None})

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["pap_prompts"] = list(self.pap_prompts)
        return data


PRESETS: dict[str, ScanningPreset] = {
    # The number constraints are beyond the paper: copying (a written number is one of the problem's)
    # and, here, requiring (none dropped). On by rule, since a variant must keep every number, not
    # fitted; their effect on the evaluation sets is reported in docs/results/scanning.md.
    # An output cut at the length limit is no finished sentence; with require_numbers it is most
    # often a loop that never reached the number it owed, so the paper preset leaves them out.
    # no_repeat_ngram=3 was chosen on AQuA dev questions outside the training corpus (0, 3, 4
    # compared by mean STEAD/PAP PQI; docs/results/scanning.md), never on the test sets.
    # A one-line problem's paraphrase is one line: with an output that may not end yet, a decoder
    # otherwise goes on with its prompt's format ("Rewritten: ...") and says the problem again.
    "paper": ScanningPreset(name="paper", require_numbers=True, drop_cut=True, no_repeat_ngram=3, single_line=True),
    # Minutes on a 2-core CPU: a few hundred problems, a small model, short sequences.
    "tiny": ScanningPreset(
        name="tiny", epochs=3, batch_size=16, micro_batch=8, learning_rate=5e-4, max_problems=200,
        scratch_size="tiny", vocab_size=2000, max_source_tokens=96, max_target_tokens=96, max_new_tokens=64,
        inference_noises=1, passive_inference=False, pap_prompts=("replace shuffle", "fix"),
    ),
}


def preset(name: str, **overrides: Any) -> ScanningPreset:
    """The named preset (``tiny`` or ``paper``) with optional field overrides."""
    try:
        base = PRESETS[name]
    except KeyError:
        raise ValueError(f"unknown preset {name!r}: choose one of {', '.join(PRESETS)}") from None
    return base.with_overrides(**overrides)
