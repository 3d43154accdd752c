"""Benchmark: each generator's output, judged by what a teacher would accept.

    PARALAB_TORCH_THREADS=2 python benchmarks/generators.py [--problems 60] [--per-generator 16]
        [--llm var/models/qwen2.5-coder-1.5b-instruct.gguf] [--with-handout var/handout]
    python benchmarks/generators.py --reuse --blind var/generators/pass1.csv var/generators/pass2.csv

For the AQuA dev problems of the shared labelled set (``labels/aqua_dev_candidates_val.csv``,
validation data) it runs every registered rule generator (the default set and the optional
ones), the instruct LLM when ``--llm`` names a GGUF file, and STEAD/PAP when ``--stead``/``--pap``
name trained versions. Each candidate is looked up in the labels; a random sample of the
unlabelled ones per generator goes into a shuffled blind batch (no generator shown; AQUA_test pairs
with people's labels mixed in, ``benchmarks/blind.py``), optionally with the unlabelled variants
``handout.py`` handed out (``--with-handout``), so one labelling serves both reports.

Per generator: problems it applies to, candidates, seconds per candidate, the valid and
valid-and-useful share among the labelled (shared labels + blind, valid only when every pass says
so), and the estimated share of problems with ≥ 1 and ≥ 3 valid-and-useful candidates (labelled
candidates counted as labelled, the others at the generator's valid-and-useful rate). Results go to
``docs/results/handout.md`` as a "By generator" section, beside what ``paraphrase`` hands out.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from collections import defaultdict
from datetime import datetime, timezone
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO), str(REPO / "benchmarks")]
from benchmarks.results import prepend_run  # noqa: E402
DATA = REPO.parent / "shared" / "data"
OUT = REPO / "docs" / "results" / "handout.md"  # beside what paraphrase hands out

from blind import (LabelLookup, at_least, make_blind_batch, read_blind_dirs, read_blind_useful,  # noqa: E402
                   shared_candidates, stored_labels)


def gold_labels() -> dict[tuple[str, str], tuple[bool, bool]]:
    return {(r["question"].strip(), r["augmented"].strip()): (r["final_label"] == "1", r["useful"].strip() == "yes")
            for r in shared_candidates()}


def before_repairs() -> dict[str, tuple[int, int]]:
    """(valid, labelled) per generator in the shared labels: the earlier, unrepaired generators'
    candidates on the AQuA dev problems."""
    out: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for r in shared_candidates():
        out[r["generator"]][0] += r["final_label"] == "1"
        out[r["generator"]][1] += 1
    return {k: (v[0], v[1]) for k, v in out.items()}


def run(problems: list[str], names: list[str], resources, out: Path) -> None:
    from ml.generation import generate

    with out.open("w", encoding="utf-8") as handle:
        for i, problem in enumerate(problems):
            for name in names:
                started = time.perf_counter()
                candidates, refusals = generate([name], problem, 3407 + i, resources)
                seconds = time.perf_counter() - started
                handle.write(json.dumps({"problem": problem, "generator": name, "seconds": seconds,
                                         "texts": [c.text for c in candidates], "refusal": refusals.get(name, "")})
                             + "\n")
            handle.flush()
            print(f"{i + 1}/{len(problems)}", flush=True)


def summarise(rows: list[dict], labels: dict) -> dict[str, dict]:
    by_name: dict[str, list[dict]] = defaultdict(list)
    for row in rows:
        by_name[row["generator"]].append(row)
    out = {}
    for name, items in by_name.items():
        texts = [(r["problem"].strip(), t.strip()) for r in items for t in r["texts"]]
        known = [labels[t] for t in dict.fromkeys(texts) if t in labels]
        valid = sum(v for v, _ in known)
        useful = sum(u for _, u in known)
        rate = useful / len(known) if known else None
        cover1 = cover3 = None
        if rate is not None:
            ones, threes = [], []
            for r in items:
                ps = [float(labels[(r["problem"].strip(), t.strip())][1]) if (r["problem"].strip(), t.strip()) in labels
                      else rate for t in dict.fromkeys(r["texts"])]
                ones.append(at_least(ps, 1))
                threes.append(at_least(ps, 3))
            cover1, cover3 = sum(ones) / len(items), sum(threes) / len(items)
        n = sum(len(r["texts"]) for r in items)
        out[name] = {
            "problems": len(items), "applies": sum(bool(r["texts"]) for r in items) / len(items), "candidates": n,
            "seconds_per_candidate": sum(r["seconds"] for r in items) / n if n else None,
            "labelled": len(known), "valid": valid / len(known) if known else None,
            "valid_useful": rate, "cover1": cover1, "cover3": cover3,
        }
    return out


def fmt(v, pct=True):
    if v is None:
        return "–"
    return f"{100 * v:.0f} %" if pct else f"{v:.2f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--problems", type=int, default=60, help="the first N problems (0: all)")
    parser.add_argument("--offset", type=int, default=0,
                        help="skip the set's first problems (a fresh slice to confirm a repaired rule)")
    parser.add_argument("--problem-set", choices=("aqua-dev-labelled", "aqua-test", "aqua-train", "gsm8k-train"),
                        default="aqua-dev-labelled",
                        help="the labelled set's AQuA dev problems, AQuA test questions (for generators trained "
                             "on AQuA dev questions: STEAD, PAP), or GSM8K train problems (fresh problems to "
                             "confirm a rule repaired on the AQuA labels)")
    parser.add_argument("--per-generator", type=int, default=16, help="unlabelled candidates per generator to label")
    parser.add_argument("--generators", default="", help="comma-separated names (default: every rule generator)")
    parser.add_argument("--llm", type=Path, default=None, help="a GGUF instruct model: run instruct_llm too")
    parser.add_argument("--stead", type=Path, default=None, help="a trained STEAD version's folder")
    parser.add_argument("--pap", type=Path, default=None, help="a trained PAP version's folder")
    parser.add_argument("--with-handout", type=Path, default=None,
                        help="a handout.py work folder: its unlabelled handed-out variants join the blind batch")
    parser.add_argument("--handout-sample", type=int, default=100)
    parser.add_argument("--work", type=Path, default=REPO / "var" / "generators")
    parser.add_argument("--blind", type=Path, nargs="*", default=None, help="labelling passes over the batch")
    parser.add_argument("--reuse", action="store_true", help="read the candidates of an earlier run from --work")
    parser.add_argument("--labelled", type=Path, nargs="*", default=[],
                        help="folders of earlier labelled batches (blind_batch.csv, blind_key.csv, pass_*.csv): their "
                             "labels count, and a new batch only tops each generator up to --per-generator labels")
    parser.add_argument("--pool", type=Path, nargs="*", default=[],
                        help="handout.py arm outputs (*.jsonl) whose labelled variants also count in the pooled "
                             "table (every labelled text each generator gave, on any problem)")
    parser.add_argument("--add", type=Path, nargs="*", default=[],
                        help="more candidates.jsonl files to read beside --work's (e.g. another generator's run)")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()

    from ml.generation import GENERATORS, GenerationResources, is_default

    gold = gold_labels()
    if args.problem_set == "aqua-test":
        lines_ = (DATA / "aqua" / "test.json").read_text(encoding="utf-8").splitlines()
        problems = list(dict.fromkeys(json.loads(line)["question"] for line in lines_ if line.strip()))
    elif args.problem_set in ("gsm8k-train", "aqua-train"):  # fresh problems to confirm a repaired rule
        lines_ = (DATA / args.problem_set.split("-")[0] / "train.jsonl").read_text(encoding="utf-8").splitlines()
        problems = list(dict.fromkeys(json.loads(line)["question"] for line in lines_ if line.strip()))
    else:
        problems = list(dict.fromkeys(q for q, _ in gold))
    problems = problems[args.offset:]
    if args.problems:
        problems = problems[:args.problems]
    resources = GenerationResources(
        wordnet_dir=str(REPO / "var" / "nltk_data"),
        llm_dir=str(args.llm.parent) if args.llm else None, llm_file=args.llm.name if args.llm else None,
        stead_model=str(args.stead) if args.stead else None, pap_model=str(args.pap) if args.pap else None)
    if args.generators:
        names = [n.strip() for n in args.generators.split(",") if n.strip()]
    else:
        names = [n for n, g in GENERATORS.items() if g.kind == "rule" and g.unavailable_reason(resources) is None]
        names += [n for n in ("instruct_llm", "stead", "pap") if GENERATORS[n].unavailable_reason(resources) is None]
    args.work.mkdir(parents=True, exist_ok=True)
    path = args.work / "candidates.jsonl"
    started = time.perf_counter()
    if not args.reuse:
        run(problems, names, resources, path)
    rows = [json.loads(line) for extra in [path, *args.add] for line in extra.read_text().splitlines()]
    rows = [r for r in rows if r["problem"] in set(problems)]
    earlier, earlier_lines = read_blind_dirs(args.labelled)
    blind, agreement = read_blind_useful(args.work, args.blind or [])
    agreement = earlier_lines + agreement
    # Labels of earlier sessions' batches come from the hashed store (benchmarks/labels/blind.csv).
    labels = LabelLookup(blind, earlier, gold, store=stored_labels())
    if not args.blind and list(args.work.glob("pass_*.csv")):
        print(f"{args.work} holds labelling passes of its batch: no new batch written (pass --blind to read them)")
    elif not args.blind:
        rng = random.Random(3407)
        sample: dict[tuple[str, str], dict] = {}
        by_name: dict[str, list[tuple[str, str]]] = defaultdict(list)
        known: dict[str, set[tuple[str, str]]] = defaultdict(set)
        for row in rows:
            for text in row["texts"]:
                key = (row["problem"].strip(), text.strip())
                if key in labels:
                    known[row["generator"]].add(key)
                else:
                    by_name[row["generator"]].append((row["problem"], text))
        for name, pairs in by_name.items():
            unique = list(dict.fromkeys(pairs))
            need = max(0, args.per_generator - len(known[name]))
            for problem, text in rng.sample(unique, min(need, len(unique))):
                sample[(problem, text)] = {"problem": problem, "variant": text}
        if args.with_handout:
            for arm in ("judge", "paper", "llm"):
                arm_file = args.with_handout / f"{arm}.jsonl"
                if not arm_file.is_file():
                    continue
                handed = [(r["problem"], v["text"]) for r in map(json.loads, arm_file.read_text().splitlines())
                          for v in r["variants"] if (r["problem"].strip(), v["text"].strip()) not in labels]
                handed = list(dict.fromkeys(handed))
                for problem, text in rng.sample(handed, min(args.handout_sample, len(handed))):
                    sample[(problem, text)] = {"problem": problem, "variant": text}
        # another round's batch gets other AQUA_test checks
        size = make_blind_batch(args.work, list(sample.values()), seed=3407 + len(args.labelled))
        print(f"blind batch: {size} rows in {args.work / 'blind_batch.csv'}")
    results = summarise(rows, labels)
    stamp = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        f"## By generator: run of {stamp}", "",
        f"Command: `python benchmarks/generators.py --problems {args.problems} --problem-set {args.problem_set}"
        f"{' --offset ' + str(args.offset) if args.offset else ''}"
        f"{' --llm ' + str(args.llm) if args.llm else ''}"
        f"{' --blind ' + ' '.join(map(str, args.blind)) if args.blind else ''}` "
        f"({os.cpu_count()} cores, no GPU; {time.perf_counter() - started:.0f} s for this call).", "",
        (f"Data: the first {len(problems)} AQuA dev problems of `labels/aqua_dev_candidates_val.csv` (validation). "
         if args.problem_set == "aqua-dev-labelled" else
         f"Data: the first {len(problems)} AQuA test questions (never trained on; STEAD and PAP train on AQuA dev). "
         if args.problem_set == "aqua-test" else
         f"Data: {len(problems)} {'GSM8K' if args.problem_set == 'gsm8k-train' else 'AQuA'} train problems from "
         f"number {args.offset + 1} on (fresh problems for rule generators). ")
        +
        "Labels: the shared labels where they hold the text, else the blind passes (valid only when every pass "
        "says so; useful only when every pass says useful).", "",
        *agreement,
        "| generator | default set | applies to | candidates | s/candidate | labelled | valid | valid & useful "
        "| problems with ≥ 1 valid & useful (est.) | with ≥ 3 (est.) | before the repairs: valid (labelled) |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    before = before_repairs()
    for name in names:
        r = results.get(name)
        if r is None:
            continue
        was = before.get(name)
        lines.append(f"| {name} | {'yes' if is_default(name) else 'no'} | {fmt(r['applies'])} | {r['candidates']} | "
                     f"{fmt(r['seconds_per_candidate'], False)} | {r['labelled']} | {fmt(r['valid'])} | "
                     f"{fmt(r['valid_useful'])} | {fmt(r['cover1'])} | {fmt(r['cover3'])} | "
                     f"{fmt(was[0] / was[1]) + f' ({was[1]})' if was else '–'} |")
    if args.pool:
        seen: dict[tuple[str, str], set[str]] = defaultdict(set)
        for row in rows:
            for text in row["texts"]:
                seen[(row["problem"].strip(), text.strip())].add(row["generator"])
        for arm_file in args.pool:
            for arm_row in map(json.loads, arm_file.read_text().splitlines()):
                for v in arm_row["variants"]:
                    seen[(arm_row["problem"].strip(), v["text"].strip())].add(v["generator"])
        pooled: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
        for key, makers in seen.items():
            if key in labels:
                for maker in makers:
                    pooled[maker][0] += labels[key][0]
                    pooled[maker][1] += labels[key][1]
                    pooled[maker][2] += 1
        lines += ["", "Pooled: every labelled text each generator gave, on the benchmark's problems and in the "
                  "handout arms (" + ", ".join(f"`{p.relative_to(REPO) if p.is_relative_to(REPO) else p}`"
                                               for p in args.pool) + "), on any of the 130 problems:", "",
                  "| generator | default set | labelled | valid | valid & useful |", "|---|---|---|---|---|"]
        for name in sorted(pooled, key=lambda n: (not is_default(n), n)):
            v, u, n = pooled[name]
            lines.append(f"| {name} | {'yes' if is_default(name) else 'no'} | {n} | {fmt(v / n)} | {fmt(u / n)} |")
    report = "\n".join(lines) + "\n"
    print(report)
    prepend_run(args.out, "# What `paraphrase` hands out\n\n", report)
    (args.work / "summary.json").write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
