"""Units, symbols and small counts written out: every quantity kept, only where it reads naturally."""
from __future__ import annotations

import random

import pytest

from ml.generation import GenerationResources, generate, get_generator
from ml.generation.base import NotApplicable
from ml.generation.number_format import write_out


@pytest.mark.parametrize(("text", "expected"), [
    ("A man buys 5 pens for $20 and sells them at a 15% profit.",
     "A man buys five pens for 20 dollars and sells them at a fifteen percent profit."),
    # a measure keeps its digits; its unit is written in full
    ("A train at 60 km/hr crosses a pole in 9 seconds.", "A train at 60 kilometres per hour crosses a pole in 9 seconds."),
    ("Box 5 holds 25 kg.", "Box 5 holds 25 kilograms."),
    ("The price of a clock is Rs.6400.", "The price of a clock is 6400 rupees."),
    # a count that opens a sentence is capitalised
    ("2 trains leave at noon. 3 cars follow.", "Two trains leave at noon. Three cars follow."),
])
def test_units_symbols_and_small_counts_are_written_out(text, expected):
    assert write_out(text) == expected


@pytest.mark.parametrize("text", [
    "Box 5 holds 25 boxes.",                  # a label, a count above twenty
    "If 2s > 8 and 4t < 12, find s.",         # an expression: "2s" is not two seconds
    "The LCM of 21, 36 and 56 is needed.",    # a list of figures
    "It rose from 2 to 5 in 2.5 hours.",      # a range and a decimal
    "At least $10 million is invested.",      # a scaled amount keeps its symbol ("10 dollars million")
])
def test_labels_expressions_lists_and_measures_stay_in_digits(text):
    assert write_out(text) == text
    with pytest.raises(NotApplicable):
        get_generator("number_format").generate(text, random.Random(0), GenerationResources())


def test_it_runs_by_name_and_before_a_question_rule():
    text = "Tom has 5 apples and buys 3 more for $2. How many apples does he have?"
    candidates, refusals = generate(["number_format", "number_format+question_as_task"], text, 1, GenerationResources())
    texts = {c.generator: c.text for c in candidates}
    assert texts["number_format"] == "Tom has five apples and buys three more for 2 dollars. How many apples does he have?"
    assert texts["number_format+question_as_task"].endswith("Find how many apples he has.")
    assert not refusals
