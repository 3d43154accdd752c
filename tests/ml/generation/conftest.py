"""Fixtures for the generator tests: typical problems, resources for each synonym source, WordNet
when installed, and a tiny randomly initialised masked LM saved once per session."""
from __future__ import annotations

import os
import shutil
from collections import Counter
from pathlib import Path

import pytest

from ml.generation import GenerationResources
from ml.generation.synonyms import wordnet_unavailable_reason
from ml.text.number_mentions import number_signature
from ml.text.units import unit_signature

REPO = Path(__file__).resolve().parents[3]

MAYA = ("Maya bought 12 apples for $3.50 at the market. She gave 4 apples to Tom. "
        "How many apples does Maya have now?")
TRAIN = "A train travels 300 km in 5 hours. What is its speed in km/h?"
PROBLEMS = (
    MAYA,
    TRAIN,
    "Maya had 5 apples. She ate 2 of them. How many apples does she have left?",
    "Lucy has an aquarium with 5 fish. She wants to buy 1 more fish. How many fish would Lucy have then?",
    "A big car quickly covers a distance of 120 miles in 2.5 hours. Find the price of the fuel if it costs $2 "
    "per mile.",
)


def assert_same_quantities(original: str, output: str) -> None:
    """The output states the same numbers (by value) and units as the original."""
    assert number_signature(output) == number_signature(original), (original, output)
    assert Counter(unit_signature(output)) == Counter(unit_signature(original)), (original, output)


@pytest.fixture(scope="session")
def resources(spacy_model) -> GenerationResources:
    """Resources with the embedding-neighbour synonyms (the offline fallback, always present)."""
    return GenerationResources(spacy_model=spacy_model, synonym_source="embedding")


def _wordnet_locations() -> list[str | None]:
    """Where WordNet may be: $PARALAB_WORDNET_DIR, the repository's var/nltk_data, NLTK's path (None)."""
    env = os.environ.get("PARALAB_WORDNET_DIR")
    return [*([env] if env else []), str(REPO / "var" / "nltk_data"), None]


@pytest.fixture(scope="session")
def wordnet_resources(spacy_model) -> GenerationResources:
    """Resources with WordNet; skipped when it is not installed (scripts/wordnet.sh), unless
    PARALAB_REQUIRE_WORDNET=1 says it must be, then the test fails."""
    found = [where for where in _wordnet_locations() if wordnet_unavailable_reason(where) is None]
    if not found:
        message = ("WordNet is not installed under $PARALAB_WORDNET_DIR, var/nltk_data or NLTK's data path "
                   "(run scripts/wordnet.sh)")
        if os.environ.get("PARALAB_REQUIRE_WORDNET") == "1":
            pytest.fail(message + " and PARALAB_REQUIRE_WORDNET=1")
        pytest.skip(message)
    return GenerationResources(spacy_model=spacy_model, synonym_source="wordnet", wordnet_dir=found[0])


@pytest.fixture(scope="session")
def tiny_masked_lm(tmp_path_factory) -> str:
    """A 1-layer BertForMaskedLM (hidden 32, random weights, seed 0) with the packaged MiniLM
    tokenizer, saved to disk: the real fill-mask code path, offline, in a second."""
    import torch
    from transformers import BertConfig, BertForMaskedLM

    from ml.similarity import DEFAULT_SENTENCE_ENCODER

    directory = tmp_path_factory.mktemp("tiny_masked_lm")
    for name in ("vocab.txt", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json"):
        shutil.copy(os.path.join(DEFAULT_SENTENCE_ENCODER, name), directory / name)
    config = BertConfig(vocab_size=30522, hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
                        intermediate_size=64, max_position_embeddings=128)
    torch.manual_seed(0)  # a fixture is an entry point: the same tiny model every run
    BertForMaskedLM(config).save_pretrained(directory)
    return str(directory)
