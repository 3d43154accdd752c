"""Preposition permutation and passive voice as generators over the ParaQD operators."""
from __future__ import annotations

import random

import pytest

from ml.generation import NotApplicable, PassiveGenerator, PrepositionPermutationGenerator

from .conftest import MAYA, TRAIN, assert_same_quantities


def test_pp_permutation_gives_up_to_two_distinct_moves(resources):
    candidates = PrepositionPermutationGenerator().generate(MAYA, random.Random(0), resources)
    assert {c.text.split(",")[0] for c in candidates} == {"At the market", "For $3.50"}
    for candidate in candidates:
        assert candidate.prompt == "shuffle"
        assert_same_quantities(MAYA, candidate.text)
    only = PrepositionPermutationGenerator().generate(TRAIN, random.Random(0), resources)
    assert [c.text for c in only] == ["In 5 hours, a train travels 300 km. What is its speed in km/h?"]


def test_passive_all_sentences_and_one(resources):
    # "She gave 4 apples to Tom" would take a pronoun agent ("… by her"): left active
    candidates = PassiveGenerator().generate(MAYA, random.Random(0), resources)
    assert [c.text for c in candidates] == [
        "12 apples were bought by Maya for $3.50 at the market. She gave 4 apples to Tom. "
        "How many apples does Maya have now?"]
    two = "Maya bought 12 apples at the market. Tom ate 4 apples. How many apples are left?"
    candidates = PassiveGenerator().generate(two, random.Random(0), resources)
    assert candidates[0].text.startswith("12 apples were bought by Maya at the market. 4 apples were eaten by Tom.")
    assert len(candidates) == 2 and candidates[1].meta["sentences"] in ([0], [1])
    for candidate in candidates:
        assert candidate.prompt == "passive"
        assert_same_quantities(two, candidate.text)


@pytest.mark.parametrize("generator", [PassiveGenerator(), PrepositionPermutationGenerator()])
def test_refuses_without_a_clause_to_rewrite(generator, resources):
    with pytest.raises(NotApplicable):
        generator.generate("There are 5 birds. How many are left?", random.Random(0), resources)
