"""Benchmark: which check can gate the instruct LLM's rewrites (what a handout of them would need)?

    python benchmarks/llm_gate.py dump --teacher var/pap-teacher/teacher.jsonl --dump var/llm-gate/outputs.jsonl
    python benchmarks/neural_labels.py make --dump var/llm-gate/outputs.jsonl --batch var/llm-gate/batch
    # two independent labelling passes of var/llm-gate/batch/blind_batch.csv (labels/GUIDELINES.md)
    python benchmarks/llm_gate.py read --dump var/llm-gate/outputs.jsonl --batch var/llm-gate/batch \\
        --llm var/models/qwen2.5-coder-1.5b-instruct.gguf

``dump`` turns the rewrites the LLM kept (after its number constraints, the number/name guard and
the content check: what ``instruct_llm`` returns) into rows ``neural_labels.py`` reads; the teacher
cache of ``benchmarks/pap_teacher.py`` holds them. ``read`` scores every labelled rewrite with each
check the platform has, alone, and reports its ROC AUC against the blind labels (valid only when
every pass says so) with a bootstrap interval resampled by problem: the shipped judge's calibrated
probability, each of its features (signed as the judge may weigh it), and with ``--llm`` the LLM
check (``ml.judge.llm_check``: the instruct LLM asked whether the rewrite is the same problem). Nothing
is fitted on these labels, so every number is a measurement, not a fit
(``docs/results/llm-gate.md``).
"""
from __future__ import annotations

import argparse
import json
import random
import sys
from collections import defaultdict
from datetime import datetime, timezone
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO)]
OUT = REPO / "docs" / "results" / "llm-gate.md"

from benchmarks.blind import read_blind_useful  # noqa: E402
from benchmarks.neural_labels import outputs, shipped_judge_scores  # noqa: E402
from benchmarks.results import prepend_run  # noqa: E402


def teacher_rows(teacher: Path, generator: str = "instruct_llm") -> list[dict]:
    """The kept rewrites of a ``pap_teacher.py`` cache as ``neural_labels.py`` dump rows."""
    rows = []
    for line in teacher.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        item = json.loads(line)
        for text in item["rewrites"]:
            rows.append({"set": "training corpus (GSM8K train, AQuA dev)", "problem": item["problem"],
                         "generator": generator, "text": text,
                         "s_per_problem": item["seconds"]})
    return rows


def bootstrap_auc(scores: list[float], ys: list[int], groups: list[str], rounds: int = 1000,
                  seed: int = 3407) -> tuple[float, float]:
    """95 % interval of the ROC AUC, resampling problems (a problem's rewrites stay together)."""
    from ml.metrics.classification import roc_auc

    by_group = defaultdict(list)
    for i, g in enumerate(groups):
        by_group[g].append(i)
    keys = sorted(by_group)
    rng = random.Random(seed)
    values = []
    for _ in range(rounds):
        idx = [i for g in (rng.choice(keys) for _ in keys) for i in by_group[g]]
        y = [ys[i] for i in idx]
        if 0 < sum(y) < len(y):
            values.append(roc_auc([scores[i] for i in idx], y))
    values.sort()
    return values[int(0.025 * len(values))], values[int(0.975 * len(values)) - 1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("step", choices=("dump", "read"))
    parser.add_argument("--teacher", type=Path, help="dump: pap_teacher.py's teacher.jsonl")
    parser.add_argument("--dump", type=Path, required=True, help="the rewrites (dump writes it, read reads it)")
    parser.add_argument("--batch", type=Path, help="read: the blind batch folder with its pass_*.csv")
    parser.add_argument("--llm", help="read: the LLM check's model (a .gguf path, or smollm2)")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    if args.step == "dump":
        rows = teacher_rows(args.teacher)
        args.dump.parent.mkdir(parents=True, exist_ok=True)
        args.dump.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        print(f"{args.dump}: {len(rows)} rewrites of {len({r['problem'] for r in rows})} problems")
        return

    from ml.judge import ALL_FEATURE_NAMES
    from ml.judge.features import FEATURE_SIGNS
    from ml.metrics.classification import roc_auc

    passes = sorted(args.batch.glob("pass_*.csv"))
    labels, agreement = read_blind_useful(args.batch, passes, store=False)
    rows = [r for r in outputs(args.dump) if (r["problem"].strip(), r["text"].strip()) in labels]
    labelled = list(dict.fromkeys((r["problem"].strip(), r["text"].strip()) for r in rows))
    ys = [int(labels[p][0]) for p in labelled]
    groups = [p[0] for p in labelled]
    problems, texts = [p[0] for p in labelled], [p[1] for p in labelled]
    scores: dict[str, list[float]] = {}
    probabilities, floor, features = shipped_judge_scores(labelled)
    scores["shipped judge (calibrated probability)"] = probabilities
    vectors = [f.vector(ALL_FEATURE_NAMES) for f in features]
    for i, name in enumerate(ALL_FEATURE_NAMES):
        values = [v[i] * FEATURE_SIGNS[name] for v in vectors]
        if len(set(values)) > 1:
            scores[f"feature: {name} (signed {FEATURE_SIGNS[name]:+d})"] = values
    if args.llm:
        from ml.judge.llm_check import InstructLLMCheck

        check = InstructLLMCheck(args.llm, "cpu")
        scores[f"LLM check ({Path(args.llm).name}, log P(Yes) - log P(No))"] = check.score_pairs(problems, texts)
    lines = [f"## Run of {datetime.now(timezone.utc).strftime('%Y-%m-%d %H:%M UTC')}", "",
             f"Command: `python benchmarks/llm_gate.py read --dump {args.dump} --batch {args.batch}"
             + (f" --llm {args.llm}" if args.llm else "") + "` (2 cores, no GPU).", "",
             f"Data: {len(labelled)} distinct rewrites the instruct LLM kept (its number constraints, guard and "
             f"content check passed) of {len(set(groups))} problems, labelled blind with {len(passes)} independent "
             f"passes following `labels/GUIDELINES.md`, mixed with other generators' outputs and AQUA_test pairs; "
             f"valid only when every pass says so: **{sum(ys)} of {len(ys)} valid**. Nothing here is fitted on "
             "these labels.", "", *agreement, "",
             "| check | ROC AUC | 95 % interval (problems resampled) |", "|---|---|---|"]
    ranked = []
    for name, values in scores.items():
        if 0 < sum(ys) < len(ys):
            auc = roc_auc(values, ys)
            lo, hi = bootstrap_auc(values, ys, groups)
            ranked.append((auc, f"| {name} | {auc:.3f} | {lo:.2f}–{hi:.2f} |"))
    lines += [line for _, line in sorted(ranked, reverse=True)]
    passed = [y for p, y in zip(probabilities, ys) if p > floor]
    lines += ["", f"The shipped judge's handout floor ({floor:.3f}) passes {len(passed)} of {len(ys)}; "
              f"valid among them {sum(passed)} of {len(passed)}."]
    text = "\n".join(lines) + "\n"
    print(text)
    prepend_run(args.out, "# What could gate the instruct LLM's rewrites\n\n", text)


if __name__ == "__main__":
    main()
