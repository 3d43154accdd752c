"""The LLM-gate benchmark (``benchmarks/llm_gate.py``): the teacher cache becomes labelling rows,
refused problems give none, and the AUC interval resamples whole problems."""
from __future__ import annotations

import json

from benchmarks.llm_gate import bootstrap_auc, teacher_rows


def test_kept_rewrites_become_rows_and_refused_problems_none(tmp_path):
    cache = tmp_path / "teacher.jsonl"
    cache.write_text(
        json.dumps({"problem": "A has 3 apples.", "rewrites": ["A owns 3 apples.", "There are 3 apples A has."],
                    "refused": "", "seconds": 4.0}) + "\n"
        + json.dumps({"problem": "B has 5 pens.", "rewrites": [], "refused": "numbers changed", "seconds": 9.0})
        + "\n", encoding="utf-8")
    rows = teacher_rows(cache)
    assert [r["text"] for r in rows] == ["A owns 3 apples.", "There are 3 apples A has."]
    assert {r["problem"] for r in rows} == {"A has 3 apples."}
    assert all(r["generator"] == "instruct_llm" and r["s_per_problem"] == 4.0 for r in rows)


def test_interval_resamples_problems_and_brackets_a_perfect_ranking():
    scores = [0.9, 0.8, 0.2, 0.1, 0.7, 0.3]
    ys = [1, 1, 0, 0, 1, 0]
    groups = ["p1", "p1", "p2", "p2", "p3", "p3"]
    lo, hi = bootstrap_auc(scores, ys, groups, rounds=200)
    assert lo == hi == 1.0
    lo, hi = bootstrap_auc([0.1, 0.2, 0.9, 0.8, 0.3, 0.7], ys, groups, rounds=200)
    assert lo == hi == 0.0
