"""STEAD's and PAP's training data: prompts, passive share, fresh noise per epoch, the parallel
corpus from QF-PCF + PAMMR and its edits from annotators' labels."""

import pytest

from ml.pap import PapPair, apply_gold_labels, pap_examples, pap_source, select_parallel_corpus
from ml.stead import (
    STEAD_PASSIVE_PROMPT,
    STEAD_PROMPT,
    passive_targets,
    preset,
    prompt_words_of,
    stead_examples,
    stead_inputs,
)

PROBLEMS = [f"Tom bought {n} apples and ate 2 of them. How many are left?" for n in range(3, 23)]


def fake_noise(text, rng):
    words = text.split()
    rng.shuffle(words)
    return " ".join(words)


def test_passive_targets_meet_the_fraction_from_convertible_problems():
    convertible = {i for i in range(20) if i % 2 == 0}
    chosen = passive_targets(PROBLEMS, fraction=0.2, seed=3407,
                             convert=lambda t: f"P: {t}" if PROBLEMS.index(t) in convertible else None)
    assert len(chosen) == 4  # 20 % of 20
    assert set(chosen) <= convertible
    assert all(chosen[i] == f"P: {PROBLEMS[i]}" for i in chosen)
    again = passive_targets(PROBLEMS, fraction=0.2, seed=3407,
                            convert=lambda t: f"P: {t}" if PROBLEMS.index(t) in convertible else None)
    assert again == chosen


def test_passive_targets_with_the_rule_turn_a_real_problem_passive():
    chosen = passive_targets(["John bought 5 apples. How many apples does he have?"], fraction=1.0, seed=1)
    assert chosen == {0: "5 apples were bought by John. How many apples does he have?"}


def test_stead_examples_prompt_targets_and_fresh_noise_per_epoch():
    passive = {1: "passive version"}
    first = stead_examples(PROBLEMS[:3], 0, seed=3407, noise=fake_noise, passive=passive)
    assert first[0][0].startswith(STEAD_PROMPT + " ") and first[0][1] == PROBLEMS[0]
    assert first[1][0].startswith(STEAD_PASSIVE_PROMPT + " ") and first[1][1] == "passive version"
    assert stead_examples(PROBLEMS[:3], 0, seed=3407, noise=fake_noise, passive=passive) == first
    second = stead_examples(PROBLEMS[:3], 1, seed=3407, noise=fake_noise, passive=passive)
    assert [s for s, _ in second] != [s for s, _ in first]
    assert [t for _, t in second] == [t for _, t in first]


def test_prompt_words_follow_the_paper_order():
    assert prompt_words_of("paraphrase shuffle replace :") == "replace shuffle"
    assert prompt_words_of("paraphrase fix :", "passive") == "fix passive"
    assert pap_source("replace shuffle", "Tom has 5 apples.") == "paraphrase replace shuffle : Tom has 5 apples."
    assert pap_source("", "x") == "paraphrase : x"


def test_stead_inputs_carry_the_noise_prompt_and_a_passive_request():
    class Noised:
        def __init__(self, text):
            self.text, self.combination, self.prompt = text.upper(), "a", "paraphrase replace shuffle :"

    inputs = stead_inputs("Tom has 5 apples.", seed=1, preset=preset("paper", inference_noises=2),
                          inference_noise=lambda t, r: Noised(t))
    assert [words for _, words, _ in inputs] == ["replace shuffle", "replace shuffle passive", "replace shuffle"]
    assert inputs[0][0] == "paraphrase: TOM HAS 5 APPLES."
    assert inputs[1][0] == "paraphrase passive: TOM HAS 5 APPLES."


def scores(S, D, N, bleu_div=0.4, wpd=0.2):
    return {"S": S, "D": D, "N": N, "PQI": S ** 0.5 * D ** 0.25 * N ** 0.25, "bleu_div": bleu_div, "wpd": wpd}


def test_parallel_corpus_keeps_only_candidates_passing_qf_pcf():
    problem = "Tom has 5 apples and buys 3 more. How many apples does he have?"
    candidates = [
        ("Tom owns 5 apples and gets 3 more. How many apples are his?", "replace", scores(0.95, 0.4, 1.0)),
        ("Tom has 5 apples.", "replace", scores(0.80, 0.5, 1.0)),                          # σ too low
        ("Tom has 6 apples and buys 3 more. How many?", "replace", scores(0.95, 0.4, 0.3)),  # ν too low
        ("He buys 3 more; Tom has 5 apples. How many does he have?", "shuffle", scores(0.93, 0.3, 1.0, wpd=0.05)),
    ]
    pairs = select_parallel_corpus(problem, candidates, k=2)
    assert [p.target for p in pairs] == [candidates[0][0]]  # the shuffle one fails PCF (WPD < 0.1)
    assert pairs[0].prompt == "replace" and pairs[0].problem == problem
    assert select_parallel_corpus(problem, candidates[1:3], k=2) == []


def test_gold_labels_join_or_leave_the_corpus_with_weights():
    pairs = [PapPair("p1", "replace", "good"), PapPair("p1", "shuffle", "bad")]
    gold = [("p1", "shuffle", "bad", False, True), ("p2", "fix", "new", True, True), ("p3", "fix", "ok", True, False)]
    edited, counts = apply_gold_labels(pairs, gold, hard_weight=3)
    assert [(p.problem, p.target, p.weight, p.origin) for p in edited] == [
        ("p1", "good", 1, "selected"), ("p2", "new", 3, "gold"), ("p3", "ok", 1, "gold")]
    assert counts == {"gold_valid_added": 2, "gold_invalid_removed": 1, "hard_examples": 1}
    examples = pap_examples(edited)
    assert examples.count(("paraphrase fix : p2", "new")) == 3
    assert len(examples) == 5


def test_presets_hold_the_paper_parameters():
    paper = preset("paper")
    assert (paper.learning_rate, paper.weight_decay, paper.warmup_ratio, paper.seed, paper.epochs, paper.batch_size) \
        == (8e-5, 0.03, 0.1, 3407, 15, 128)
    assert (paper.num_beams, paper.num_beam_groups, paper.diversity_penalty) == (6, 3, 10.0)
    assert paper.passive_fraction == 0.2 and paper.selected_per_problem == 2
    # Beyond the paper: numbers copied from the problem, and none dropped (tiny leaves the second off).
    assert (paper.copy_numbers, paper.require_numbers) == (True, True)
    assert preset("tiny").require_numbers is False and preset("paper", require_numbers=False).require_numbers is False
    # Outputs cut at the length limit are left out in `paper`, and no trigram is written twice.
    assert (paper.drop_cut, paper.no_repeat_ngram) == (True, 3)
    assert (preset("tiny").drop_cut, preset("tiny").no_repeat_ngram) == (False, 0)
    assert preset("paper", no_repeat_ngram=0).no_repeat_ngram == 0
    assert paper.single_line and not preset("tiny").single_line  # one-line problems, one-line outputs
    for wrong in (1, -2):
        with pytest.raises(ValueError):
            preset("paper", no_repeat_ngram=wrong)
    with pytest.raises(ValueError):
        preset("huge")
    with pytest.raises(ValueError):
        preset("paper", batch_size=100, micro_batch=16)
