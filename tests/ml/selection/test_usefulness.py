"""The probability that a valid variant is reworded enough to hand out: numbers written out count as
no change, a restructured problem as a large one."""
from __future__ import annotations

from ml.selection.usefulness import USEFULNESS, UsefulnessModel, useful_probability, wording_edits

PROBLEM = "A man buys 5 pens for $20. He sells them at a 15% profit. How many dollars does he get?"


def test_numbers_written_out_count_as_no_rewording():
    written = "A man buys five pens for 20 dollars. He sells them at a fifteen percent profit. How many dollars does he get?"
    assert wording_edits(PROBLEM, written) == 0
    assert useful_probability(PROBLEM, written) < 0.1


def test_more_rewording_is_more_likely_useful():
    one_word = PROBLEM.replace("buys", "purchases")
    question = PROBLEM.replace("How many dollars does he get?", "Find how many dollars he gets.")
    restructured = ("Find how many dollars a man gets, given that he purchases 5 pens for $20 and that he sells "
                    "them at a 15% profit.")
    probabilities = [useful_probability(PROBLEM, v) for v in (one_word, question, restructured)]
    assert probabilities == sorted(probabilities)
    assert probabilities[0] < 0.2 < 0.5 < probabilities[2]


def test_weights_are_what_the_model_applies():
    flat = UsefulnessModel(intercept=0.0, edits=0.0, divergence=0.0)
    assert flat.probability((3.0, 0.5)) == 0.5
    assert USEFULNESS.edits > 0 and USEFULNESS.divergence > 0
