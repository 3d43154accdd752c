"""An offline instruct LLM as a generator (what a teacher would otherwise reach for): a few-shot
chat prompt, GGUF inference on the CPU with ``llama-cpp-python`` (quantized, no dequantizing into
a framework), several sampled rewrites, each decoded under the platform's number constraints.

Decoding: :class:`ml.seq2seq.constraints.NumberCopyLogitsProcessor` runs at every step, so a
digit is written only where it copies a number of the problem, each number at most as often as
the problem writes it, and the rewrite may not end while a number is unwritten. What comes out is
checked like every other generator's output (:func:`require_same_problem`: numbers, units and
names kept) and refused otherwise.

Optional and never a CI default: it runs only when ``GenerationResources.llm_dir``/``llm_file``
name a GGUF file and ``llama_cpp`` is installed (``make llm``: Qwen2.5-Coder-1.5B-Instruct,
1.1 GB). Seconds per variant and the valid share are in ``docs/results/handout.md``.
"""
from __future__ import annotations

import importlib.util
import logging
import os
import random
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from ..seq2seq.constraints import NumberCopyLogitsProcessor, source_number_words, source_numbers, word_number_values
from .base import (
    GeneratedCandidate,
    GenerationResources,
    GeneratorUnavailable,
    NotApplicable,
    MAX_NOUNS_DROPPED,
    candidates_or_refuse,
    content_refusal,
    require_same_problem,
)

__all__ = ["FEW_SHOT", "MAX_NOUNS_DROPPED", "SYSTEM_PROMPT", "InstructLLMConfig", "InstructLLMGenerator", "content_refusal",
           "llm_unavailable_reason"]

logger = logging.getLogger(__name__)

SYSTEM_PROMPT = (
    "You rewrite math word problems for a teacher who needs another version of the same problem. "
    "Rewrite it in different words and a different sentence order, in plain, natural English. "
    "Keep every number exactly as written, every unit and every name, and ask for exactly the same "
    "quantity. Never solve the problem, never add or drop information, never add a comment. "
    "Answer with the rewritten problem only.")
FEW_SHOT = (
    ("Lucy has an aquarium with 5 fish. She wants to buy 1 more fish. How many fish would Lucy have then?",
     "If Lucy, who keeps 5 fish in her aquarium, buys 1 more fish, how many fish will she have?"),
    ("A train covers 300 km in 5 hours. What is its speed in km/h?",
     "What is the speed, in km/h, of a train that travels 300 km in 5 hours?"),
    ("A shopkeeper sells a shirt for $40 and makes a profit of 25%. What did the shirt cost him?",
     "A shirt sold by a shopkeeper for $40 gives him a 25% profit. How much did he pay for the shirt?"),
)
_LEAD = re.compile(r"^\s*(?:rewritten problem|rewritten|paraphrase|answer)\s*:\s*", re.IGNORECASE)


@dataclass(frozen=True)
class InstructLLMConfig:
    """samples: rewrites drawn per problem (temperature, top_p); max_new_tokens: cap of a
    rewrite's length (also bounded by 2x the problem's tokens + 32); n_ctx and threads: llama.cpp's
    context and CPU threads (0: every core); constrained: decode under the number constraints;
    check_content: refuse rewrites that ask more, add sentences or drop the problem's things
    (:func:`content_refusal`)."""

    samples: int = 3
    temperature: float = 0.7
    top_p: float = 0.95
    max_new_tokens: int = 256
    n_ctx: int = 2048
    threads: int = 0
    constrained: bool = True
    check_content: bool = True

    def __post_init__(self) -> None:
        if self.samples < 1 or self.max_new_tokens < 1 or self.n_ctx < 256:
            raise ValueError("samples and max_new_tokens must be >= 1 and n_ctx >= 256")
        if self.temperature < 0 or not 0 < self.top_p <= 1:
            raise ValueError("temperature must be >= 0 and top_p in (0, 1]")


def llm_unavailable_reason(llm_dir: str | None, llm_file: str | None) -> str | None:
    """Why the instruct LLM cannot run (None: the GGUF file exists and llama.cpp can read it)."""
    if not llm_dir or not llm_file:
        return "no instruct LLM configured (run `make llm`, then set PARALAB_LLM_DIR and PARALAB_LLM_FILE)"
    path = os.path.join(os.path.expanduser(llm_dir), llm_file)
    if not os.path.isfile(path):
        return f"the instruct LLM file {path} does not exist"
    if importlib.util.find_spec("llama_cpp") is None:
        return "llama-cpp-python is not installed (run `make llm`)"
    return None


@lru_cache(maxsize=1)
def _load(path: str, n_ctx: int, threads: int) -> Any:
    from llama_cpp import Llama

    model = Llama(model_path=path, n_ctx=n_ctx, n_threads=threads or os.cpu_count() or 1, verbose=False)
    logger.info("loaded instruct LLM %s (llama.cpp)", path)
    return model


class _Tokenizer:
    """What the number constraints read of a tokenizer (``len``, ``decode``), over llama.cpp's
    vocabulary. One per model, so the constraints read the vocabulary once."""

    def __init__(self, model: Any) -> None:
        self.model = model
        self.size = int(model.n_vocab())

    def __len__(self) -> int:
        return self.size

    def decode(self, ids: list[int], skip_special_tokens: bool = True) -> str:
        return self.model.detokenize([int(i) for i in ids]).decode("utf-8", errors="ignore")


