"""A leading "If …," condition stated as a supposition: where the condition ends, what is refused."""
from __future__ import annotations

import random

import pytest

from ml.generation import GenerationResources, generate, get_generator
from ml.generation.base import NotApplicable
from ml.generation.supposition import state_condition, suppose

from .conftest import assert_same_quantities

SPACY = GenerationResources().spacy_model


@pytest.mark.parametrize(("text", "expected"), [
    ("If a cellphone is purchased for Rs.490 and sold for Rs.465.50 find the loss percentage?",
     "Suppose a cellphone is purchased for Rs.490 and sold for Rs.465.50. Find the loss percentage?"),
    # a comma inside the condition is not its end; the parse says where the clause stops
    ("Esteban is in a line. If he is the 26th person from the back, and the 18th from the front, how many people are "
     "in the line?",
     "Esteban is in a line. Suppose he is the 26th person from the back, and the 18th from the front. How many "
     "people are in the line?"),
    # "then" starts the main clause and stays; a statement keeps its own end
    ("The ratio of A’s and B’s salary is 9 : 4. If A’s salary is increased by 15%, then his total salary becomes "
     "5175. What is the salary of B?",
     "The ratio of A’s and B’s salary is 9 : 4. Suppose A’s salary is increased by 15%. Then his total salary "
     "becomes 5175. What is the salary of B?"),
    # a label after "then" keeps its capital
    ("If the price of a pen is $4, then A pays $12 more than B. What does B pay?",
     "Suppose the price of a pen is $4. Then A pays $12 more than B. What does B pay?"),
    # a list that ends in "respectively" belongs to the condition (the parser lost the clause here)
    ("Ann, Bob, and Carol each try to win. If their probabilities for success are 2/5, 3/8, and 2/7, respectively, "
     "what is the probability that exactly two win?",
     "Ann, Bob, and Carol each try to win. Suppose their probabilities for success are 2/5, 3/8, and 2/7, "
     "respectively. What is the probability that exactly two win?"),
    # a condition that lists facts runs up to the comma before the question, not the parser's first
    # clause (it split "Suppose the monkeys need 200 bananas. The gorillas need 400 bananas, …, how many")
    ("He orders bananas every 2 months. If the monkeys need 200 bananas, the gorillas need 400 bananas, and the "
     "baboons need 100 bananas every month, how many bananas does he need to order to last for 2 months?",
     "He orders bananas every 2 months. Suppose the monkeys need 200 bananas, the gorillas need 400 bananas, and "
     "the baboons need 100 bananas every month. How many bananas does he need to order to last for 2 months?"),
])
def test_the_condition_becomes_a_sentence_and_everything_else_stays(text, expected):
    assert suppose(text, spacy_model=SPACY) == expected
    assert_same_quantities(text, expected)


@pytest.mark.parametrize("sentence", [
    "When it rains, Tom stays home.",                                  # not an "If" condition
    "If he buys 3 more pens and 2 books, then so.",                    # no main clause of its own
    "If the sum is 12 and if the difference is 2, what is the larger number?",  # two stacked conditions
    "Tom has 5 pens, if he buys 3 more how many does he have?",        # the condition opens mid-sentence
    "If A is 3, and B is 4, C is 5, what is D? And what is E?",          # two questions
])
def test_sentences_without_a_clear_leading_condition_are_refused(sentence):
    assert state_condition(sentence, spacy_model=SPACY) is None


def test_the_generator_refuses_a_problem_without_a_condition_and_keeps_every_number():
    generator = get_generator("supposition")
    with pytest.raises(NotApplicable, match="If"):
        generator.generate("Tom has 5 pens. How many pens does Tom have?", random.Random(0), GenerationResources())
    text = "A shop sells pens at $2 each. If Tom buys 5 pens, how much does he pay?"
    [candidate] = generator.generate(text, random.Random(0), GenerationResources())
    assert candidate.text == "A shop sells pens at $2 each. Suppose Tom buys 5 pens. How much does he pay?"
    assert_same_quantities(text, candidate.text)


def test_compositions_state_the_condition_and_reword_the_question():
    text = "A shop sells pens at $2 each. If Tom buys 5 pens, how much does he pay?"
    candidates, refusals = generate(["supposition+question_as_task", "rewording+supposition"], text, 0)
    texts = {c.generator: c.text for c in candidates}
    assert texts["supposition+question_as_task"] == ("A shop sells pens at $2 each. Suppose Tom buys 5 pens. "
                                                     "Find how much he pays.")
    assert texts["rewording+supposition"] == ("A store sells pens at $2 each. Suppose Tom purchases 5 pens. "
                                              "How much does he pay?")
    assert not refusals
