"""A "How many/much …?" question set as a task about the number or amount: what is rewritten, what is refused."""
from __future__ import annotations

import random

import pytest

from ml.generation import GenerationResources, generate, get_generator
from ml.generation.base import NotApplicable
from ml.generation.question_count import count_as_task

from .conftest import assert_same_quantities

SPACY = GenerationResources().spacy_model


@pytest.mark.parametrize(("text", "expected"), [
    # the inverted auxiliary goes back after the subject, the verb agrees with it
    ("Ram has 12 pens. He buys 3 more. How many pens does he have now?",
     "Ram has 12 pens. He buys 3 more. Find the number of pens he has now."),
    # the counted phrase is the subject: "that" joins the clause
    ("Tom ate 5 apples and Ann ate 3. How many apples were eaten in all?",
     "Tom ate 5 apples and Ann ate 3. Find the number of apples that were eaten in all."),
    # "how much" before a mass noun asks for an amount
    ("A jar has 20 l of water. How much water is left after 5 l are used?",
     "A jar has 20 l of water. Find the amount of water that is left after 5 l are used."),
    # "are there" is put back in statement order
    ("There are 220 castles in Scotland. Half of them are ruins. How many ruined castles are there in Scotland?",
     "There are 220 castles in Scotland. Half of them are ruins. Find the number of ruined castles there are in "
     "Scotland."),
    # a leading condition stays, "find" follows it in lower case
    ("She reads 5 pages a day. If the book has 40 pages, how many days will it take her?",
     "She reads 5 pages a day. If the book has 40 pages, find the number of days it will take her."),
    # adjectives of the counted phrase stay with it
    ("A family of 4 waits in line. How many different ways can the family arrange themselves in line?",
     "A family of 4 waits in line. Find the number of different ways the family can arrange themselves in line."),
])
def test_the_question_becomes_a_task_about_the_number(text, expected):
    assert count_as_task(text, spacy_model=SPACY) == expected
    assert_same_quantities(text, expected)


@pytest.mark.parametrize("text", [
    "Ram has 12 pens. How many more pens does he need to have 20?",      # a comparative: not a count of pens
    "Ram has 12 pens. How many does he have?",                           # nothing counted
    "He earns 5 dollars an hour. How many dollars does he earn in 8 hours?",  # a currency: "the number of dollars"
    "A book costs $4. How much does it cost in all for 3 books?",        # "how much" with no noun
    "A family of 4 waits. In how many ways can they stand in line?",     # the preposition would be lost
    "Ram has 12 pens. How many of them are red if 5 are blue?",          # "of them"
    "Ram has 12 pens. What is the number of pens?",                      # not a how-many question
    "Ram has 12 pens. How many pens does he have? How many are red?",    # two questions
])
def test_questions_that_are_not_a_plain_count_are_refused(text):
    assert count_as_task(text, spacy_model=SPACY) is None


def test_the_generator_refuses_with_its_reason_and_keeps_every_number():
    generator = get_generator("count_as_task")
    with pytest.raises(NotApplicable, match="How many"):
        generator.generate("A train covers 300 km in 5 hours. What is its speed?", random.Random(0),
                           GenerationResources())
    text = "A shop sells pens at $2 each. Tom buys 5 pens and 3 books. How many pens does the shop sell to Tom?"
    [candidate] = generator.generate(text, random.Random(0), GenerationResources())
    assert candidate.text == ("A shop sells pens at $2 each. Tom buys 5 pens and 3 books. Find the number of pens "
                              "the shop sells to Tom.")
    assert_same_quantities(text, candidate.text)


def test_compositions_change_the_words_or_the_condition_as_well():
    text = "A store sells pens at $2 each. If Tom purchases 5 pens, how many pens does the store have left of 20?"
    candidates, refusals = generate(["supposition+count_as_task", "condition_moved+count_as_task"], text, 0)
    texts = {c.generator: c.text for c in candidates}
    assert texts["supposition+count_as_task"] == ("A store sells pens at $2 each. Suppose Tom purchases 5 pens. "
                                                  "Find the number of pens the store has left of 20.")
    assert texts["condition_moved+count_as_task"] == ("A store sells pens at $2 each. Find the number of pens the "
                                                      "store has left of 20 if Tom purchases 5 pens.")
    assert not refusals
