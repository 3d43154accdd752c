"""Chat with a GGUF instruct model through llama.cpp's server code, in process (``xllamacpp``).

``xllamacpp`` (PyPI, MIT) is a prebuilt llama.cpp wheel: ``Server(CommonParams)`` loads the model
and ``handle_chat_completions(dict)`` answers an OpenAI-shaped chat request with an OpenAI-shaped
dict (``choices``, ``usage``, llama.cpp's ``timings``). The server keeps the last prompt's KV
cache in its slot and a small RAM cache of earlier prompts (``cache_prompt``), so a fixed system
prompt + few-shot prefix is evaluated once and reused by the next requests that start with it.

>>> from ml.llm import LLMConfig, load_llm, packaged_smollm2_gguf
>>> llm = load_llm(LLMConfig(path=packaged_smollm2_gguf(), max_tokens=8))  # doctest: +SKIP
>>> llm.chat([{"role": "user", "content": "Say hi."}], temperature=0.0, seed=1).text  # doctest: +SKIP
"Hello there! I'm here to help"

Threads: one by default. On this project's 2-core machines, shared with other workers, one thread
ran Qwen2.5-Coder-1.5B-Instruct (Q4_K_M GGUF, 1.1 GB) at 12-19 generated and 23-34 prompt
tokens/s whatever else ran; two threads reached 15-24 and 60 in a quiet spell but fell to 0.8-6
generated tokens/s while another process kept a core busy (llama.cpp's threads wait for each other
when one is descheduled; METHODS.md, "Speed"). Outputs may differ slightly between thread counts.
GPU: ``gpu_layers`` needs a CUDA build of xllamacpp (``pip install xllamacpp --force-reinstall
--index-url https://xorbitsai.github.io/xllamacpp/whl/cu128``); the PyPI wheel is CPU-only.
"""
from __future__ import annotations

import importlib.util
import os
import secrets
import shutil
import tempfile
import threading
import time
import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .gguf_file import gguf_problem

__all__ = [
    "ALL_GPU_LAYERS", "ChatLLM", "Completion", "GGUF_MAGIC", "LLMConfig", "LLMRequestError", "LLMUnavailable",
    "gpu_layers_for_device", "llm_unavailable_reason", "load_llm", "unload_llms",
]

GGUF_MAGIC = b"GGUF"
# gpu_layers value meaning "every layer"; llama.cpp clamps it to the model's layer count.
ALL_GPU_LAYERS = -1
_LLAMA_ALL_LAYERS = 999
# The server's RAM cache of earlier prompts' KV states (llama.cpp's default is 8 GiB). One 400-token
# prefix of the 1.5B Qwen is ~11 MB, so this keeps the rewrite and the solve prompts both warm.
PROMPT_CACHE_MIB = 256
_MAX_SEED = 2**32 - 2  # 2**32 - 1 is llama.cpp's "random seed"
_ROLES = frozenset({"system", "user", "assistant"})


