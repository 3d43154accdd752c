"""Threshold-free metrics and calibration on hand-made score/label lists with known answers."""
import math

import pytest

from ml.judge import Calibration, expected_calibration_error, fit_calibration, fit_threshold, reliability_curve
from ml.metrics.classification import paraqd_eval, pr_auc, roc_auc, threshold_free


def test_roc_auc_known_values():
    assert roc_auc([0.1, 0.2, 0.8, 0.9], [0, 0, 1, 1]) == 1.0  # perfect ranking
    assert roc_auc([0.9, 0.8, 0.2, 0.1], [0, 0, 1, 1]) == 0.0  # reversed
    # positives 0.35, 0.8 vs negatives 0.1, 0.4: 3 of the 4 pairs ordered right
    assert roc_auc([0.1, 0.4, 0.35, 0.8], [0, 0, 1, 1]) == 0.75
    # a tie between a positive and a negative counts half
    assert roc_auc([0.5, 0.5], [0, 1]) == 0.5
    assert math.isnan(roc_auc([0.1, 0.2], [1, 1]))  # one class: undefined


def test_pr_auc_known_value():
    # ranked: 0.8 (+), 0.4 (-), 0.35 (+), 0.1 (-): precision 1 at the first positive, 2/3 at the second
    assert pr_auc([0.1, 0.4, 0.35, 0.8], [0, 0, 1, 1]) == pytest.approx((1 + 2 / 3) / 2)
    assert threshold_free([0.1, 0.9], [0, 1]) == {"roc_auc": 1.0, "pr_auc": 1.0}


def test_auc_ignores_a_monotone_rescaling_but_f1_at_a_fixed_threshold_does_not():
    scores, labels = [-0.2, 0.1, 0.2, 0.3, 0.35, 0.45], [0, 0, 1, 0, 1, 1]
    squashed = [(s + 1) / 4 for s in scores]  # all below 0.5
    assert roc_auc(scores, labels) == roc_auc(squashed, labels)
    assert paraqd_eval(squashed, labels, 0.5)["weighted_f1_hm"] < paraqd_eval(scores, labels, 0.15)["weighted_f1_hm"]


def test_fit_threshold_picks_the_best_cut():
    # Any cut in (0.30, 0.35) separates perfectly: the midpoint is chosen.
    t = fit_threshold([0.1, 0.2, 0.3, 0.35, 0.6, 0.9], [0, 0, 0, 1, 1, 1])
    assert t == pytest.approx(0.325)
    assert paraqd_eval([0.1, 0.2, 0.3, 0.35, 0.6, 0.9], [0, 0, 0, 1, 1, 1], t)["weighted_f1_hm"] == 1.0
    # Cosines: the cut can be negative.
    assert fit_threshold([-0.9, -0.5, -0.1, 0.4], [0, 0, 1, 1]) == pytest.approx(-0.3)


def test_platt_is_monotone_and_brackets_the_classes():
    scores = [-0.5, -0.2, 0.0, 0.1, 0.3, 0.4, 0.6, 0.9]
    labels = [0, 0, 0, 1, 0, 1, 1, 1]
    cal = fit_calibration(scores, labels, method="platt")
    probs = cal.probability(sorted(scores))
    assert probs == sorted(probs) and 0.0 < probs[0] < 0.5 < probs[-1] < 1.0
    assert cal.params["slope"] > 0
    # The threshold is fitted on the calibrated probabilities: it reproduces the best cosine cut.
    decided = [p > cal.threshold for p in cal.probability(scores)]
    best = paraqd_eval(scores, labels, fit_threshold(scores, labels))["weighted_f1_hm"]
    assert paraqd_eval([float(d) for d in decided], labels, 0.5)["weighted_f1_hm"] == pytest.approx(best)


def test_isotonic_reproduces_a_known_step():
    cal = fit_calibration([0.1, 0.2, 0.3, 0.7, 0.8, 0.9], [0, 0, 0, 1, 1, 1], method="isotonic")
    assert cal.probability([0.15, 0.85]) == [0.0, 1.0]
    assert cal.probability([0.0, 1.0]) == [0.0, 1.0]  # clipped outside the fitted range
    # An impure bin averages: 1 of 2 valid at the same score.
    mixed = fit_calibration([0.1, 0.5, 0.5, 0.9], [0, 0, 1, 1], method="isotonic")
    assert mixed.probability([0.5]) == [0.5]


def test_calibration_round_trips_through_json_data():
    cal = fit_calibration([0.1, 0.2, 0.8, 0.9, 0.4, 0.6], [0, 0, 1, 1, 0, 1], method="platt")
    again = Calibration.from_dict(cal.to_dict())
    assert again == cal and again.probability([0.3, 0.7]) == cal.probability([0.3, 0.7])
    assert again.decide(0.9) and not again.decide(0.1)
    with pytest.raises(ValueError, match="method"):
        Calibration.from_dict({"method": "magic"})
    with pytest.raises(ValueError, match="both classes"):
        fit_calibration([0.1, 0.2], [1, 1])


def test_reliability_curve_and_ece():
    probs = [0.05, 0.15, 0.15, 0.85, 0.95, 0.95]
    labels = [0, 0, 1, 1, 1, 1]
    rows = reliability_curve(probs, labels, bins=10)
    assert [(r["lo"], r["n"]) for r in rows] == [(0.0, 1), (0.1, 2), (0.8, 1), (0.9, 2)]
    assert rows[1]["observed"] == 0.5 and rows[1]["mean_predicted"] == pytest.approx(0.15)
    # ECE = 1/6 |0 - .05| + 2/6 |.5 - .15| + 1/6 |1 - .85| + 2/6 |1 - .95|
    assert expected_calibration_error(probs, labels) == pytest.approx((0.05 + 0.7 + 0.15 + 0.1) / 6)
