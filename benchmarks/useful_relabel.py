"""Label the handed-out variants again, blind, with people's usefulness mixed in as a check.

Validity has always been checked against people (AQUA_test pairs in every batch); usefulness had no
such check, and batches labelled by different passes disagreed on it (one called 10 of 74 texts useful,
another 49). This benchmark builds batches of every distinct handed-out text of some handout runs that
the shared labels do not hold, each with 12 AQUA_test pairs (people's validity) and 10 shared labelled
candidates (people's usefulness, half "no"), and reads the passes into a store of their own
(``benchmarks/labels/useful_relabel.csv``, hashed like ``blind.csv``). The main store keeps the first
verdicts; the report compares the two and gives the handout's coverage under each, under both
(useful only if both labellings say so) and under either.

    python benchmarks/useful_relabel.py build var/use1 var/h3/judge.jsonl var/h5/judge.jsonl --chunks 4
    (two blind passes per chunk: var/use1/c*/pass_1.csv, pass_2.csv)
    python benchmarks/useful_relabel.py read var/use1 var/h3/judge.jsonl var/h5/judge.jsonl \
        --out docs/results/useful-relabel.md
"""
from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from blind import (REPO, label_key, make_blind_batch, read_blind_useful, shared_candidates,  # noqa: E402
                   stored_labels)

USEFUL_CHECKS = 10
RELABELLED = REPO / "benchmarks" / "labels" / "useful_relabel.csv"


def handed_out(runs: list[Path]) -> list[dict]:
    """Distinct (problem, variant) of the runs' ``judge.jsonl`` lines that the shared labels lack."""
    held = {(r["question"].strip(), r["augmented"].strip()) for r in shared_candidates()}
    seen: dict[tuple[str, str], dict] = {}
    for run in runs:
        for line in run.open(encoding="utf-8"):
            item = json.loads(line)
            for variant in item["variants"]:
                pair = (item["problem"].strip(), variant["text"].strip())
                if pair not in held and pair not in seen:
                    seen[pair] = {"problem": pair[0], "variant": pair[1]}
    return list(seen.values())


def build(work: Path, chunks: int, runs: list[Path], seed: int = 2026) -> list[int]:
    rows = handed_out(runs)
    random.Random(seed).shuffle(rows)
    return [make_blind_batch(work / f"c{c}", rows[c::chunks], seed=100 + c, useful=USEFUL_CHECKS)
            for c in range(chunks)]


def _coverage(run: Path, verdict) -> tuple[int, list[int]]:
    """(problems, valid-and-useful variants per problem) of a handout run under ``verdict(key)``."""
    counts = []
    for line in run.open(encoding="utf-8"):
        item = json.loads(line)
        counts.append(sum(verdict(label_key(item["problem"], v["text"])) for v in item["variants"]))
    return len(counts), counts


def read(work: Path, runs: list[Path], store: Path = RELABELLED) -> list[str]:
    from sklearn.metrics import cohen_kappa_score

    first = stored_labels()
    lines, labels = [f"Batches in `{work}`, read into `{store.relative_to(REPO)}`.", ""], {}
    for folder in sorted(p for p in work.iterdir() if (p / "blind_key.csv").is_file()):
        passes = sorted(folder.glob("pass_*.csv"))
        if not passes:
            raise SystemExit(f"{folder}: no labelling pass (pass_*.csv)")
        found, said = read_blind_useful(folder, passes, store=store)
        labels.update(found)
        lines += [f"Chunk `{folder.name}` ({len(found)} handed-out texts, {len(passes)} passes):", ""]
        lines += [f"- {line}" for line in said if line] + [""]
    again = stored_labels(store)
    keys = [label_key(*pair) for pair in labels]
    both = [k for k in keys if k in first]
    a, b = [int(first[k][1]) for k in both], [int(again[k][1]) for k in both]
    lines += [
        f"Texts labelled again: {len(keys)}, {len(both)} of them labelled before. Valid: {sum(first[k][0] for k in both)}"
        f" of {len(both)} before, {sum(again[k][0] for k in both)} now. Valid and useful: {sum(a)} before, {sum(b)} "
        f"now; the two labellings agree on {sum(x == y for x, y in zip(a, b))} of {len(both)} "
        f"(Cohen's kappa {cohen_kappa_score(a, b):.2f}).",
        "",
        "| handout run | usefulness from | problems | ≥ 1 valid & useful | ≥ 3 | ≥ 5 |",
        "|---|---|---|---|---|---|",
    ]
    people = {label_key(r["question"], r["augmented"]): r["final_label"] == "1" and r["useful"] == "yes"
              for r in shared_candidates()}
    rules = {  # a text the shared labels lack: (first, second or None where not labelled again) -> useful
        "the first labels": lambda a, b: a,
        "the second labels": lambda a, b: a if b is None else b,
        "both (all four passes)": lambda a, b: a and bool(b),
        "either": lambda a, b: a or bool(b),
    }

    def verdict(rule, key: str) -> bool:
        if key in people:
            return people[key]
        return rule(first.get(key, (False, False))[1], again[key][1] if key in again else None)

    for run in runs:
        for name, rule in rules.items():
            n, counts = _coverage(run, lambda key: verdict(rule, key))
            cells = " | ".join(f"{100 * sum(c >= t for c in counts) / n:.1f} %" for t in (1, 3, 5))
            lines.append(f"| `{run}` | {name} | {n} | {cells} |")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="step", required=True)
    b = sub.add_parser("build", help="write the blind batches")
    b.add_argument("work", type=Path)
    b.add_argument("runs", type=Path, nargs="+", help="handout runs' judge.jsonl")
    b.add_argument("--chunks", type=int, default=4)
    r = sub.add_parser("read", help="read the passes into their store and report")
    r.add_argument("work", type=Path)
    r.add_argument("runs", type=Path, nargs="+", help="handout runs' judge.jsonl, for the coverage table")
    r.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    if args.step == "build":
        sizes = build(args.work, args.chunks, args.runs)
        print(f"{len(sizes)} batches in {args.work}: {sizes} rows")
        return 0
    lines = read(args.work, args.runs)
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        args.out.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
