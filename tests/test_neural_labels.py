"""The STEAD/PAP labelling benchmark (``benchmarks/neural_labels.py``): which outputs go into the
blind batch, and the interval reported beside each valid share."""
from __future__ import annotations

from benchmarks.neural_labels import guard_passes, sample, wilson

PROBLEM = "A shop sells 12 pens at 3 dollars each. How much money does the shop get?"


def rows(generator, texts):
    return [{"set": "AQuA test", "problem": PROBLEM, "generator": generator, "text": t, "s_per_problem": 2.0}
            for t in texts]


def test_sample_leaves_out_copies_and_repeats_and_caps_each_generator():
    outputs = rows("stead", [PROBLEM, "  " + PROBLEM.lower() + " ", "Each of 12 pens costs 3 dollars. Find the money.",
                             "Each of 12 pens costs 3 dollars. Find the money.", "The shop sells 12 pens for 3 dollars "
                             "each; how much money does it get?"])
    outputs += rows("pap", [f"variant {i} with 12 pens at 3 dollars" for i in range(10)])
    picked, copies = sample(outputs, 4, seed=1)
    assert copies == {"stead": 2}
    stead = [r["text"] for r in picked if r["generator"] == "stead"]
    assert len(stead) == 2 and len(set(stead)) == 2  # the repeat counts once
    assert sum(r["generator"] == "pap" for r in picked) == 4
    assert sample(outputs, 4, seed=1)[0] == picked  # seeded
    assert sample(outputs, 4, seed=2)[0] != picked


def test_wilson_interval_holds_the_share_and_narrows_with_more_labels():
    lo, hi = wilson(8, 10)
    assert lo < 0.8 < hi
    lo2, hi2 = wilson(80, 100)
    assert lo < lo2 < 0.8 < hi2 < hi
    assert wilson(0, 0) == (0.0, 0.0)
    assert wilson(10, 10)[1] == 1.0


def test_the_guard_is_the_platforms_number_check():
    assert guard_passes(PROBLEM, "Each of the 12 pens costs 3 dollars. How much money does the shop get?")
    assert not guard_passes(PROBLEM, "Each of the 12 pens costs 4 dollars. How much money does the shop get?")