@lru_cache(maxsize=1)
def _tokenizer(path: str, n_ctx: int, threads: int) -> _Tokenizer:
    return _Tokenizer(_load(path, n_ctx, threads))


def _end_ids(model: Any) -> list[int]:
    ids = {int(model.token_eos())}
    for marker in (b"<|im_end|>", b"<|endoftext|>", b"<|eot_id|>"):
        found = model.tokenize(marker, add_bos=False, special=True)
        if len(found) == 1:
            ids.add(int(found[0]))
    return sorted(ids)


def _messages(text: str) -> list[dict[str, str]]:
    messages = [{"role": "system", "content": SYSTEM_PROMPT}]
    for problem, rewrite in FEW_SHOT:
        messages += [{"role": "user", "content": problem}, {"role": "assistant", "content": rewrite}]
    return messages + [{"role": "user", "content": text}]


def _clean(output: str) -> str:
    """The rewrite alone: the first paragraph, without a "Rewritten:" lead or quotes."""
    paragraphs = [p.strip() for p in output.strip().split("\n\n") if p.strip()]
    first = _LEAD.sub("", paragraphs[0]) if paragraphs else ""
    return " ".join(first.split()).strip('"\u201c\u201d ')


class _Processors(list):
    """Logits processors applied in turn (what llama.cpp's LogitsProcessorList does), without
    importing llama_cpp here."""

    def __call__(self, input_ids: Any, scores: Any) -> Any:
        for processor in self:
            scores = processor(input_ids, scores)
        return scores


def _number_processor(text: str, tokenizer: _Tokenizer, end_ids: list[int]) -> Any:
    """The platform's number constraints as a llama.cpp logits processor (numpy in, numpy out).
    llama.cpp passes every token so far; the first call comes before any generated token, so its
    length is the prompt's."""
    import numpy as np
    import torch

    built: list[NumberCopyLogitsProcessor] = []

    def process(input_ids: Any, scores: Any) -> Any:
        if not built:
            built.append(NumberCopyLogitsProcessor(
                tokenizer, [source_numbers(text)], offset=len(input_ids), beams=1, require_all=True,
                eos_token_ids=end_ids, number_words=[source_number_words(text)], values=[word_number_values(text)]))
        processor = built[0]
        ids = torch.from_numpy(np.asarray(input_ids, dtype=np.int64)).unsqueeze(0)
        logits = torch.from_numpy(np.array(scores, dtype=np.float32)).unsqueeze(0)
        return processor(ids, logits)[0].numpy()

    return process


@dataclass(frozen=True)
class InstructLLMGenerator:
    """Few-shot instruct-LLM rewrites: ``config.samples`` sampled rewrites under the number
    constraints, each kept only if it is still the same problem."""

    name: str = "instruct_llm"
    description: str = ("Offline instruct LLM (GGUF on llama.cpp): sampled rewrites under the number "
                        "constraints, checked like every other candidate; optional (make llm)")
    kind: str = "neural"
    config: InstructLLMConfig = InstructLLMConfig()

    def unavailable_reason(self, resources: GenerationResources) -> str | None:
        return llm_unavailable_reason(resources.llm_dir, resources.llm_file)

    def generate(self, text: str, rng: random.Random, resources: GenerationResources) -> list[GeneratedCandidate]:
        reason = self.unavailable_reason(resources)
        if reason is not None:
            raise GeneratorUnavailable(reason, generator=self.name)
        path = os.path.join(os.path.expanduser(str(resources.llm_dir)), str(resources.llm_file))
        config = self.config
        model = _load(path, config.n_ctx, config.threads)
        messages = _messages(text)
        budget = min(config.max_new_tokens, 2 * len(model.tokenize(text.encode(), add_bos=False)) + 32)
        candidates, refusals = [], []
        for _ in range(config.samples):
            processors = None
            if config.constrained:
                processors = _Processors([_number_processor(
                    text, _tokenizer(path, config.n_ctx, config.threads), _end_ids(model))])
            out = model.create_chat_completion(
                messages=messages, temperature=config.temperature, top_p=config.top_p, max_tokens=budget,
                seed=rng.randrange(2 ** 31), logits_processor=processors)
            rewrite = _clean(out["choices"][0]["message"]["content"] or "")
            if not rewrite or rewrite.strip() == text.strip():
                refusals.append("the LLM returned nothing new")
                continue
            try:
                require_same_problem(text, rewrite, generator=self.name, spacy_model=resources.spacy_model)
            except NotApplicable as exc:
                refusals.append(exc.reason)
                continue
            refusal = content_refusal(text, rewrite, spacy_model=resources.spacy_model) if config.check_content else None
            if refusal is not None:
                refusals.append(refusal)
                continue
            candidates.append(GeneratedCandidate(rewrite, self.name, "", {
                "model": os.path.basename(path), "constrained": config.constrained}))
        reason = "; ".join(dict.fromkeys(refusals)) or "no rewrite"
        return candidates_or_refuse(text, candidates, generator=self.name, reason=reason, limit=config.samples)
