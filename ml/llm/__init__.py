"""A GGUF instruct LLM in process: llama.cpp through the prebuilt ``xllamacpp`` wheel (MIT).

``load_llm(LLMConfig(path=...))`` loads a model once per process; ``ChatLLM.chat(messages, ...)``
answers a chat with a :class:`Completion` (text, token counts, seconds). Everything that cannot
run raises :class:`LLMUnavailable` with a sentence saying why; :func:`llm_unavailable_reason` says
it without loading. :func:`packaged_smollm2_gguf` is the tiny offline model tests use.
``xllamacpp`` is imported only when a model loads.
"""
from .models import packaged_smollm2_gguf
from .runtime import (
    ALL_GPU_LAYERS,
    ChatLLM,
    Completion,
    LLMConfig,
    LLMRequestError,
    LLMUnavailable,
    gpu_layers_for_device,
    llm_unavailable_reason,
    load_llm,
    unload_llms,
)

__all__ = [
    "ALL_GPU_LAYERS", "ChatLLM", "Completion", "LLMConfig", "LLMRequestError", "LLMUnavailable",
    "gpu_layers_for_device", "llm_unavailable_reason", "load_llm", "packaged_smollm2_gguf", "unload_llms",
]
