"""Fixtures for the ml tests: offline model loading, fake and tiny scorers built once per session."""
from __future__ import annotations

import os

# Nothing may reach a model hub: set before transformers / huggingface_hub are imported.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import pytest  # noqa: E402

from ml.text.nlp import DEFAULT_SPACY_MODEL, load_spacy  # noqa: E402


@pytest.fixture(scope="session")
def spacy_model() -> str:
    """The offline spaCy pipeline, loaded once for the session."""
    load_spacy(DEFAULT_SPACY_MODEL)
    return DEFAULT_SPACY_MODEL


class RecordingSimilarity:
    """A fake ``similarity(anchor, candidates)``: the share of the anchor's words a candidate
    keeps, minus a penalty for each word in ``important`` it lost. Records every call."""

    def __init__(self, important: tuple[str, ...] = ()) -> None:
        self.important = important
        self.calls: list[tuple[str, list[str]]] = []

    def __call__(self, anchor: str, candidates: list[str]) -> list[float]:
        self.calls.append((anchor, list(candidates)))
        anchor_words = anchor.split()
        scores = []
        for candidate in candidates:
            words = candidate.split()
            score = len(words) / len(anchor_words)
            score -= sum(1.0 for w in self.important if w in anchor and w not in candidate)
            scores.append(score)
        return scores


@pytest.fixture
def recording_similarity() -> RecordingSimilarity:
    return RecordingSimilarity()


@pytest.fixture(scope="session")
def tiny_marian_dir(tmp_path_factory) -> str:
    """A tiny, randomly initialised MarianMT model with a SentencePiece tokenizer, saved to disk,
    so the real transformers translation path runs offline."""
    import json
    import shutil
    import warnings

    import sentencepiece as spm
    import torch
    from transformers import MarianConfig, MarianMTModel, MarianTokenizer

    directory = tmp_path_factory.mktemp("tiny_marian")
    corpus = directory / "corpus.txt"
    corpus.write_text("\n".join([
        "A train covers 300 km in 5 hours.", "Ein Zug fährt 300 km in 5 Stunden.",
        "John bought 5 apples.", "What is its speed?", "Wie schnell ist er?",
    ] * 20))
    spm.SentencePieceTrainer.train(input=str(corpus), model_prefix=str(directory / "sp"), vocab_size=60,
                                   model_type="unigram", character_coverage=1.0, minloglevel=2,
                                   hard_vocab_limit=False)
    shutil.copy(directory / "sp.model", directory / "source.spm")
    shutil.copy(directory / "sp.model", directory / "target.spm")
    processor = spm.SentencePieceProcessor(model_file=str(directory / "sp.model"))
    vocab = {processor.id_to_piece(i): i for i in range(processor.get_piece_size())}
    vocab.setdefault("<pad>", len(vocab))
    (directory / "vocab.json").write_text(json.dumps(vocab))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "Recommended: pip install sacremoses"
        tokenizer = MarianTokenizer(str(directory / "source.spm"), str(directory / "target.spm"),
                                    str(directory / "vocab.json"))
    config = MarianConfig(
        vocab_size=len(vocab), d_model=16, encoder_layers=1, decoder_layers=1, encoder_attention_heads=2,
        decoder_attention_heads=2, encoder_ffn_dim=32, decoder_ffn_dim=32, max_position_embeddings=64,
        pad_token_id=tokenizer.pad_token_id, eos_token_id=tokenizer.eos_token_id,
        decoder_start_token_id=tokenizer.pad_token_id,
    )
    torch.manual_seed(0)
    MarianMTModel(config).save_pretrained(directory)
    tokenizer.save_pretrained(directory)
    return str(directory)
