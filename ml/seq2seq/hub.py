"""Sequence-to-sequence generation with transformers: translation and paraphrasing models.

Models are named by the caller (a hub id or a local directory; the platform settings hold
them), loaded lazily on first use and cached per process. Loading never downloads: with
``local_files_only=True`` (the default) a model that is not already on disk raises
:class:`ModelUnavailable` with the reason, which operators turn into a refusal.

>>> config = Seq2SeqConfig(model="Helsinki-NLP/opus-mt-en-de", num_beams=4)
>>> translate = Seq2SeqGenerator(config)          # nothing is loaded yet
>>> # translate(["A train covers 300 km."]) -> ["Ein Zug legt 300 km zurück."]
"""
from __future__ import annotations

import logging
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

__all__ = [
    "BacktranslationConfig",
    "Backtranslator",
    "ModelUnavailable",
    "Seq2SeqConfig",
    "Seq2SeqGenerator",
    "load_seq2seq",
]

logger = logging.getLogger(__name__)


class ModelUnavailable(RuntimeError):
    """A configured model could not be loaded (not on disk, offline, or broken)."""


@dataclass(frozen=True)
class Seq2SeqConfig:
    """How to load and run one seq2seq model.

    model: hub id or local directory of a transformers encoder-decoder (Marian, BART, T5, Pegasus).
    prefix: text put before every input (T5-style task prompts such as "paraphrase: ").
    device: "cpu", "cuda", "cuda:0", ...
    max_new_tokens / num_beams / do_sample / top_p / temperature: generation settings.
    batch_size: inputs per forward pass.
    local_files_only: never reach a model hub (the platform runs offline).
    """

    model: str
    prefix: str = ""
    device: str = "cpu"
    max_new_tokens: int = 128
    num_beams: int = 4
    do_sample: bool = False
    top_p: float = 1.0
    temperature: float = 1.0
    batch_size: int = 16
    max_input_tokens: int = 512
    local_files_only: bool = True

    def __post_init__(self) -> None:
        if not self.model or not isinstance(self.model, str):
            raise ValueError("Seq2SeqConfig.model must name a model (hub id or directory)")
        if self.max_new_tokens < 1 or self.num_beams < 1 or self.batch_size < 1 or self.max_input_tokens < 1:
            raise ValueError("max_new_tokens, num_beams, batch_size and max_input_tokens must be >= 1")
        if not 0 < self.top_p <= 1:
            raise ValueError("top_p must be in (0, 1]")
        if self.temperature <= 0:
            raise ValueError("temperature must be > 0")


@lru_cache(maxsize=4)
def load_seq2seq(model: str, device: str = "cpu", local_files_only: bool = True) -> tuple[Any, Any]:
    """(tokenizer, model) for a seq2seq model, loaded once per process; ``ModelUnavailable``
    when it cannot be loaded."""
    try:
        from transformers import AutoModelForSeq2SeqLM, AutoTokenizer

        tokenizer = AutoTokenizer.from_pretrained(model, local_files_only=local_files_only)
        network = AutoModelForSeq2SeqLM.from_pretrained(model, local_files_only=local_files_only)
    except (OSError, ValueError, ImportError) as exc:
        raise ModelUnavailable(f"seq2seq model {model!r} cannot be loaded: {exc}") from exc
    network.to(device)
    network.eval()
    logger.info("loaded seq2seq model %s on %s", model, device)
    return tokenizer, network


class Seq2SeqGenerator:
    """A batch text generator over one seq2seq model: ``generator(texts) -> outputs``."""

    def __init__(self, config: Seq2SeqConfig) -> None:
        self.config = config

    def __call__(self, texts: list[str]) -> list[str]:
        import torch

        cfg = self.config
        tokenizer, network = load_seq2seq(cfg.model, cfg.device, cfg.local_files_only)
        outputs: list[str] = []
        for i in range(0, len(texts), cfg.batch_size):
            batch = [cfg.prefix + t for t in texts[i:i + cfg.batch_size]]
            encoded = tokenizer(batch, return_tensors="pt", padding=True, truncation=True,
                                max_length=cfg.max_input_tokens).to(cfg.device)  # (B, T)
            settings: dict[str, Any] = {"max_new_tokens": cfg.max_new_tokens, "num_beams": cfg.num_beams}
            if cfg.do_sample:  # sampling knobs only when sampling (transformers warns otherwise)
                settings.update(do_sample=True, top_p=cfg.top_p, temperature=cfg.temperature)
            with torch.inference_mode():
                generated = network.generate(**encoded, **settings)  # (B, T_out)
            outputs += [t.strip() for t in tokenizer.batch_decode(generated, skip_special_tokens=True)]
        return outputs

    def __repr__(self) -> str:
        return f"Seq2SeqGenerator({self.config.model!r})"


@dataclass(frozen=True)
class BacktranslationConfig:
    """Round-trip translation (ParaQD f1: English -> German -> English, per sentence).

    forward_model / backward_model: hub ids or directories of the two translation models
    (production defaults: the MarianMT opus-mt models; they load only if already on disk).
    """

    forward_model: str = "Helsinki-NLP/opus-mt-en-de"
    backward_model: str = "Helsinki-NLP/opus-mt-de-en"
    device: str = "cpu"
    num_beams: int = 4
    max_new_tokens: int = 256
    batch_size: int = 16
    local_files_only: bool = True

    def __post_init__(self) -> None:
        if not self.forward_model or not self.backward_model:
            raise ValueError("BacktranslationConfig needs a forward and a backward model")

    def stage(self, model: str) -> Seq2SeqConfig:
        return Seq2SeqConfig(model=model, device=self.device, num_beams=self.num_beams,
                             max_new_tokens=self.max_new_tokens, batch_size=self.batch_size,
                             local_files_only=self.local_files_only)


class Backtranslator:
    """``backtranslator(sentences) -> sentences`` through the pivot language."""

    def __init__(self, config: BacktranslationConfig | None = None) -> None:
        self.config = config or BacktranslationConfig()
        self.forward = Seq2SeqGenerator(self.config.stage(self.config.forward_model))
        self.backward = Seq2SeqGenerator(self.config.stage(self.config.backward_model))

    def __call__(self, texts: list[str]) -> list[str]:
        return self.backward(self.forward(texts))

    def __repr__(self) -> str:
        return f"Backtranslator({self.config.forward_model!r} -> {self.config.backward_model!r})"
