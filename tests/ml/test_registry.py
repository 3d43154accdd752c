import random

import pytest

from ml.operators import (
    RESOURCE_NAMES,
    TEST_OPERATORS,
    TRAINING_OPERATORS,
    OperatorNotApplicable,
    OperatorResult,
    OperatorSpec,
    apply_operator,
    fit_tfidf,
)
from ml.operators.base import make_result

from .conftest import RecordingSimilarity

Q0 = "Alex travelled 100 km from New York at a constant speed of 20 kmph. How many hours did it take him in total?"


def test_registries_hold_the_paper_operators_with_their_labels():
    assert {f"f{i}" for i in range(1, 11)} <= set(TRAINING_OPERATORS)
    assert set(TEST_OPERATORS) == {"fa", "fb", "fc", "fd", "fe"}
    assert not set(TRAINING_OPERATORS) & set(TEST_OPERATORS)
    assert [n for n in ("f1", "f2", "f3", "f4") if TRAINING_OPERATORS[n].valid] == ["f1", "f2", "f3", "f4"]
    assert not any(TRAINING_OPERATORS[f"f{i}"].valid for i in range(5, 11))
    assert TEST_OPERATORS["fa"].valid and TEST_OPERATORS["fb"].valid
    assert not any(TEST_OPERATORS[n].valid for n in ("fc", "fd", "fe"))
    assert TRAINING_OPERATORS["passive"].overlaps == ("fa",)
    assert TRAINING_OPERATORS["word_replacement"].overlaps == ("fc",)
    assert all(spec.split == "train" for spec in TRAINING_OPERATORS.values())


def test_one_bag_of_resources_serves_every_operator(spacy_model):
    resources = {"spacy_model": spacy_model, "similarity": RecordingSimilarity(), "tfidf": fit_tfidf([Q0, "A car."]),
                 "vocabulary": ("tower", "sings"),
                 "backtranslator": lambda sentences: [s.replace("travelled", "drove") for s in sentences],
                 "generator": lambda texts: ["Alex drove 100 km."]}
    for name, spec in {**TRAINING_OPERATORS, **TEST_OPERATORS}.items():
        result = apply_operator(name, Q0, random.Random(0), **resources)
        assert result.operator == name and result.valid == spec.valid
        assert (result.text == Q0) == (name == "f2")
        # The spec itself is callable the same way.
        assert spec(Q0, random.Random(0), **resources).text == result.text


def test_operators_marked_deterministic_ignore_the_seed_and_stochastic_ones_use_it(spacy_model):
    resources = {"spacy_model": spacy_model, "similarity": RecordingSimilarity(),
                 "backtranslator": lambda sentences: [s.replace("travelled", "drove") for s in sentences]}
    deterministic = sorted(name for name, spec in TRAINING_OPERATORS.items() if not spec.stochastic)
    assert deterministic == ["f1", "f2", "f3", "f4", "f5", "f6"]
    for name in deterministic:
        outputs = {apply_operator(name, Q0, random.Random(seed), **resources).text for seed in range(6)}
        assert len(outputs) == 1, name  # extra draws of these would only repeat the first
    # The entity, number and unit swaps give other outputs under other seeds.
    for name in ("f7", "f8", "f10", "number_change"):
        outputs = {apply_operator(name, Q0, random.Random(seed), **resources).text for seed in range(6)}
        assert len(outputs) > 1, name


# One input per operator that lacks what the operator needs.
REFUSALS = {
    "f1": "A train covers 300 km.",                    # no backtranslation model
    "f2": "   ",                                       # nothing to return
    "f3": "How many apples are left?",                 # no number
    "f4": "He walked 5 kilometres in 2 hours.",        # no abbreviation
    "f5": "Hello!",                                    # no phrase
    "f6": "What is x?",                                # nothing would remain
    "f7": "How many apples are left if 3 are eaten?",  # no entity
    "f8": "How many apples are left?",                 # no number
    "f9": "What is 5 + 3?",                            # no structure to change
    "f10": "John ate 5 apples.",                       # no unit
    "passive": "How many apples are left?",
    "pp_permutation": "John bought 5 apples.",
    "given_that": "John bought 5 apples.",
    "number_change": "How many apples are left?",
    "word_replacement": "John bought 5 apples.",     # no vocabulary given
    "fa": "How many apples are left?",
    "fb": "John bought 5 apples.",                     # no generator yet
    "fc": "John bought 5 apples.",                     # no TF-IDF model
    "fd": "Hello",
    "fe": "John bought 5 apples.",                     # no generator yet
}


@pytest.mark.parametrize("name", sorted(REFUSALS))
def test_every_operator_refuses_when_it_cannot_apply(name, spacy_model):
    assert set(REFUSALS) == set(TRAINING_OPERATORS) | set(TEST_OPERATORS)
    with pytest.raises(OperatorNotApplicable) as raised:
        apply_operator(name, REFUSALS[name], random.Random(0), spacy_model=spacy_model,
                       similarity=RecordingSimilarity())
    assert raised.value.reason


def test_an_output_equal_to_the_input_is_refused():
    with pytest.raises(OperatorNotApplicable, match="equal the input"):
        make_result("John ate 5 apples.", "John ate 5 apples. ", "x", False)
    lazy = OperatorSpec("lazy", lambda text, rng: OperatorResult(text, "lazy", False), False, "train", "returns its input")
    with pytest.raises(OperatorNotApplicable, match="equal the input"):
        lazy("John ate 5 apples.", random.Random(0))


def test_apply_operator_checks_names_resources_and_rng():
    with pytest.raises(KeyError, match="unknown operator"):
        apply_operator("f11", Q0, random.Random(0))
    with pytest.raises(TypeError, match="unknown operator resources"):
        apply_operator("f3", Q0, random.Random(0), simlarity=None)
    with pytest.raises(TypeError, match="random.Random"):
        apply_operator("f3", Q0, 0)
    assert "similarity" in RESOURCE_NAMES and TRAINING_OPERATORS["f5"].accepts >= {"similarity", "spacy_model"}
