"""The question asked the other way: only the last sentence changes, only in its simple forms."""
from __future__ import annotations

import random

import pytest

from ml.generation import GenerationResources, generate, get_generator
from ml.generation.base import NotApplicable
from ml.generation.question_form import move_condition, rewrite_question

SPACY = GenerationResources().spacy_model


@pytest.mark.parametrize(("text", "expected"), [
    ("A train covers 300 km in 5 hours. What is its speed?", "A train covers 300 km in 5 hours. Find its speed."),
    ("Tom paid $5 for 2 pens. What was the price of one pen ?", "Tom paid $5 for 2 pens. Find the price of one pen."),
    ("A banana costs Rs.3. Find the total cost of 4 dozen bananas.",
     "A banana costs Rs.3. What is the total cost of 4 dozen bananas?"),
    # the verb agrees with the asked noun
    ("One number exceeds another by 5. Their sum is 25. Find the two numbers.",
     "One number exceeds another by 5. Their sum is 25. What are the two numbers?"),
    # after a leading condition the main clause stays lower-case
    ("If 12 pens cost $ 24, what is the cost of 3 pens?", "If 12 pens cost $ 24, find the cost of 3 pens."),
    ("If the sum is 12, calculate the larger number.", "If the sum is 12, what is the larger number?"),
    # a leading connective stays; a sentence end after a one-letter name and a trailing note are found
    ("A costs 4000 more than B. Then, calculate the cost of B?", "A costs 4000 more than B. Then, what is the cost of B?"),
    ("B took 10 minutes less than A. Find the distance between P and Q.",
     "B took 10 minutes less than A. What is the distance between P and Q?"),
    ("If a tank holds 4,120 cubic centimeters, what is its volume in cubic meters? (1 centimeter = 0.01 meter)",
     "If a tank holds 4,120 cubic centimeters, find its volume in cubic meters. (1 centimeter = 0.01 meter)"),
])
def test_the_question_is_asked_the_other_way_and_nothing_else_changes(text, expected):
    assert rewrite_question(text, spacy_model=SPACY) == expected


@pytest.mark.parametrize("text", [
    "A train covers 300 km in 5 hours. How fast is it?",          # not one of the two forms
    "A car is late. What is the normal speed of the car is?",     # a verb ends the asked phrase
    "What is the speed, and how long does it take?",              # a second question inside
    "A train covers 300 km in 5 hours and what is its speed.",    # the form must start the sentence
])
def test_other_questions_are_refused_not_mangled(text):
    assert rewrite_question(text, spacy_model=SPACY) is None
    with pytest.raises(NotApplicable):
        get_generator("question_form").generate(text, random.Random(1), GenerationResources())


def test_it_runs_by_name_and_in_compositions_and_keeps_every_number():
    text = "A shop sold 45 pens on Monday and 30 pens on Tuesday. What is the total number of pens sold?"
    candidates, refusals = generate(["question_form", "passive+question_form"], text, 3407, GenerationResources())
    assert [c.text for c in candidates if c.generator == "question_form"] == [
        "A shop sold 45 pens on Monday and 30 pens on Tuesday. Find the total number of pens sold."]
    for candidate in candidates:
        assert "45" in candidate.text and "30" in candidate.text
        assert candidate.text.endswith("Find the total number of pens sold.")
    assert "question_form" not in refusals


@pytest.mark.parametrize(("text", "expected"), [
    ("Tom has 5 pens. If he buys 3 more, how many pens does he have?",
     "Tom has 5 pens. How many pens does he have if he buys 3 more?"),
    ("If 240 children stand in columns of 12, then how many columns are formed?",
     "How many columns are formed if 240 children stand in columns of 12?"),
    # a comma inside the condition stays in it
    ("If 5, 6 and 7 are the sides, what is the area ?", "What is the area if 5, 6 and 7 are the sides?"),
])
def test_the_condition_moves_after_the_question(text, expected):
    assert move_condition(text, spacy_model=SPACY) == expected


@pytest.mark.parametrize("text", [
    "Tom has 5 pens. How many pens does he have if he buys 3 more?",   # already after
    "If he buys 3 more pens, he has 8.",                                  # no question
    # put first, "its" and "she" would point to what only the condition introduces
    "If a rectangular box has two faces of area 25, what is its volume?",
    "If Jill has 5 cups, how many bottles will she need?",
    # two conditions would stack
    "If the coin is tossed twice, what is the chance of heads if the coin is fair?",
])
def test_a_question_without_a_leading_condition_is_refused(text):
    assert move_condition(text, spacy_model=SPACY) is None
    with pytest.raises(NotApplicable):
        get_generator("condition_moved").generate(text, random.Random(1), GenerationResources())


def test_condition_then_question_form_compose():
    text = "A tank holds 40 litres. If 15 litres leak out, what is the amount left?"
    candidates, _ = generate(["condition_moved+question_form"], text, 3407, GenerationResources())
    assert [c.text for c in candidates] == ["A tank holds 40 litres. Find the amount left if 15 litres leak out."]
