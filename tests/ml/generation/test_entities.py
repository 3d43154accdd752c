"""Consistent, gender-aware named-entity substitution."""
from __future__ import annotations

import random
import re

import pytest

from ml.generation import EntitySubstitutionGenerator, NotApplicable, entity_groups, person_genders
from ml.generation.names import FEMALE_NAMES, MALE_NAMES, person_mentions

from .conftest import MAYA, TRAIN, assert_same_quantities


def test_every_mention_gets_the_same_new_name(resources):
    for seed in range(4):
        for candidate in EntitySubstitutionGenerator().generate(MAYA, random.Random(seed), resources):
            mapping = candidate.meta["mapping"]
            assert set(mapping) == {"Maya", "Tom"} and mapping["Maya"] != mapping["Tom"]
            assert candidate.text == MAYA.replace("Maya", mapping["Maya"]).replace("Tom", mapping["Tom"])
            assert mapping["Maya"] in FEMALE_NAMES and mapping["Tom"] in MALE_NAMES  # "She" stays right
            assert candidate.prompt == "replace"
            assert_same_quantities(MAYA, candidate.text)


def test_missed_mentions_and_possessives_follow(resources):
    text = "Maya had 5 apples. She gave Maya's sister 2. How many does Maya have?"
    assert [len(spans) for _, _, spans in entity_groups(text, resources.spacy_model)] == [3]
    new = EntitySubstitutionGenerator().generate(text, random.Random(0), resources)[0]
    name = new.meta["mapping"]["Maya"]
    assert new.text == f"{name} had 5 apples. She gave {name}'s sister 2. How many does {name} have?"


def test_gender_from_the_pronouns_beats_the_name(resources):
    text = "Beverly had 10 dimes in his bank. His sister Maria borrowed 2 of his dimes. How many are left?"
    assert person_genders(text, resources.spacy_model) == {"Beverly": "male", "Maria": "female"}
    new = EntitySubstitutionGenerator().generate(text, random.Random(0), resources)[0]
    assert new.meta["mapping"]["Beverly"] in MALE_NAMES and new.meta["mapping"]["Maria"] in FEMALE_NAMES
    assert new.text.count(" his ") == 2  # pronouns untouched


def test_titles_and_surnames_stay_consistent(resources):
    text = "Mr. Brown drove 980 miles from Boston. Brown took 14 hours. What was his average speed?"
    new = EntitySubstitutionGenerator().generate(text, random.Random(0), resources)[0]
    mapping = new.meta["mapping"]
    assert re.fullmatch(r"Mr\. \w+", mapping["Mr. Brown"]) and mapping["Brown"] == mapping["Mr. Brown"][4:]
    assert "Brown" not in new.text and "Boston" not in new.text
    assert_same_quantities(text, new.text)


def test_no_entity_is_not_applicable(resources):
    with pytest.raises(NotApplicable):
        EntitySubstitutionGenerator().generate(TRAIN, random.Random(0), resources)


def test_two_people_read_as_one_entity_stay_two(resources):
    # the small tagger reads "Jack and Jill" as one PERSON; renaming it whole made two people one
    text = ("Jack and Jill went up the hill. Jack is stronger, but Jill can only manage one. "
            "How many trips will Jill make?")
    assert [m.text for m in person_mentions(text, resources.spacy_model)] == ["Jack", "Jill", "Jack", "Jill", "Jill"]
    for candidate in EntitySubstitutionGenerator().generate(text, random.Random(0), resources):
        first, rest = candidate.text.split(" went up", 1)
        assert " and " in first, candidate.text
        names = first.split(" and ")
        assert rest.count(names[0]) == 1 and rest.count(names[1]) == 2, candidate.text


def test_a_name_also_written_lower_case_and_a_common_place_word_are_left_alone(resources):
    # blind labels on SVAMP: "Amit received 3 emails … did jack receive" and "from the arctic" ->
    # "from the Amazon" were both called a changed problem
    jack = ("Jack received 3 emails in the afternoon and some more in the evening. If he received a total "
            "of 10 emails in the day How many emails did jack receive in the evening?")
    with pytest.raises(NotApplicable):
        EntitySubstitutionGenerator().generate(jack, random.Random(0), resources)
    birds = ("59 bird families flew away and 24 new bird families came to live near the mountain from the arctic. "
             "How many bird families were left?")
    with pytest.raises(NotApplicable):
        EntitySubstitutionGenerator().generate(birds, random.Random(0), resources)
    maya = "Maya flew from Paris to see Tom. Maya had 5 pens. How many pens does Maya have?"
    out = EntitySubstitutionGenerator().generate(maya, random.Random(0), resources)[0].text
    assert "Maya" not in out


def test_a_name_inside_an_entity_that_stays_is_not_renamed_elsewhere(resources):
    # blind labels (GSM8K test): the tagger read "Together Lily" as one person, which stayed, and
    # "Lily" alone was renamed at the later mentions: "Together Lily, … Tanya found 7 more"
    text = ("Together Lily, David, and Bodhi collected 43 insects. Lily found 7 more than David. David found "
            "half of what Bodhi found. How many insects did Lily find?")
    candidates = EntitySubstitutionGenerator().generate(text, random.Random(0), resources)
    assert candidates
    for candidate in candidates:
        assert candidate.text.count("Lily") == 3, candidate.text
        assert "David" not in candidate.text, candidate.text
