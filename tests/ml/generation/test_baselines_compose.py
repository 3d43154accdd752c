"""Baselines (copy, EDA, instruct LLM) and compositions of two generators."""
from __future__ import annotations

import random

import pytest

from ml.generation import (
    ComposedGenerator,
    EdaGenerator,
    FillMaskGenerator,
    GenerationResources,
    InstructLLMGenerator,
    NotApplicable,
    PassiveGenerator,
    ReorderGenerator,
    SynonymGenerator,
    generate,
    is_default,
)
from ml.text.number_mentions import number_signature

from .conftest import MAYA, TRAIN, assert_same_quantities


def test_copy_returns_the_input(resources):
    candidates, refusals = generate(["copy"], MAYA, 0, resources)
    assert [c.text for c in candidates] == [MAYA] and refusals == {}


def test_eda_one_candidate_per_operation_and_numbers_unprotected(resources):
    candidates = EdaGenerator().generate(MAYA, random.Random(0), resources)
    assert [c.meta["operation"] for c in candidates] == ["sr", "ri", "rs", "rd"]
    assert [c.prompt for c in candidates] == ["replace", "fix", "shuffle", "fix"]
    assert candidates[0].meta["synonym_source"] == "embedding"
    changed = [c.text for seed in range(10) for c in EdaGenerator().generate(MAYA, random.Random(seed), resources)
               if number_signature(c.text) != number_signature(MAYA)]
    assert changed  # random deletion drops a quantity now and then, as EDA does


def test_instruct_llm_is_unavailable_unless_a_gguf_file_exists(tmp_path):
    llm = InstructLLMGenerator()
    assert llm.kind == "neural" and not is_default(llm.name)
    assert "no instruct LLM configured" in llm.unavailable_reason(GenerationResources())
    assert "does not exist" in llm.unavailable_reason(GenerationResources(llm_dir=str(tmp_path), llm_file="m.gguf"))
    (tmp_path / "m.gguf").write_bytes(b"GGUF")
    reason = llm.unavailable_reason(GenerationResources(llm_dir=str(tmp_path), llm_file="m.gguf"))
    assert reason is None or "llama-cpp-python is not installed" in reason


def test_composition_combines_prompts_and_keeps_steps(resources):
    composed = ComposedGenerator(ReorderGenerator(), SynonymGenerator())
    candidates = composed.generate(MAYA, random.Random(0), resources)
    assert composed.name == "reorder+synonym" and len(candidates) == 2
    for candidate in candidates:
        assert candidate.generator == "reorder+synonym" and candidate.prompt == "replace shuffle"
        assert [s["generator"] for s in candidate.meta["steps"]] == ["reorder", "synonym"]
        assert candidate.meta["synonym_source"] == "embedding"
        assert "purchased" in candidate.text or "marketplace" in candidate.text
        assert_same_quantities(MAYA, candidate.text)


def test_composition_refuses_when_a_step_does(resources, tiny_masked_lm):
    with pytest.raises(NotApplicable):
        ComposedGenerator(PassiveGenerator(), ReorderGenerator()).generate(
            "There are 5 birds. How many are left?", random.Random(0), resources)
    _, refusals = generate(["reorder+entity_substitution"], TRAIN, 0, resources)
    assert "no named entity" in refusals["reorder+entity_substitution"]
    with_fill = ComposedGenerator(ReorderGenerator(), FillMaskGenerator())
    assert with_fill.unavailable_reason(resources).startswith("fill_mask: no masked LM")
    assert with_fill.kind == "neural"
