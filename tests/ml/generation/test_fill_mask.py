"""Fill-mask substitution: unavailable without a model; the real path with a tiny random BERT."""
from __future__ import annotations

import random

import pytest

from ml.generation import FillMaskGenerator, GenerationResources, GeneratorUnavailable
from ml.generation.words import lexicon_lemmas

from .conftest import MAYA, assert_same_quantities


def test_unavailable_without_a_model(resources):
    reason = FillMaskGenerator().unavailable_reason(resources)
    assert reason.startswith("no masked LM configured (set PARALAB_MASKED_LM") and "STEAD" in reason
    with pytest.raises(GeneratorUnavailable):
        FillMaskGenerator().generate(MAYA, random.Random(0), resources)
    missing = GenerationResources(masked_lm="/nonexistent/masked-lm")
    assert "does not exist" in FillMaskGenerator().unavailable_reason(missing)
    uncached = GenerationResources(masked_lm="someone/not-in-the-cache")
    assert "not in the local Hugging Face cache" in FillMaskGenerator().unavailable_reason(uncached)


def test_tiny_model_fills_nouns_and_adjectives_near_numbers(spacy_model, tiny_masked_lm):
    resources = GenerationResources(spacy_model=spacy_model, masked_lm=tiny_masked_lm)
    assert FillMaskGenerator().unavailable_reason(resources) is None
    text = ("There are 8 walnut trees currently in the park. Park workers will plant 3 more walnut trees today. "
            "How many walnut trees will the park have when the workers are finished?")
    for problem in (MAYA, text):
        candidates = FillMaskGenerator().generate(problem, random.Random(0), resources)
        assert candidates == FillMaskGenerator().generate(problem, random.Random(0), resources)
        for candidate in candidates:
            assert candidate.prompt == "replace" and candidate.meta["masked_lm"] == tiny_masked_lm
            assert_same_quantities(problem, candidate.text)
            for change in candidate.meta["changes"]:
                # Words next to a number ("12 apples", "the market" is 3 tokens from $3.50).
                assert change["word"] in ("apples", "market", "trees", "workers", "park")
                assert {"NOUN", "ADJ"} & set(lexicon_lemmas(change["replacement"]))
