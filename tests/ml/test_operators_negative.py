"""f5-f10 and the number-change negative."""
import random
from collections import Counter

import pytest

from ml.text.nlp import named_entities
from ml.text.number_mentions import find_all_numbers, number_signature
from ml.operators import (
    F8_REPLACEMENTS,
    EntityReplacementConfig,
    FluentNegativeConfig,
    NumberReplacementConfig,
    OperatorNotApplicable,
    PhraseDeletionConfig,
    f5_important_phrase_deletion,
    f6_last_sentence_deletion,
    f7_entity_replacement,
    f8_number_replacement,
    f9_general_paraphraser,
    f10_unit_replacement,
    fluent_hard_negative,
    number_change,
    vocabulary_of,
    word_replacement,
)
from ml.operators.phrase_deletion import phrase_deletion_candidates
from ml.operators.replacement_lists import ENTITY_REPLACEMENTS
from ml.text.units import UNITS, find_units

from .conftest import RecordingSimilarity

Q0 = "Alex travelled 100 km from New York at a constant speed of 20 kmph. How many hours did it take him in total?"
SEEDS = range(60)


# f5 ------------------------------------------------------------------------------------------

def test_f5_deletes_the_phrase_whose_removal_lowers_similarity_most(spacy_model):
    # The fake encoder knows the answer: losing "constant speed" costs most.
    similarity = RecordingSimilarity(important=("constant speed",))
    result = f5_important_phrase_deletion(Q0, random.Random(0), similarity=similarity, spacy_model=spacy_model)
    assert "constant speed" not in result.text
    assert not result.valid and result.operator == "f5"
    # Among the deletions that lose "constant speed", the longest remaining text scores highest
    # under the fake, so the argmin is the longest phrase containing it.
    candidates, _ = phrase_deletion_candidates(Q0, spacy_model=spacy_model)
    scores = similarity(Q0, [c[2] for c in candidates])
    assert result.text == candidates[scores.index(min(scores))][2]
    assert result.meta["phrase"] == "at a constant speed of 20 kmph"
    assert result.text == "Alex travelled 100 km from New York. How many hours did it take him in total?"


def test_f5_scores_all_candidates_in_one_batch(spacy_model):
    similarity = RecordingSimilarity()
    f5_important_phrase_deletion(Q0, random.Random(0), similarity=similarity, spacy_model=spacy_model)
    assert len(similarity.calls) == 1
    anchor, candidates = similarity.calls[0]
    assert anchor == Q0 and len(candidates) == len(set(candidates)) > 5
    assert Q0 not in candidates


def test_f5_with_a_known_answer(spacy_model):
    def similarity(anchor, candidates):
        return [0.2 if "hours" not in c else 0.9 for c in candidates]

    result = f5_important_phrase_deletion("It takes 5 hours in total.", random.Random(0), similarity=similarity,
                                          spacy_model=spacy_model)
    assert result.text == "It takes in total." and result.meta["phrase"] == "5 hours"


def test_f5_respects_the_phrase_length_limit(spacy_model):
    config = PhraseDeletionConfig(max_tokens=2)
    candidates, _ = phrase_deletion_candidates(Q0, config=config, spacy_model=spacy_model)
    assert candidates and all(len(phrase.split()) <= 2 for _, phrase, _ in candidates)


def test_f5_refuses_without_phrases(spacy_model):
    with pytest.raises(OperatorNotApplicable, match="no phrase"):
        f5_important_phrase_deletion("Hello!", random.Random(0), similarity=RecordingSimilarity(),
                                     spacy_model=spacy_model)


def test_phrase_deletion_config_is_validated():
    with pytest.raises(ValueError):
        PhraseDeletionConfig(max_fraction=0)


# f6 ------------------------------------------------------------------------------------------

def test_f6_deletes_the_last_sentence(spacy_model):
    result = f6_last_sentence_deletion(Q0, random.Random(0), spacy_model=spacy_model)
    assert result.text == "Alex travelled 100 km from New York at a constant speed of 20 kmph."
    assert result.meta["mode"] == "sentence" and not result.valid


def test_f6_deletes_the_last_three_tokens_of_a_single_sentence(spacy_model):
    result = f6_last_sentence_deletion("What is the value of k for every x?", random.Random(0), spacy_model=spacy_model)
    assert result.text == "What is the value of k"
    assert result.meta == {"deleted": "for every x?", "mode": "tokens"}


def test_f6_refuses_when_nothing_would_remain(spacy_model):
    with pytest.raises(OperatorNotApplicable):
        f6_last_sentence_deletion("What is x?", random.Random(0), spacy_model=spacy_model)


# f7 ------------------------------------------------------------------------------------------

F7_TEXT = "John and Mary flew from London to Paris with Peter. How far did they fly?"


