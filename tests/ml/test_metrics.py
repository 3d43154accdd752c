"""ParaQD evaluation metrics, checked against numbers worked out by hand and against the paper."""
import math

import pytest

from ml.metrics import harmonic_mean_f1, nest_paraqd_metrics, paraqd_eval, paraqd_eval_nested

# Ten pairs, 4 valid (label 1) and 6 invalid (label 0), threshold 0.5, predicted valid = score > 0.5.
SCORES = [0.9, 0.8, 0.6, 0.5,            # valid: TP, TP, TP, FN (exactly at the threshold -> invalid)
          0.7, 0.55, 0.2, 0.1, -0.3, 0.0]  # invalid: FP, FP, TN, TN, TN, TN
LABELS = [1, 1, 1, 1, 0, 0, 0, 0, 0, 0]
#                    predicted 1   predicted 0
#   true 1 (valid)      TP = 3        FN = 1      support 4
#   true 0 (invalid)    FP = 2        TN = 4      support 6
# class 1: P = 3/5 = 0.6, R = 3/4 = 0.75, F1 = 2/3
# class 0: P = 4/5 = 0.8, R = 4/6 = 2/3,  F1 = 2(0.8)(2/3)/(0.8 + 2/3) = 8/11
# macro:    P = 0.7, R = (0.75 + 2/3)/2 = 17/24; F1 (sklearn) = (2/3 + 8/11)/2 = 23/33;
#           F1_hm = 2(7/10)(17/24)/(7/10 + 17/24) = 119/169
# weighted: P = (4(0.6) + 6(0.8))/10 = 0.72, R = (4(0.75) + 6(2/3))/10 = 0.7;
#           F1 (sklearn) = (4(2/3) + 6(8/11))/10 = 116/165; F1_hm = 2(0.72)(0.7)/1.42 = 252/355
# mu_pos = 2.8/4 = 0.7, mu_neg = 1.25/6 = 5/24, separation = 0.7 - 5/24 = 59/120, accuracy = 7/10
EXPECTED = {
    "n": 10.0,
    "macro_p": 0.7, "macro_r": 17 / 24, "macro_f1": 23 / 33, "macro_f1_hm": 119 / 169,
    "weighted_p": 0.72, "weighted_r": 0.7, "weighted_f1": 116 / 165, "weighted_f1_hm": 252 / 355,
    "mu_pos": 0.7, "mu_neg": 5 / 24, "separation": 59 / 120, "accuracy": 0.7,
}


def test_hand_computed_confusion_matrix():
    result = paraqd_eval(SCORES, LABELS)
    assert set(result) == set(EXPECTED)
    for key, value in EXPECTED.items():
        assert result[key] == pytest.approx(value, abs=1e-12), key
    # The two F1 definitions really differ here: the paper's is not scikit-learn's.
    assert result["macro_f1_hm"] != pytest.approx(result["macro_f1"], abs=1e-3)


def test_threshold_is_strict_and_labels_may_be_booleans():
    as_bools = paraqd_eval(SCORES, [bool(x) for x in LABELS])
    assert as_bools == paraqd_eval(SCORES, LABELS)
    # Lowering the threshold below 0.5 turns the FN at exactly 0.5 into a TP.
    assert paraqd_eval(SCORES, LABELS, threshold=0.49)["weighted_r"] == pytest.approx(0.8)


def test_zero_division_counts_as_zero_like_sklearn():
    # Nothing predicted valid: class-1 precision is 0/0 -> 0; class 0: P = 2/4, R = 1.
    result = paraqd_eval([0.1, 0.2, 0.3, 0.4], [1, 1, 0, 0])
    assert result["macro_p"] == pytest.approx((0 + 0.5) / 2)
    assert result["macro_r"] == pytest.approx((0 + 1) / 2)
    # Only one class present: its mean exists, the other's is NaN, and separation with it.
    one_class = paraqd_eval([0.9, 0.7], [1, 1])
    assert one_class["mu_pos"] == pytest.approx(0.8) and math.isnan(one_class["mu_neg"])
    assert math.isnan(one_class["separation"])
    assert harmonic_mean_f1(0.0, 0.0) == 0.0


def test_paper_f1_is_the_harmonic_mean_of_averaged_p_and_r():
    # METHODS.md, Misreading 1: AquaRAT pretrained, weighted P 0.784, R 0.318 -> F1 0.453 in
    # Table 1 (the inputs are rounded to 3 places, so agreement is to ~1e-3: 0.4525 here).
    assert harmonic_mean_f1(0.784, 0.318) == pytest.approx(0.453, abs=1e-3)
    # More Table 1 rows: (P, R, F1) as printed.
    for p, r, f1 in [(0.658, 0.502, 0.569), (0.762, 0.625, 0.687), (0.678, 0.695, 0.687),
                     (0.708, 0.622, 0.662), (0.106, 0.325, 0.159)]:
        assert harmonic_mean_f1(p, r) == pytest.approx(f1, abs=1e-3)
    with pytest.raises(ValueError):
        harmonic_mean_f1(-0.1, 0.5)


def test_nested_form_matches_the_platform_contract():
    nested = paraqd_eval_nested(SCORES, LABELS)
    assert set(nested) == {"n", "macro", "weighted", "mu_pos", "mu_neg", "separation"}
    assert nested["n"] == 10
    for average in ("macro", "weighted"):
        assert set(nested[average]) == {"p", "r", "f1", "f1_hm"}
    assert nested["macro"]["f1_hm"] == pytest.approx(119 / 169)
    assert nested["weighted"]["f1"] == pytest.approx(116 / 165)
    assert nested == nest_paraqd_metrics(paraqd_eval(SCORES, LABELS))


@pytest.mark.parametrize("scores, labels", [([], []), ([0.1], [1, 0]), ([0.1], [2]), ([float("nan")], [1])])
def test_bad_inputs_are_refused(scores, labels):
    with pytest.raises(ValueError):
        paraqd_eval(scores, labels)


def test_score_histogram_counts_each_class_in_its_bins():
    from ml.metrics import score_histogram

    hist = score_histogram([0.99, 0.51, -1.0, 0.49, 2.0], [1, 1, 0, 0, 0], bins=4)
    assert hist["edges"] == [-1.0, -0.5, 0.0, 0.5, 1.0]
    # 0.99 and 0.51 fall in [0.5, 1]; -1.0 in the first bin, 0.49 in [0, 0.5), 2.0 clipped to the last bin
    assert hist["valid"] == [0, 0, 0, 2]
    assert hist["invalid"] == [1, 0, 1, 1]


def test_score_histogram_rejects_mismatched_input():
    import pytest

    from ml.metrics import score_histogram

    with pytest.raises(ValueError):
        score_histogram([0.1], [1, 0])
    with pytest.raises(ValueError):
        score_histogram([0.1], [1], bins=0)
