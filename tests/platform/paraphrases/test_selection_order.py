"""Which candidates the judge reads when a problem has more than its limit: every generator gets a
turn, the most reworded candidate of each first, and the generators whose best is most reworded go
first."""
from __future__ import annotations

from django.test import SimpleTestCase

from paraphrases.selection import ScoredCandidate, probability_as_sigma, round_robin


def candidate(generator: str, useful: float | None, text: str = "") -> ScoredCandidate:
    scores = {"S": 0.9, "D": 0.3, "N": 1.0, "PQI": 0.5, "valid_probability": 0.8}
    if useful is not None:
        scores["useful_probability"] = useful
    return ScoredCandidate(text or f"{generator} {useful}", generator, "", {}, scores)


class RoundRobinTests(SimpleTestCase):
    def test_most_reworded_first_within_and_across_generators(self):
        scored = [candidate("number_format", 0.02), candidate("number_format", 0.03),
                  candidate("reorder", 0.4), candidate("reorder", 0.9), candidate("question_form", 0.1)]
        # limit 3: one turn each, reorder first (its best is 0.9), and reorder's 0.9 candidate before its 0.4
        self.assertEqual(round_robin(scored, 3), [1, 3, 4])
        self.assertEqual(round_robin(scored, 4), [1, 2, 3, 4])

    def test_without_usefulness_the_order_made_is_kept(self):
        scored = [candidate("a", None), candidate("a", None), candidate("b", None)]
        self.assertEqual(round_robin(scored, 2), [0, 2])
        self.assertEqual(round_robin(scored, 0), [0, 1, 2])


class ExpectedValidAndUsefulTests(SimpleTestCase):
    def test_sigma_is_validity_times_usefulness(self):
        useful, trivial = probability_as_sigma(candidate("reorder", 0.5)), probability_as_sigma(candidate("x", 0.05))
        self.assertAlmostEqual(useful.scores["S"], 0.4)
        self.assertAlmostEqual(trivial.scores["S"], 0.04)
        self.assertGreater(useful.scores["PQI"], trivial.scores["PQI"])
        self.assertAlmostEqual(probability_as_sigma(candidate("x", None)).scores["S"], 0.8)
