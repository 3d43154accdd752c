"""One tiny sentence encoder per session (2-layer BERT, hidden 64, the packaged MiniLM tokenizer)
and a small synthetic triplet set, so the real training and scoring code runs in seconds."""
from __future__ import annotations

import os
import random
import shutil

import pytest

from ml.paraqd import Triplet

TOKENIZER_FILES = ("vocab.txt", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json")


@pytest.fixture(scope="session")
def packaged_minilm_dir() -> str:
    from ml.paraqd.model import resolve_encoder_path

    return resolve_encoder_path("packaged:all-MiniLM-L6-v2")


@pytest.fixture(scope="session")
def tiny_encoder_dir(tmp_path_factory, packaged_minilm_dir) -> str:
    """A randomly initialised 2-layer BERT (hidden 64) + mean pooling + normalisation, saved as a
    sentence-transformers directory with safetensors weights."""
    import torch
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.sentence_transformer.modules import Normalize, Pooling, Transformer
    from transformers import BertConfig, BertModel

    hf_dir = tmp_path_factory.mktemp("tiny_bert")
    for name in TOKENIZER_FILES:
        shutil.copy(os.path.join(packaged_minilm_dir, name), hf_dir / name)
    # initializer_range 0.2 (BERT's is 0.02): a random encoder then does not map every sentence
    # to nearly the same point, so training visibly moves the scores.
    config = BertConfig(vocab_size=30522, hidden_size=64, num_hidden_layers=2, num_attention_heads=2,
                        intermediate_size=128, max_position_embeddings=128, initializer_range=0.2)
    torch.manual_seed(0)  # a test fixture is an entry point
    BertModel(config).save_pretrained(hf_dir)

    transformer = Transformer(str(hf_dir), max_seq_length=64)
    model = SentenceTransformer(modules=[transformer, Pooling(64, "mean"), Normalize()], device="cpu")
    st_dir = tmp_path_factory.mktemp("tiny_encoder")
    model.save(str(st_dir), safe_serialization=True, create_model_card=False)
    return str(st_dir)


NAMES = ["John", "Mary", "A train", "A car", "Alex", "Priya", "A pump", "The shop", "Tom", "Sara"]
THINGS = ["apples", "pens", "km", "litres", "books"]


def synthetic_triplets(n_anchors: int = 40, seed: int = 0) -> list[Triplet]:
    """Two triplets per anchor: positives add a prefix or reorder the question; negatives delete
    one or both numbers (the information a valid paraphrase must keep)."""
    rng = random.Random(seed)
    triplets = []
    for i in range(n_anchors):
        who, thing = NAMES[i % len(NAMES)], THINGS[i % len(THINGS)]
        a, b = rng.randint(2, 90), rng.randint(2, 9)
        anchor = f"{who} has {a} {thing} and gives away {b} of them. How many {thing} are left?"
        positives = [f"Question: {anchor}",
                     f"How many {thing} are left if {who} has {a} {thing} and gives away {b} of them?"]
        negatives = [f"{who} has {thing} and gives away some of them. How many {thing} are left?",
                     f"{who} has {a} {thing} and gives away some of them. How many {thing} are left?"]
        for positive, negative in zip(positives, negatives):
            triplets.append(Triplet(anchor, positive, negative, source="synthetic"))
    return triplets


@pytest.fixture(scope="session")
def triplets() -> list[Triplet]:
    return synthetic_triplets()
