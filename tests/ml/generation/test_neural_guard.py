"""What STEAD and PAP hand out: only outputs that keep the numbers and units (the number guard)
and the problem's content (no extra questions, sentences or comments, its nouns kept)."""
from __future__ import annotations

from ml.generation.neural import _guarded
from ml.stead.model import NeuralOutput

PROBLEM = ("A shop sells 12 pens at 3 dollars each and 4 notebooks at 5 dollars each. "
           "How much money does the shop get?")


def output(text: str) -> NeuralOutput:
    return NeuralOutput(text=text, prompt="", source=PROBLEM, meta={})


def test_only_outputs_that_keep_numbers_and_content_are_handed_out():
    kept = _guarded(PROBLEM, [
        output("How much money does the shop get for 12 pens at 3 dollars each and 4 notebooks at 5 dollars each?"),
        output("A shop sells 12 pens at 3 dollars each and 4 notebooks at 6 dollars each. How much money does the "
               "shop get?"),  # a number changed
        output("A shop sells 12 pens at 3 dollars each and 4 notebooks at 5 dollars each. How much do the pens "
               "bring? How much money does the shop get?"),  # a question added
        output("It sells 12 things at 3 dollars each and 4 more at 5 dollars each. What is the total?"),  # nouns lost
    ], "stead")
    assert [c.text for c in kept] == [
        "How much money does the shop get for 12 pens at 3 dollars each and 4 notebooks at 5 dollars each?"]
    assert kept[0].generator == "stead"
