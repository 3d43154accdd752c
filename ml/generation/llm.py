"""Optional baseline: a few-shot instruct LLM asked to rewrite the problem (what a teacher would
otherwise reach for). Never a default and never in CI: it runs only when
``GenerationResources.llm_dir`` and ``llm_file`` name an existing GGUF file (METHODS.md: e.g.
Qwen2.5-Coder-1.5B-Instruct, 5-7 s a problem on this CPU; SmolLM2-135M-Instruct for a smoke test),
loaded by transformers with ``gguf_file`` (needs the ``gguf`` package). The rewrite must keep
every number, unit and named entity, else the generator refuses.
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

from .base import (
    GeneratedCandidate,
    GenerationResources,
    GeneratorUnavailable,
    NotApplicable,
    require_same_problem,
)

__all__ = ["FEW_SHOT", "SYSTEM_PROMPT", "InstructLLMConfig", "InstructLLMGenerator", "llm_unavailable_reason"]

logger = logging.getLogger(__name__)

SYSTEM_PROMPT = ("You rewrite math word problems. Rewrite the problem in different words and sentence order. "
                 "Never solve it, never add or remove information, keep every number, unit and name exactly. "
                 "Answer with the rewritten problem only.")
FEW_SHOT = (
    ("Lucy has an aquarium with 5 fish. She wants to buy 1 more fish. How many fish would Lucy have then?",
     "If Lucy, who keeps 5 fish in her aquarium, buys 1 more fish, how many fish will she have?"),
    ("A train covers 300 km in 5 hours. What is its speed in km/h?",
     "What is the speed, in km/h, of a train that travels 300 km in 5 hours?"),
)
_LEAD = re.compile(r"^\s*(?:rewritten problem|rewritten|paraphrase|answer)\s*:\s*", re.IGNORECASE)


@dataclass(frozen=True)
class InstructLLMConfig:
    """max_new_tokens: cap of the generated length (also bounded by 2x the problem's tokens + 32)."""

    max_new_tokens: int = 256

    def __post_init__(self) -> None:
        if self.max_new_tokens < 1:
            raise ValueError("max_new_tokens must be >= 1")


def llm_unavailable_reason(llm_dir: str | None, llm_file: str | None) -> str | None:
    """Why the instruct LLM cannot run (None: the GGUF file exists and transformers can read it)."""
    if not llm_dir or not llm_file:
        return "no instruct LLM configured (set PARALAB_LLM_DIR and PARALAB_LLM_FILE to a GGUF model)"
    path = os.path.join(os.path.expanduser(llm_dir), llm_file)
    if not os.path.isfile(path):
        return f"the instruct LLM file {path} does not exist"
    if importlib.util.find_spec("gguf") is None:
        return "the gguf package is not installed (transformers needs it to read GGUF files)"
    return None


@lru_cache(maxsize=1)
def _load(llm_dir: str, llm_file: str, device: str) -> tuple[Any, Any]:
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(llm_dir, gguf_file=llm_file, local_files_only=True)
    model = AutoModelForCausalLM.from_pretrained(llm_dir, gguf_file=llm_file, dtype=torch.float32,
                                                 local_files_only=True).to(device).eval()
    logger.info("loaded instruct LLM %s/%s on %s", llm_dir, llm_file, device)
    return tokenizer, model


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


@dataclass(frozen=True)
class InstructLLMGenerator:
    """Few-shot instruct-LLM rewrite (greedy decoding: one candidate)."""

    name: str = "instruct_llm"
    description: str = ("Few-shot instruct LLM (GGUF through transformers): 'rewrite, never solve, keep every "
                        "number'; optional, never a default")
    kind: str = "baseline"
    config: InstructLLMConfig = InstructLLMConfig()

    def unavailable_reason(self, resources: GenerationResources) -> str | None:
        return llm_unavailable_reason(resources.llm_dir, resources.llm_file)

    def generate(self, text: str, rng: random.Random, resources: GenerationResources) -> list[GeneratedCandidate]:
        reason = self.unavailable_reason(resources)
        if reason is not None:
            raise GeneratorUnavailable(reason, generator=self.name)
        import torch

        tokenizer, model = _load(str(resources.llm_dir), str(resources.llm_file), resources.device)
        inputs = tokenizer.apply_chat_template(_messages(text), add_generation_prompt=True, return_tensors="pt",
                                               return_dict=True).to(model.device)
        budget = min(self.config.max_new_tokens, 2 * len(tokenizer(text)["input_ids"]) + 32)
        with torch.no_grad():
            output = model.generate(**inputs, max_new_tokens=budget, do_sample=False,
                                    pad_token_id=tokenizer.pad_token_id or tokenizer.eos_token_id)
        rewrite = _clean(tokenizer.decode(output[0, inputs["input_ids"].shape[1]:], skip_special_tokens=True))
        if not rewrite or rewrite.strip() == text.strip():
            raise NotApplicable("the LLM returned nothing new", operator=self.name)
        require_same_problem(text, rewrite, generator=self.name, spacy_model=resources.spacy_model)
        return [GeneratedCandidate(rewrite, self.name, "", {"model": os.path.join(str(resources.llm_dir),
                                                                                  str(resources.llm_file))})]