def test_f7_changes_between_one_and_three_entities(spacy_model):
    entities = named_entities(F7_TEXT, model=spacy_model)
    assert len(entities) == 5
    counts = Counter()
    actions = Counter()
    for seed in SEEDS:
        result = f7_entity_replacement(F7_TEXT, random.Random(seed), spacy_model=spacy_model)
        changes = result.meta["changes"]
        assert 1 <= len(changes) == result.meta["w"] <= 3
        counts[len(changes)] += 1
        for change in changes:
            actions[change["action"]] += 1
            assert result.text.count(change["entity"]) == F7_TEXT.count(change["entity"]) - 1 or change["entity"] in change["replacement"]
            if change["action"] == "replace":
                assert change["replacement"] in ENTITY_REPLACEMENTS[change["label"]]
                assert change["replacement"] != change["entity"]
                assert change["replacement"] in result.text
    assert set(counts) == {1, 2, 3} and set(actions) == {"replace", "delete"}


def test_f7_with_few_entities_changes_at_most_k(spacy_model):
    for seed in SEEDS:
        result = f7_entity_replacement("Alex drove from Boston.", random.Random(seed), spacy_model=spacy_model)
        assert 1 <= len(result.meta["changes"]) <= 2 and result.meta["k"] == 2


def test_f7_replace_only_and_delete_only(spacy_model):
    replace = f7_entity_replacement(Q0, random.Random(1), config=EntityReplacementConfig(delete_probability=0.0),
                                    spacy_model=spacy_model)
    assert all(c["action"] == "replace" for c in replace.meta["changes"])
    delete = f7_entity_replacement(Q0, random.Random(1), config=EntityReplacementConfig(delete_probability=1.0),
                                   spacy_model=spacy_model)
    assert all(c["action"] == "delete" and c["entity"] not in delete.text for c in delete.meta["changes"])


def test_f7_refuses_without_entities(spacy_model):
    with pytest.raises(OperatorNotApplicable, match="no named entity"):
        f7_entity_replacement("How many apples are left if 3 are eaten?", random.Random(0), spacy_model=spacy_model)


# f8 ------------------------------------------------------------------------------------------

F8_TEXT = "John bought 5 apples and 12 pears for 30 dollars, then ate three apples in 2.5 hours."


def test_f8_replaces_at_most_two_numbers_with_the_listed_strings():
    before = Counter(n.value for n in find_all_numbers(F8_TEXT))
    used = Counter()
    for seed in range(200):
        result = f8_number_replacement(F8_TEXT, random.Random(seed))
        s = result.meta["string"]
        assert s in F8_REPLACEMENTS
        assert 1 <= len(result.meta["replaced"]) <= 2
        assert all(r["replacement"] == s for r in result.meta["replaced"])
        after = Counter(n.value for n in find_all_numbers(result.text))
        lost = before - after
        assert after <= before and 1 <= sum(lost.values()) <= 2
        if s:
            assert result.text.count(s) >= len(result.meta["replaced"])
        used[s] += 1
    assert set(used) == set(F8_REPLACEMENTS)


def test_f8_keeps_grammar_reasonable():
    config = NumberReplacementConfig(replacements=("some",))
    assert f8_number_replacement("John ate 5 apples.", random.Random(0), config=config).text == "John ate some apples."
    empty = NumberReplacementConfig(replacements=("",))
    assert f8_number_replacement("John ate 5 apples.", random.Random(0), config=empty).text == "John ate apples."
    assert f8_number_replacement("Three birds fly.", random.Random(0), config=config).text == "Some birds fly."
    assert f8_number_replacement("It costs $20.", random.Random(0), config=config).text == "It costs some dollars."
    assert f8_number_replacement("A 750m bridge.", random.Random(0), config=config).text == "Some m bridge."


def test_f8_refuses_without_numbers():
    with pytest.raises(OperatorNotApplicable, match="no number"):
        f8_number_replacement("How many apples are left?", random.Random(0))


def test_number_change_writes_a_different_value_in_the_same_form():
    for seed in SEEDS:
        result = number_change("John ate 5 apples and 2.50 kg of rice.", random.Random(seed))
        assert number_signature(result.text) != number_signature("John ate 5 apples and 2.50 kg of rice.")
        assert len(find_all_numbers(result.text)) == 2
        if result.meta["number"] == "2.50":
            assert len(result.meta["replacement"].split(".")[1]) == 2
    with pytest.raises(OperatorNotApplicable):
        number_change("How many apples?", random.Random(0))


# f10 -----------------------------------------------------------------------------------------

F10_TEXT = "A car at 20 kmph covers 750m in 2 hours with 5 kg of load, paying $4 for fuel."


