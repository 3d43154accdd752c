"""Benchmark step: the judge floor for neural generators' candidates (``PARALAB_NEURAL_FLOOR``),
fitted on blind labels of what a handout arm handed out.

    python benchmarks/handout.py --k 3 --arms llm --llm var/models/qwen2.5-coder-1.5b-instruct.gguf \\
        --work var/hllm                      # the handout with the LLM fallback (floor 0: the judge's own)
    python benchmarks/neural_floor.py --arm var/hllm/llm.jsonl --labelled var/hllm/llm-fallback-1 ...

Among the handed-out variants of neural generators (``kind == "neural"``: the instruct LLM, STEAD,
PAP) that carry a label (shared labels, the named blind batches, the hashed store), it picks the
floor on the judge's probability that maximises F0.5 of the valid class (how the judge's own handout
floor is chosen), reports a leave-one-problem-out estimate of the valid share it keeps (the floor
refitted without each problem, applied to it), and the handout as it would have been had the floor
refused those variants: they are removed and nothing takes their place, so coverage is a lower
bound and the valid share an estimate (a rule variant that would fill the slot is not counted).

The arm's problems are validation data (AQuA dev of the labelled set); results go to
``docs/results/neural-floor.md``.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO / "benchmarks"), str(REPO)]
OUT = REPO / "docs" / "results" / "neural-floor.md"
HEAD = "# A stricter judge floor for neural generators' candidates\n\n"

from blind import LabelLookup, read_blind_dirs, stored_labels  # noqa: E402
from handout import fmt, labels, summarise  # noqa: E402
from results import prepend_run  # noqa: E402


def f_beta(kept: list[bool], total_valid: int, beta: float = 0.5) -> float:
    """F-beta of the valid class when ``kept`` (labels of what passes) is handed out."""
    if not kept or not total_valid:
        return 0.0
    precision, recall = sum(kept) / len(kept), sum(kept) / total_valid
    if precision + recall == 0:
        return 0.0
    return (1 + beta ** 2) * precision * recall / (beta ** 2 * precision + recall)


def fit_floor(items: list[tuple[float, bool]]) -> float:
    """The floor (a candidate passes when its probability exceeds it) maximising F0.5 of the valid
    class over ``items`` (probability, valid); 0.0 when nothing beats passing everything. Ties go
    to the lower floor (keep more).

    >>> fit_floor([(0.9, True), (0.8, True), (0.7, False), (0.6, True)])
    0.7
    """
    total_valid = sum(valid for _, valid in items)
    best, best_score = 0.0, f_beta([v for _, v in items], total_valid)
    for floor in sorted({p for p, _ in items}):
        score = f_beta([v for p, v in items if p > floor], total_valid)
        if score > best_score + 1e-12:
            best, best_score = floor, score
    return best


def leave_one_problem_out(by_problem: dict[str, list[tuple[float, bool]]]) -> tuple[int, int]:
    """(kept, valid among kept) when each problem's variants meet the floor fitted on the others."""
    kept = valid = 0
    for problem, items in by_problem.items():
        rest = [item for other, group in by_problem.items() if other != problem for item in group]
        floor = fit_floor(rest)
        passed = [v for p, v in items if p > floor]
        kept, valid = kept + len(passed), valid + sum(passed)
    return kept, valid


SELF_CHECK = ("You check rewrites of math word problems for a teacher. A rewrite is correct only if it keeps every "
              "fact, number, unit and relation of the original, loses nothing, adds nothing, and asks exactly the "
              "same question. Answer with one word: Yes or No.")


def self_check_scores(pairs: list[tuple[str, str]], gguf: Path, threads: int = 0) -> list[float]:
    """The instruct LLM asked whether each rewrite keeps every fact and the question (llama.cpp,
    greedy, one token): P(Yes) / (P(Yes) + P(No)) over its top 20 first tokens."""
    import math
    import os

    from llama_cpp import Llama

    model = Llama(model_path=str(gguf), n_ctx=2048, n_threads=threads or os.cpu_count() or 1, logits_all=True,
                  verbose=False)
    scores = []
    for original, rewrite in pairs:
        messages = [{"role": "system", "content": SELF_CHECK},
                    {"role": "user", "content": f"Original: {original}\n\nRewrite: {rewrite}\n\nIs the rewrite correct?"}]
        out = model.create_chat_completion(messages=messages, max_tokens=1, temperature=0, logprobs=True,
                                           top_logprobs=20)
        top = out["choices"][0]["logprobs"]["content"][0]["top_logprobs"]
        yes = sum(math.exp(t["logprob"]) for t in top if t["token"].strip().lower() == "yes")
        no = sum(math.exp(t["logprob"]) for t in top if t["token"].strip().lower() == "no")
        scores.append(yes / (yes + no) if yes + no else 0.5)
    return scores