class LLMUnavailable(RuntimeError):
    """The model cannot run here: no file configured, not a GGUF file, xllamacpp missing, or
    llama.cpp refused to load it. ``reason`` is a sentence for logs and API errors."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class LLMRequestError(RuntimeError):
    """The loaded model refused one request (e.g. the prompt does not fit the context)."""


@dataclass(frozen=True)
class LLMConfig:
    """path: the GGUF file; n_ctx: context in tokens (prompt + answer; the KV cache is sized by it);
    threads: CPU threads for prompt and generation (1: see the module's docstring);
    gpu_layers: layers offloaded to a GPU (0: CPU only; ALL_GPU_LAYERS: every layer; needs a GPU
    build of xllamacpp, see :func:`gpu_layers_for_device`); max_tokens and seed: the defaults of
    :meth:`ChatLLM.chat` for requests that do not give theirs."""

    path: str
    n_ctx: int = 2048
    threads: int = 1
    gpu_layers: int = 0
    max_tokens: int = 256
    seed: int = 0

    def __post_init__(self) -> None:
        if isinstance(self.path, os.PathLike):
            object.__setattr__(self, "path", os.fspath(self.path))
        if not isinstance(self.path, str) or not self.path:
            raise ValueError("path must name a GGUF file")
        if not 128 <= self.n_ctx <= 131072:
            raise ValueError(f"n_ctx must be in [128, 131072], got {self.n_ctx}")
        if not 1 <= self.threads <= 256:
            raise ValueError(f"threads must be in [1, 256], got {self.threads}")
        if self.gpu_layers < ALL_GPU_LAYERS:
            raise ValueError(f"gpu_layers must be >= 0 or ALL_GPU_LAYERS ({ALL_GPU_LAYERS}), got {self.gpu_layers}")
        if not 1 <= self.max_tokens < self.n_ctx:
            raise ValueError(f"max_tokens must be in [1, n_ctx), got {self.max_tokens}")
        if not 0 <= self.seed <= _MAX_SEED:
            raise ValueError(f"seed must be in [0, {_MAX_SEED}], got {self.seed}")


@dataclass(frozen=True)
class Completion:
    """One answer: its text, the prompt's tokens (all of them, ``cached_tokens`` of which came from
    the prompt cache), the answer's tokens, wall seconds of the request (not of waiting for the
    lock), and why it stopped ("stop": end of turn or a stop string; "length": max_tokens)."""

    text: str
    prompt_tokens: int
    completion_tokens: int
    seconds: float
    finish_reason: str = "stop"
    cached_tokens: int = 0


def gpu_layers_for_device(device: str) -> int:
    """The ``gpu_layers`` of a torch-style device name: every layer on "cuda"/"cuda:N", else none.

    >>> gpu_layers_for_device("cpu"), gpu_layers_for_device("cuda:0") == ALL_GPU_LAYERS
    (0, True)
    """
    return ALL_GPU_LAYERS if device.split(":")[0] == "cuda" else 0


def llm_unavailable_reason(path: str | os.PathLike[str] | None) -> str | None:
    """Why a chat model at ``path`` cannot run here, or None when it can be tried (cheap: the
    file's first 4 bytes and an import lookup; a corrupt file is caught by :func:`load_llm`).

    >>> llm_unavailable_reason("")
    'no LLM model file is configured'
    >>> llm_unavailable_reason("/nonexistent/model.gguf")
    'the LLM model file /nonexistent/model.gguf does not exist'
    """
    if path is None or not os.fspath(path):
        return "no LLM model file is configured"
    path = os.fspath(path)
    if not os.path.exists(path):
        return f"the LLM model file {path} does not exist"
    if not os.path.isfile(path):
        return f"the LLM model path {path} is not a file"
    try:
        with open(path, "rb") as handle:
            magic = handle.read(len(GGUF_MAGIC))
    except OSError as error:
        return f"the LLM model file {path} cannot be read: {error.strerror or error}"
    if magic != GGUF_MAGIC:
        return f"{path} is not a GGUF file (it does not start with {GGUF_MAGIC!r})"
    if importlib.util.find_spec("xllamacpp") is None:
        return "xllamacpp (llama.cpp's prebuilt wheel) is not installed: pip install xllamacpp"
    return None


class _Engine:
    """One llama.cpp server (one loaded model), its lock and its speed counters."""

    def __init__(self, server: Any, socket_dir: str) -> None:
        self.server = server
        self.lock = threading.Lock()
        self.generated = self.prompted = 0
        self.generation_ms = self.prompt_ms = 0.0
        weakref.finalize(self, shutil.rmtree, socket_dir, True)


class ChatLLM:
    """A loaded model, answering one chat request at a time (llama.cpp's single slot; callers on
    other threads wait on a lock). Get one with :func:`load_llm`, which shares the model per process."""

    def __init__(self, engine: _Engine, config: LLMConfig) -> None:
        self._engine = engine
        self.config = config

    def chat(self, messages: Sequence[Mapping[str, str]], *, temperature: float = 0.0, top_p: float = 1.0,
             max_tokens: int | None = None, seed: int | None = None, stop: Sequence[str] | None = None) -> Completion:
        """Answer ``messages`` (``{"role": "system"|"user"|"assistant", "content": str}``, in order)
        with the model's chat template. temperature 0 is greedy; ``seed`` makes sampling repeatable;
        ``max_tokens``/``seed`` default to the config's; generation ends before any ``stop`` string.
        llama.cpp's other sampler defaults stay on (top_k 40, min_p 0.05). Raises
        :class:`LLMRequestError` when the model refuses the request (e.g. a prompt over n_ctx)."""
        max_tokens = self.config.max_tokens if max_tokens is None else max_tokens
        seed = self.config.seed if seed is None else seed
        if temperature < 0 or not 0 < top_p <= 1:
            raise ValueError(f"temperature must be >= 0 and top_p in (0, 1], got {temperature}, {top_p}")
        if not 1 <= max_tokens < self.config.n_ctx:
            raise ValueError(f"max_tokens must be in [1, n_ctx), got {max_tokens}")
        if not 0 <= seed <= _MAX_SEED:
            raise ValueError(f"seed must be in [0, {_MAX_SEED}], got {seed}")
        request: dict[str, Any] = {
            "messages": _checked_messages(messages),
            "temperature": float(temperature),
            "top_p": float(top_p),
            "max_tokens": int(max_tokens),
            "seed": int(seed),
            "cache_prompt": True,  # reuse the KV of the longest cached prefix (system prompt + few-shot)
            "stream": False,
        }
        if stop:
            if isinstance(stop, str) or not all(isinstance(s, str) and s for s in stop):
                raise ValueError("stop must be a sequence of non-empty strings")
            request["stop"] = list(stop)
        engine = self._engine
        with engine.lock:
            start = time.perf_counter()
            try:
                response = engine.server.handle_chat_completions(request)
            except ValueError as error:  # xllamacpp's own request checks
                raise LLMRequestError(str(error)) from error
            seconds = time.perf_counter() - start
            if "error" in response or "choices" not in response:
                error = response.get("error", response)
                message = error.get("message", error) if isinstance(error, Mapping) else error
                raise LLMRequestError(f"the LLM refused the request: {message}")
            timings = response.get("timings", {})
            engine.generated += int(timings.get("predicted_n", 0))
            engine.generation_ms += float(timings.get("predicted_ms", 0.0))
            engine.prompted += int(timings.get("prompt_n", 0))
            engine.prompt_ms += float(timings.get("prompt_ms", 0.0))
        choice = response["choices"][0]
        usage = response.get("usage", {})
        return Completion(
            text=(choice.get("message", {}).get("content") or "").strip(),
            prompt_tokens=int(usage.get("prompt_tokens", 0)),
            completion_tokens=int(usage.get("completion_tokens", 0)),
            seconds=seconds,
            finish_reason=str(choice.get("finish_reason") or "stop"),
            cached_tokens=int((usage.get("prompt_tokens_details") or {}).get("cached_tokens", 0)),
        )

    @property
    def tokens_per_second(self) -> float:
        """Generated tokens per second over every request to this model so far (0.0 before the first)."""
        engine = self._engine
        return 1000.0 * engine.generated / engine.generation_ms if engine.generation_ms else 0.0

    @property
    def prompt_tokens_per_second(self) -> float:
        """Prompt tokens evaluated per second (cached ones not counted), over every request so far."""
        engine = self._engine
        return 1000.0 * engine.prompted / engine.prompt_ms if engine.prompt_ms else 0.0


def _checked_messages(messages: Sequence[Mapping[str, str]]) -> list[dict[str, str]]:
    if isinstance(messages, (str, bytes)) or not messages:
        raise ValueError("messages must be a non-empty sequence of {'role', 'content'} mappings")
    checked = []
    for message in messages:
        if not isinstance(message, Mapping):
            raise ValueError(f"each message must be a mapping, got {message!r}")
        role, content = message.get("role"), message.get("content")
        if role not in _ROLES or not isinstance(content, str):
            raise ValueError(f"each message needs a role in {sorted(_ROLES)} and a str content, got {message!r}")
        checked.append({"role": role, "content": content})
    return checked


_LOADED: dict[tuple[str, int, int, int], _Engine] = {}
_LOAD_LOCK = threading.Lock()


def load_llm(config: LLMConfig) -> ChatLLM:
    """The model of ``config``, loaded once per process per (file, threads, n_ctx, gpu_layers);
    configs that differ only in max_tokens/seed share it. Raises :class:`LLMUnavailable` (with
    ``llm_unavailable_reason``'s sentence, or "... could not be loaded: ...") and never crashes
    the process on a corrupt file: llama.cpp checks the header and the tensor extents itself."""
    reason = llm_unavailable_reason(config.path)
    if reason:
        raise LLMUnavailable(reason)
    path = os.path.realpath(config.path)
    key = (path, config.threads, config.n_ctx, config.gpu_layers)
    with _LOAD_LOCK:
        engine = _LOADED.get(key)
        if engine is None:
            engine = _LOADED[key] = _start_server(path, config)
    return ChatLLM(engine, config)


def unload_llms() -> None:
    """Forget every loaded model (each is freed once no caller holds a ChatLLM of it any more)."""
    with _LOAD_LOCK:
        _LOADED.clear()


def _start_server(path: str, config: LLMConfig) -> _Engine:
    import xllamacpp

    params = xllamacpp.CommonParams()
    params.model.path = path
    params.n_ctx = config.n_ctx
    params.n_parallel = 1  # one slot: requests are serialized anyway, and the slot keeps the whole n_ctx
    params.n_predict = -1  # each request's max_tokens bounds it
    params.cpuparams.n_threads = config.threads
    params.cpuparams_batch.n_threads = config.threads
    params.n_gpu_layers = _LLAMA_ALL_LAYERS if config.gpu_layers == ALL_GPU_LAYERS else config.gpu_layers
    params.fit_params = False  # sizes unset parameters to free memory by a trial load; all are set here
    params.cache_prompt = True
    params.cache_ram_mib = PROMPT_CACHE_MIB
    params.warmup = False
    params.verbosity = 1  # llama.cpp's errors (a refused file, and why) on stderr, nothing else
    # The server also serves llama.cpp's HTTP API; by default on a TCP port of 127.0.0.1 with no key.
    # Put it on a Unix socket in a private directory, behind a random key, with no web UI.
    socket_dir = tempfile.mkdtemp(prefix="paralab-llm-")
    params.hostnames = [os.path.join(socket_dir, "llm.sock")]
    params.api_keys = [secrets.token_hex(16)]
    params.ui = False
    params.endpoint_slots = False
    params.n_threads_http = 1
    try:
        server = xllamacpp.Server(params)
    except Exception as error:  # RuntimeError("Failed to init server, ...")
        shutil.rmtree(socket_dir, ignore_errors=True)
        raise LLMUnavailable(f"{path} could not be loaded: {gguf_problem(path)} "
                             f"(llama.cpp's own reason is on stderr)") from error
    return _Engine(server, socket_dir)
