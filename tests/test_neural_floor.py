"""The neural-floor benchmark step (``benchmarks/neural_floor.py``): the floor maximises F0.5 of
the valid class, and the leave-one-problem-out estimate never fits on the problem it scores."""
from __future__ import annotations

from benchmarks.neural_floor import fit_floor, leave_one_problem_out


def test_the_floor_drops_the_invalid_tail_and_ties_keep_more():
    items = [(0.95, True), (0.9, True), (0.85, True), (0.7, False), (0.65, False), (0.6, True)]
    assert fit_floor(items) == 0.7  # everything above the two invalid ones
    assert fit_floor([(0.9, True), (0.8, True)]) == 0.0  # nothing to refuse: keep everything
    assert fit_floor([(0.9, False), (0.8, True)]) == 0.0  # refusing the top one costs more than it gains


def test_leave_one_problem_out_scores_each_problem_with_a_floor_fitted_elsewhere():
    by_problem = {
        "a": [(0.9, True), (0.7, False)],
        "b": [(0.95, True), (0.75, False)],
        "c": [(0.8, True)],
    }
    kept, valid = leave_one_problem_out(by_problem)
    # Fitted without "a": 0.75, so a keeps 0.9 only; without "b": 0.7, so b's invalid 0.75 passes;
    # without "c": 0.75, so c's 0.8 passes. Kept 1 + 2 + 1, valid 1 + 1 + 1.
    assert (kept, valid) == (4, 3)