def neural_names() -> set[str]:
    from ml.generation import GENERATORS

    return {name for name, generator in GENERATORS.items() if generator.kind == "neural"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--arm", type=Path, required=True, help="a handout arm's output (handout.py --work …/llm.jsonl)")
    parser.add_argument("--labelled", type=Path, nargs="*", default=[], help="blind batches labelling its variants")
    parser.add_argument("--k", type=int, default=3)
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--llm", type=Path, default=None,
                        help="a GGUF instruct model (make llm): also rank by its own yes/no check of each rewrite")
    args = parser.parse_args()

    gold = labels()
    earlier, lines = read_blind_dirs(args.labelled)
    blind = LabelLookup(earlier, store=stored_labels())
    rows = [json.loads(line) for line in args.arm.read_text().splitlines() if line.strip()]
    neural = neural_names()

    def label(problem: str, text: str) -> bool | None:
        key = (problem.strip(), text.strip())
        if key in gold:
            return gold[key]["final_label"] == "1"
        return blind[key][0] if key in blind else None

    by_problem: dict[str, list[tuple[float, bool]]] = {}
    pairs: list[tuple[str, str, bool, float]] = []
    unlabelled = 0
    for row in rows:
        for v in row["variants"]:
            if v["generator"] not in neural:
                continue
            found = label(row["problem"], v["text"])
            if found is None:
                unlabelled += 1
                continue
            by_problem.setdefault(row["problem"], []).append((float(v["valid_probability"]), bool(found)))
            pairs.append((row["problem"], v["text"], bool(found), float(v["valid_probability"])))
    items = [item for group in by_problem.values() for item in group]
    if not items:
        raise SystemExit(f"{args.arm}: no labelled neural variant")
    floor = fit_floor(items)
    from sklearn.metrics import roc_auc_score

    auc = roc_auc_score([v for _, v in items], [p for p, _ in items]) if len({v for _, v in items}) > 1 else None
    self_line = ""
    if args.llm is not None and auc is not None:
        from scipy.stats import rankdata

        started = time.perf_counter()
        checks = self_check_scores([(q, t) for q, t, _, _ in pairs], args.llm)
        truth = [v for _, _, v, _ in pairs]
        judge = [p for _, _, _, p in pairs]
        both = (rankdata(checks) + rankdata(judge)) / 2
        self_line = (f"The instruct LLM's own yes/no check ({args.llm.name}, llama.cpp, "
                     f"{(time.perf_counter() - started) / len(pairs):.1f} s a pair) ranks them at ROC AUC "
                     f"{roc_auc_score(truth, checks):.2f}; its rank averaged with the judge's, "
                     f"{roc_auc_score(truth, both):.2f}.\n")
    kept = [v for p, v in items if p > floor]
    lopo_kept, lopo_valid = leave_one_problem_out(by_problem)

    def without(limit: float) -> list[dict]:
        return [dict(row, variants=[v for v in row["variants"]
                                    if v["generator"] not in neural or float(v["valid_probability"]) > limit])
                for row in rows]

    runs = {"as run (the judge's own floor)": rows, f"neural floor {floor:.4f} (variants under it removed)": without(floor)}
    stamp = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    out = [f"## Run of {stamp}\n",
           f"Command: `python benchmarks/neural_floor.py --arm {args.arm.relative_to(REPO) if args.arm.is_relative_to(REPO) else args.arm} "
           f"--labelled {' '.join(str(p.relative_to(REPO) if p.is_relative_to(REPO) else p) for p in args.labelled)} "
           f"--k {args.k}{' --llm ' + str(args.llm) if args.llm else ''}`\n",
           f"Data: {len(rows)} problems of the arm (validation problems); {len(items)} labelled neural variants over "
           f"{len(by_problem)} problems ({sum(v for _, v in items)} valid), {unlabelled} unlabelled. A variant is valid "
           "only when every blind pass says so.\n", *[line for line in lines if line], "",
           f"The judge's probability ranks them at ROC AUC {fmt(auc, False) if auc is not None else '–'}.\n",
           self_line,
           f"**Fitted floor: {floor:.4f}** (maximises F0.5 of the valid class): keeps {len(kept)} of {len(items)}, "
           f"{fmt(sum(kept) / len(kept) if kept else None)} valid (in-sample; {fmt(sum(v for _, v in items) / len(items))} "
           f"without it). Leave one problem out (floor refitted without each problem): keeps {lopo_kept}, "
           f"{fmt(lopo_valid / lopo_kept if lopo_kept else None)} valid.\n",
           "| handout | variants per problem | valid among labelled | problems with ≥ 1 valid & useful (est.) | ≥ 3 (est.) | ≥ 5 (est.) |",
           "|---|---|---|---|---|---|"]
    for name, variant_rows in runs.items():
        s = summarise(variant_rows, gold, blind, args.k)
        out.append(f"| {name} | {fmt(s['mean_variants'], False)} | {fmt(s['valid_share_known'])} "
                   f"({s['valid'] + s['blind_valid']} of {s['labelled'] + s['blind']}) | "
                   f"{fmt(s['problems_with_1_useful_est'])} | {fmt(s['problems_with_3_useful_est'])} | "
                   f"{fmt(s['problems_with_5_useful_est'])} |")
    text = "\n".join(out) + "\n"
    print(text)
    prepend_run(args.out, HEAD, text)


if __name__ == "__main__":
    main()