def test_f10_stays_within_the_unit_category():
    before = Counter(m.category for m in find_units(F10_TEXT))
    for seed in range(200):
        result = f10_unit_replacement(F10_TEXT, random.Random(seed))
        assert 1 <= len(result.meta["changes"]) <= 2
        for change in result.meta["changes"]:
            assert UNITS[change["replacement_key"]].category == UNITS[change["unit_key"]].category == change["category"]
            assert change["replacement_key"] != change["unit_key"]
        # Read back from the text: the same categories, not the same units.
        after = find_units(result.text)
        assert Counter(m.category for m in after) == before
        assert [m.unit_key for m in after] != [m.unit_key for m in find_units(F10_TEXT)]
        assert number_signature(result.text) == number_signature(F10_TEXT)


def test_f10_replaces_a_question_unit():
    outputs = {f10_unit_replacement("How many hours did it take?", random.Random(s)).text for s in range(30)}
    assert "How many minutes did it take?" in outputs and len(outputs) > 3


def test_f10_refuses_without_units():
    with pytest.raises(OperatorNotApplicable, match="no unit"):
        f10_unit_replacement("John ate 5 apples.", random.Random(0))
    with pytest.raises(OperatorNotApplicable, match="no unit attached to a quantity"):
        f10_unit_replacement("On the first day he rested.", random.Random(0))


# f9 ------------------------------------------------------------------------------------------

def test_f9_refuses_clearly_without_a_model_when_the_fallback_is_off():
    with pytest.raises(OperatorNotApplicable, match="no general-domain paraphraser configured"):
        f9_general_paraphraser(Q0, random.Random(0), offline_fallback=False)


def test_f9_uses_a_configured_paraphraser():
    result = f9_general_paraphraser(Q0, random.Random(0), paraphraser=lambda texts: ["Alex went to New York."])
    assert result.text == "Alex went to New York." and not result.valid


def test_f9_offline_default_is_a_structural_change_plus_one_destructive_edit(spacy_model):
    seen = Counter()
    for seed in range(30):
        result = f9_general_paraphraser(Q0, random.Random(seed), spacy_model=spacy_model)
        meta = result.meta
        assert not result.valid and meta["backend"] == "offline-composition"
        assert meta["positive"] in ("passive", "pp_permutation", "given_that")
        assert meta["negative"] in ("f7", "f8", "f10", "number_change")  # f5 only with a similarity
        assert "" not in [r.get("replacement") for r in meta["negative_meta"].get("replaced", [])]
        seen[meta["positive"]] += 1
        seen[meta["negative"]] += 1
    assert {"pp_permutation", "given_that", "f7", "f8", "f10", "number_change"} <= set(seen)


def test_fluent_hard_negative_can_use_f5(spacy_model):
    config = FluentNegativeConfig(negatives=("f5",))
    result = fluent_hard_negative(Q0, random.Random(0), config=config, similarity=RecordingSimilarity(),
                                  spacy_model=spacy_model)
    assert result.meta["negative"] == "f5"
    with pytest.raises(OperatorNotApplicable, match="no information-destroying edit"):
        fluent_hard_negative(Q0, random.Random(0), config=config, spacy_model=spacy_model)


def test_fluent_hard_negative_refuses_without_structure(spacy_model):
    with pytest.raises(OperatorNotApplicable, match="no structural change"):
        fluent_hard_negative("What is 5 + 3?", random.Random(0), spacy_model=spacy_model)
    with pytest.raises(ValueError):
        FluentNegativeConfig(positives=("f2",))


def test_word_replacement_swaps_one_to_three_content_words_for_vocabulary_words(spacy_model):
    text = "Alex travelled 100 km from Boston at a constant speed. How many hours did the long trip take?"
    vocabulary = ("tower", "violin", "sings", "quietly")
    counts = Counter()
    for seed in range(30):
        result = word_replacement(text, random.Random(seed), vocabulary=vocabulary, spacy_model=spacy_model)
        assert not result.valid and result.operator == "word_replacement"
        assert 1 <= len(result.meta["changes"]) <= 3
        assert "100" in result.text  # numbers are never touched
        for change in result.meta["changes"]:
            assert change["pos"] in {"NOUN", "PROPN", "VERB", "ADJ", "ADV"}
            assert change["replacement"].lower() in vocabulary
            assert change["replacement"].lower() != change["word"].lower()
        counts[len(result.meta["changes"])] += 1
    assert set(counts) == {1, 2, 3}


def test_word_replacement_refuses_without_vocabulary_or_content_words(spacy_model):
    with pytest.raises(OperatorNotApplicable, match="vocabulary"):
        word_replacement("John bought 5 apples.", random.Random(0), spacy_model=spacy_model)
    with pytest.raises(OperatorNotApplicable, match="content word"):
        word_replacement("It is 5 and 3.", random.Random(0), vocabulary=("tower",), spacy_model=spacy_model)
    with pytest.raises(OperatorNotApplicable, match="no other word"):
        word_replacement("Apples.", random.Random(0), vocabulary=("apples",), spacy_model=spacy_model)


def test_vocabulary_of_keeps_alphabetic_words_once():
    assert vocabulary_of(["A train covers 300 km.", "The TRAIN stops, at 5pm."]) == ("covers", "stops", "the", "train")
