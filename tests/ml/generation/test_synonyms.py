"""Synonym substitution: both sources, what is protected, parts of speech and inflection."""
from __future__ import annotations

import random

import pytest

from ml.generation import GenerationResources, GeneratorUnavailable, NotApplicable, SynonymGenerator, synonym_lookup
from ml.generation.words import lexicon_lemmas, replaceable_tokens

from .conftest import MAYA, PROBLEMS, assert_same_quantities

PROTECTED = {"Maya", "Tom", "How", "many", "12", "4", "$3.50", "km", "km/h", "hours", "miles"}


def _check_candidates(text, candidates, source):
    assert candidates
    for candidate in candidates:
        assert candidate.prompt == "replace" and candidate.meta["synonym_source"] == source
        assert_same_quantities(text, candidate.text)
        assert 1 <= len(candidate.meta["changes"]) <= 3
        for change in candidate.meta["changes"]:
            assert change["word"] not in PROTECTED
            assert change["replacement"].lower() != change["word"].lower()
            # Same part of speech: the new word is in the lexicon under one of the old word's.
            assert set(lexicon_lemmas(change["replacement"])) & set(lexicon_lemmas(change["word"]))


def test_embedding_fallback_keeps_quantities_names_and_pos(resources):
    for text in PROBLEMS:
        try:
            candidates = SynonymGenerator().generate(text, random.Random(0), resources)
        except NotApplicable:
            continue
        _check_candidates(text, candidates, "embedding")
    out = SynonymGenerator().generate(MAYA, random.Random(0), resources)[0].text
    assert out.startswith("Maya purchased 12 apples") and out.count("Maya") == 2 and "Tom" in out


def test_wordnet_source(wordnet_resources):
    for text in PROBLEMS:
        try:
            candidates = SynonymGenerator().generate(text, random.Random(0), wordnet_resources)
        except NotApplicable:
            continue
        _check_candidates(text, candidates, "wordnet")
    lookup = synonym_lookup(wordnet_resources)
    assert lookup.source == "wordnet"
    # Frequent lemmas of the first senses: "purchase" (34 tagged uses), not "bribe" (1).
    assert lookup("bought", "buy", "VERB")[0] == "purchase" and "bribe" not in lookup("bought", "buy", "VERB")
    assert "automobile" in lookup("car", "car", "NOUN")


def test_auto_falls_back_to_embedding_without_wordnet(spacy_model, tmp_path):
    empty = GenerationResources(spacy_model=spacy_model, synonym_source="auto", wordnet_dir=str(tmp_path))
    assert SynonymGenerator().unavailable_reason(empty) is None
    assert synonym_lookup(empty).source == "embedding"
    candidate = SynonymGenerator().generate(MAYA, random.Random(0), empty)[0]
    assert candidate.meta["synonym_source"] == "embedding"


def test_auto_uses_wordnet_when_installed(spacy_model, wordnet_resources):
    installed = GenerationResources(spacy_model=spacy_model, wordnet_dir=wordnet_resources.wordnet_dir)
    assert synonym_lookup(installed).source == "wordnet"
    assert SynonymGenerator().generate(MAYA, random.Random(0), installed)[0].meta["synonym_source"] == "wordnet"


def test_wordnet_required_but_missing_is_unavailable(spacy_model, tmp_path):
    resources = GenerationResources(spacy_model=spacy_model, synonym_source="wordnet", wordnet_dir=str(tmp_path))
    assert "WordNet is not installed" in SynonymGenerator().unavailable_reason(resources)
    with pytest.raises(GeneratorUnavailable):
        SynonymGenerator().generate(MAYA, random.Random(0), resources)


def test_protected_words_are_not_candidates(spacy_model):
    words = [t.text for t in replaceable_tokens(
        "Maya bought 12 apples at the market. How many apples are left in total? Find the speed in km/h.",
        spacy_model)]
    assert words == ["bought", "apples", "market", "apples", "speed"]


def test_inflection_follows_the_replaced_word(resources):
    text = "A big car quickly covers a distance of 120 miles. Find the price of the fuel."
    outputs = {c.text for seed in range(6) for c in SynonymGenerator().generate(text, random.Random(seed), resources)}
    assert any("huge car" in o or "vehicle" in o or "rapidly" in o for o in outputs)
    assert all("120 miles" in o for o in outputs)


def test_nothing_to_replace_is_not_applicable(resources):
    with pytest.raises(NotApplicable):
        SynonymGenerator().generate("Maya has 5. How many?", random.Random(0), resources)
