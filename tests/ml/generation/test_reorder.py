"""Problem reordering: both orders, fillers, and pronouns resolved when the question moves first."""
from __future__ import annotations

import random

import pytest

from ml.generation import NotApplicable, ReorderGenerator, resolve_question_pronouns

from .conftest import MAYA, TRAIN, assert_same_quantities


def test_two_candidates_facts_first_and_question_first(resources):
    candidates = ReorderGenerator().generate(MAYA, random.Random(1), resources)
    assert [c.meta["style"] for c in candidates] == ["facts_first", "question_first"]
    assert candidates[1].text == ("How many apples does Maya have now, given that Maya bought 12 apples for $3.50 at "
                                  "the market and that she gave 4 apples to Tom?")
    for candidate in candidates:
        assert candidate.prompt == "shuffle"
        assert_same_quantities(MAYA, candidate.text)


def test_both_fillers_occur_over_seeds(resources):
    firsts = {ReorderGenerator().generate(MAYA, random.Random(seed), resources)[0].text for seed in range(8)}
    assert firsts == {
        "Given that Maya bought 12 apples for $3.50 at the market and that she gave 4 apples to Tom, how many "
        "apples does Maya have now?",
        "If Maya bought 12 apples for $3.50 at the market and she gave 4 apples to Tom, then how many apples does "
        "Maya have now?",
    }


def test_moved_question_names_the_person_not_the_pronoun(resources):
    text = "Maya had 5 apples. She ate 2 of them. How many apples does she have left?"
    question_first = ReorderGenerator().generate(text, random.Random(0), resources)[1]
    assert question_first.text == ("How many apples does Maya have left, given that Maya had 5 apples and that she "
                                   "ate 2 of them?")
    assert question_first.meta["resolved"] == [{"pronoun": "she", "replacement": "Maya"}]


def test_pronoun_resolution_respects_gender_possessives_and_things(spacy_model):
    resolved, _ = resolve_question_pronouns(
        "Tom has 3 sisters. Maya has 2 brothers. How many siblings does she have?", spacy_model)
    assert resolved.endswith("How many siblings does Maya have?")
    resolved, _ = resolve_question_pronouns(
        "Maya has 5 pens. Tom has 3 pens. How many pens are in her bag?", spacy_model)
    assert resolved.endswith("How many pens are in Maya's bag?")
    resolved, changes = resolve_question_pronouns(TRAIN, spacy_model)
    assert resolved.endswith("What is the train's speed in km/h?") and changes[0]["pronoun"] == "its"
    # A name in the question itself already resolves its pronoun.
    text = "Tom has 3 pens. How many pens does Maya have if she buys 2?"
    assert resolve_question_pronouns(text, spacy_model) == (text, [])


def test_pronoun_gender_comes_from_the_text(spacy_model):
    text = "Beverly had 10 dimes in his bank. Maria gave 2 dimes. How many dimes does he have now?"
    assert resolve_question_pronouns(text, spacy_model)[0].endswith("How many dimes does Beverly have now?")


def test_single_sentence_is_not_applicable(resources):
    with pytest.raises(NotApplicable):
        ReorderGenerator().generate("How many apples does Maya have if she buys 12 and eats 4?",
                                    random.Random(0), resources)
    with pytest.raises(NotApplicable):
        ReorderGenerator().generate("Maya bought 12 apples.", random.Random(0), resources)
