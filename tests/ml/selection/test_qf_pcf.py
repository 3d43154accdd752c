import pytest

from ml.selection import QFThresholds, prompt_conditions_met, qf_pcf, quality_filter

from .helpers import cand

GOOD = {"S": 0.95, "D": 0.3, "N": 1.0}


def test_quality_filter_is_strict_on_each_threshold():
    cands = [
        cand(**GOOD),                              # 0 passes
        cand(**{**GOOD, "S": 0.9}),                # 1 sigma exactly 0.9: fails
        cand(**{**GOOD, "S": 0.9001}),             # 2 just above: passes
        cand(**{**GOOD, "D": 0.15}),               # 3 delta exactly 0.15: fails
        cand(**{**GOOD, "N": 0.6}),                # 4 nu exactly 0.6: fails
        cand(**{**GOOD, "N": 0.61}),               # 5 passes
        cand(**{**GOOD, "S": float("nan")}),       # 6 undefined similarity: fails
    ]
    assert quality_filter(cands) == [0, 2, 5]
    # sigma 0.95 is not > 0.95 and 0.9, 0.9001 are below: nothing passes
    assert quality_filter(cands, QFThresholds(sigma=0.95)) == []
    assert quality_filter(cands, QFThresholds(sigma=0.5, delta=0.1, nu=0.5)) == [0, 1, 2, 3, 4, 5]


@pytest.mark.parametrize(
    ("prompt", "scores", "expected"),
    [
        ("shuffle", {"wpd": 0.1}, True),          # >= : the threshold itself passes
        ("shuffle", {"wpd": 0.0999}, False),
        ("replace", {"bleu_div": 0.3}, True),
        ("replace", {"bleu_div": 0.29}, False),
        ("fix", {"D": 0.25}, True),
        ("fix", {"D": 0.2499}, False),
        ("passive", {}, True),                    # no condition for passive
        ("", {}, True),                           # no prompt, no condition
        ("replace shuffle", {"wpd": 0.2, "bleu_div": 0.4}, True),
        ("replace shuffle", {"wpd": 0.2, "bleu_div": 0.2}, False),   # replace fails
        ("replace shuffle", {"wpd": 0.05, "bleu_div": 0.4}, False),  # shuffle fails
        ("paraphrase fix passive :", {"D": 0.3}, True),
        ("Shuffle Fix", {"wpd": 0.5, "D": 0.2}, False),              # case-insensitive; fix fails
    ],
)
def test_prompt_conditions(prompt, scores, expected):
    assert prompt_conditions_met(cand(prompt=prompt, **scores)) is expected


def test_prompt_condition_needs_its_score():
    with pytest.raises(ValueError, match="wpd"):
        prompt_conditions_met(cand(prompt="shuffle", D=0.3))


def test_qf_pcf_applies_both_stages_in_input_order():
    cands = [
        cand(prompt="shuffle", wpd=0.05, **GOOD),            # 0 QF ok, PCF fails
        cand(prompt="shuffle", wpd=0.2, **GOOD),             # 1 both pass
        cand(prompt="replace", bleu_div=0.5, **{**GOOD, "S": 0.85}),  # 2 QF fails
        cand(prompt="passive", **GOOD),                      # 3 both pass
        cand(prompt="fix", **GOOD),                          # 4 D = 0.3 >= 0.25: passes
    ]
    assert qf_pcf(cands) == [1, 3, 4]


def test_missing_quality_score_is_an_error():
    with pytest.raises(ValueError, match="'N'"):
        quality_filter([cand(S=0.95, D=0.3)])


def test_thresholds_are_validated():
    with pytest.raises(ValueError):
        QFThresholds(sigma=1.5)
