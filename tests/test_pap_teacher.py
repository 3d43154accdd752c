"""The LLM-as-PAP-teacher benchmark (``benchmarks/pap_teacher.py``): each teacher rewrite is given
the prompt words its own change earns, so that PCF keeps it under that prompt."""
from __future__ import annotations

from benchmarks.pap_teacher import earned_prompt
from ml.selection import SelectionCandidate
from ml.selection.qf_pcf import prompt_conditions_met


def test_prompt_words_follow_the_rewrites_own_change():
    assert earned_prompt({"bleu_div": 0.5, "wpd": 0.3}) == "replace shuffle"
    assert earned_prompt({"bleu_div": 0.5, "wpd": 0.05}) == "replace"
    assert earned_prompt({"bleu_div": 0.1, "wpd": 0.2}) == "shuffle"
    assert earned_prompt({"bleu_div": 0.1, "wpd": 0.0}) == ""
    assert earned_prompt({}) == ""


def test_a_rewrite_under_its_earned_prompt_passes_pcf_and_under_a_bigger_one_does_not():
    scores = {"S": 0.95, "D": 0.3, "N": 1.0, "bleu_div": 0.45, "wpd": 0.02}
    prompt = earned_prompt(scores)
    assert prompt_conditions_met(SelectionCandidate("x", scores, prompt=prompt))
    assert not prompt_conditions_met(SelectionCandidate("x", scores, prompt="replace shuffle"))
