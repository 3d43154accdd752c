"""Benchmark: genuinely reworded variants that stay the same problem (the instruct LLM rewords,
solving decides), labelled blind.

    python benchmarks/reworded.py run --problem-set aqua-test --offset 200 --problems 30 --k 5 --work var/rw
    python benchmarks/reworded.py batch --work var/rw          # blind_batch.csv for the labelling passes
    python benchmarks/reworded.py report --work var/rw --passes var/rw/pass1.csv var/rw/pass2.csv

``run`` calls the platform's own ``paraphrase_variants`` with its defaults (the rules, then the
instruct LLM's verified rewrites; the shipped judge deciding) on a fresh SQLite database in this
process, the LLM loaded and warmed first (a warm server), and records per problem the seconds to
the rule variants, to the first verified LLM rewrite and to the whole answer, and every handed-out
variant. ``batch`` shuffles every handed-out variant with AQUA_test pairs (people's labels) into one
blind file without the generator; ``report`` reads two or more labelling passes (columns ``id``,
``valid`` 1/0, ``reason``, ``useful`` yes/no, ``depth`` 0/1/2, following the shared GUIDELINES.md),
reports agreement and each pass against people, and the valid share, the valid share among the
LLM's rewrites, and the share of problems with at least 1 and 3 valid depth-2 variants (a variant
counts as valid when every pass says so, depth 2 when every pass says 2). Results go to
``docs/results/reworded.md``, the current run on top.
"""
from __future__ import annotations

import argparse
import csv
import json
import os
import statistics
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DATA = REPO.parent / "shared" / "data"
OUT = REPO / "docs" / "results" / "reworded.md"
LLM = "instruct_llm"
CHECKS = 10  # AQUA_test pairs mixed into a batch


def aqua_test_problems() -> list[str]:
    lines = (DATA / "aqua" / "test.json").read_text(encoding="utf-8").splitlines()
    return list(dict.fromkeys(json.loads(line)["question"].strip() for line in lines if line.strip()))


def aqua_dev_problems() -> list[str]:
    lines = (DATA / "aqua" / "dev.json").read_text(encoding="utf-8").splitlines()
    return list(dict.fromkeys(json.loads(line)["question"].strip() for line in lines if line.strip()))


PROBLEM_SETS = {"aqua-test": aqua_test_problems, "aqua-dev": aqua_dev_problems}


def run(args: argparse.Namespace) -> None:
    problems = PROBLEM_SETS[args.problem_set]()[args.offset:args.offset + args.problems]
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix="reworded-")
    os.environ.update(PARALAB_DATA_DIR=tmp, PARALAB_SHIPPED_JUDGE="1", PARALAB_LLM="1",
                      DJANGO_SETTINGS_MODULE="paralab.settings",
                      PARALAB_LLM_DIR=str(Path(args.llm).resolve().parent), PARALAB_LLM_FILE=Path(args.llm).name)
    os.environ.pop("DATABASE_URL", None)
    sys.path[:0] = [str(REPO / "platform"), str(REPO)]
    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    from modelhub.resources import generation_resources
    from paraphrases.generation import GenerationError
    from paraphrases.handout import llm_warm_up, paraphrase_variants

    started = time.perf_counter()
    warm = llm_warm_up(generation_resources())
    # A warm server: the judge, encoder, spaCy and fluency LM load on a first problem not measured.
    paraphrase_variants(text="A box holds 3 pens. How many pens are in 2 boxes?", k=1)
    print(f"warm: {warm}; everything in {time.perf_counter() - started:.1f} s", flush=True)
    out = work / "run.jsonl"
    with out.open("w", encoding="utf-8") as handle:
        for n, text in enumerate(problems, start=1):
            t0 = time.perf_counter()
            seen: dict[str, float | None] = {"rules": None, "first_llm": None}

            def partial(answer: dict) -> None:
                now = time.perf_counter() - t0
                if seen["rules"] is None:
                    seen["rules"] = now
                if seen["first_llm"] is None and any(v["generator"] == LLM for v in answer["variants"]):
                    seen["first_llm"] = now

            try:
                result = paraphrase_variants(text=text, k=args.k, on_partial=partial)
            except GenerationError as exc:
                result = {"variants": [], "message": str(exc), "llm": {}, "candidates": 0}
            row = {"problem": text, "seconds": round(time.perf_counter() - t0, 3), "rules_seconds": seen["rules"],
                   "first_llm_seconds": seen["first_llm"], "llm": result.get("llm"), "message": result.get("message"),
                   "candidates": result.get("candidates"),
                   "variants": [{"text": v["text"], "generator": v["generator"], "valid_probability": v["valid_probability"],
                                 "reworded": v.get("reworded"),
                                 "same_answer": next((r["detail"] for r in v["reasons"] if r["check"] == "same answer"),
                                                     None)} for v in result["variants"]]}
            handle.write(json.dumps(row) + "\n")
            handle.flush()
            llm_n = sum(v["generator"] == LLM for v in row["variants"])
            print(f"{n}/{len(problems)} {row['seconds']:.1f} s, {len(row['variants'])} variants ({llm_n} LLM), "
                  f"first LLM {row['first_llm_seconds']}", flush=True)
    (work / "run.json").write_text(json.dumps({"problem_set": args.problem_set, "offset": args.offset,
                                               "problems": len(problems), "k": args.k, "llm": args.llm,
                                               "threads": settings.PARALAB_LLM_THREADS,
                                               "samples": settings.PARALAB_LLM_SAMPLES,
                                               "budget_s": settings.PARALAB_LLM_BUDGET_S,
                                               "command": " ".join(sys.argv)}))


def rows_of(work: Path) -> list[dict]:
    return [json.loads(line) for line in (work / "run.jsonl").read_text(encoding="utf-8").splitlines() if line.strip()]


def batch(args: argparse.Namespace) -> None:
    sys.path.insert(0, str(REPO))
    from benchmarks.blind import make_blind_batch

    work = Path(args.work)
    rows = [{"problem": r["problem"], "variant": v["text"]} for r in rows_of(work) for v in r["variants"]]
    size = make_blind_batch(work, rows, seed=args.seed, checks=CHECKS)
    print(f"{size} rows ({len(rows)} handed-out variants, {CHECKS} AQUA_test pairs) in {work / 'blind_batch.csv'}")


def _valid(value: str) -> int:
    return int((value or "").strip().lower() in ("1", "true", "yes", "valid"))


def _kappa(a: list[int], b: list[int]) -> float:
    from sklearn.metrics import cohen_kappa_score

    return float(cohen_kappa_score(a, b)) if len(set(a) | set(b)) > 1 else 1.0


def report(args: argparse.Namespace) -> None:
    work = Path(args.work)
    meta = json.loads((work / "run.json").read_text())
    batch_rows = {r["id"]: r for r in csv.DictReader(open(work / "blind_batch.csv", newline="", encoding="utf-8"))}
    key = {r["id"]: r for r in csv.DictReader(open(work / "blind_key.csv", newline="", encoding="utf-8"))}
    passes = [{r["id"].strip(): r for r in csv.DictReader(open(p, newline="", encoding="utf-8"))} for p in args.passes]
    ids = sorted(batch_rows, key=int)
    for path, said in zip(args.passes, passes):
        missing = set(ids) - set(said)
        if missing:
            raise SystemExit(f"{path}: no label for {len(missing)} rows (e.g. id {sorted(missing, key=int)[0]})")
    lines = []
    for i in range(len(passes)):
        for j in range(i + 1, len(passes)):
            a = [_valid(passes[i][x]["valid"]) for x in ids]
            b = [_valid(passes[j][x]["valid"]) for x in ids]
            da = [int(passes[i][x].get("depth") or 0) for x in ids]
            db = [int(passes[j][x].get("depth") or 0) for x in ids]
            lines.append(f"- Passes {i + 1} and {j + 1}: validity agreement {100 * sum(p == q for p, q in zip(a, b)) / len(ids):.0f} % "
                         f"of {len(ids)} rows, kappa {_kappa(a, b):.2f}; depth agreement "
                         f"{100 * sum(p == q for p, q in zip(da, db)) / len(ids):.0f} %, kappa {_kappa(da, db):.2f}.")
    checks = [x for x in ids if key[x]["source"] == "aqua_test"]
    for i, said in enumerate(passes):
        hits = sum(_valid(said[x]["valid"]) == int(key[x]["gold"]) for x in checks)
        lines.append(f"- Pass {i + 1} against people on {len(checks)} AQUA_test pairs mixed in blind: {hits} of {len(checks)}.")
    label: dict[tuple[str, str], tuple[bool, bool]] = {}
    for x in ids:
        if key[x]["source"] != "candidate":
            continue
        valid = all(_valid(s[x]["valid"]) for s in passes)
        deep = all(int(s[x].get("depth") or 0) == 2 for s in passes)
        label[(batch_rows[x]["original"].strip(), batch_rows[x]["rewrite"].strip())] = (valid, valid and deep)
    rows = rows_of(work)
    handed = [(r, v) for r in rows for v in r["variants"]]
    got = [label[(r["problem"].strip(), v["text"].strip())] for r, v in handed]
    llm = [label[(r["problem"].strip(), v["text"].strip())] for r, v in handed if v["generator"] == LLM]
    per_problem = [sum(label[(r["problem"].strip(), v["text"].strip())][1] for v in r["variants"]) for r in rows]
    firsts = [r["first_llm_seconds"] for r in rows if r["first_llm_seconds"] is not None]
    share = lambda xs: f"{sum(xs)}/{len(xs)} ({100 * sum(xs) / len(xs):.1f} %)" if xs else "n/a"  # noqa: E731
    table = [
        "| measure | value | target |", "|---|---|---|",
        f"| valid, every handed-out variant | {share([g[0] for g in got])} | ≥ 97 % |",
        f"| valid, the LLM's handed-out rewrites | {share([g[0] for g in llm])} | ≥ 90 % |",
        f"| problems with ≥ 1 valid depth-2 variant | {share([n >= 1 for n in per_problem])} | ≥ 60 % |",
        f"| problems with ≥ 3 valid depth-2 variants | {share([n >= 3 for n in per_problem])} | ≥ 25 % |",
        f"| LLM rewrites handed out | {len(llm)} of {len(handed)} variants ({len(rows)} problems) | |",
        f"| rule variants, median seconds | {statistics.median([r['rules_seconds'] for r in rows if r['rules_seconds'] is not None]):.1f} | < 2 |",
        f"| first verified LLM rewrite, median seconds (problems with one: {len(firsts)}) | "
        f"{statistics.median(firsts) if firsts else float('nan'):.1f} | ≤ 15 |",
        f"| whole k = {meta['k']} answer, median seconds | {statistics.median([r['seconds'] for r in rows]):.1f} | ≤ 60 |",
    ]
    now = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    body = [
        "# Reworded and verified: what `paraphrase` hands out with the instruct LLM", "",
        "## Current", "",
        f"{now}, commit `{args.commit or '?'}`; command: `{meta['command']}`, then `batch` and `report` with "
        f"{len(passes)} blind passes. Problems: {meta['problem_set']} numbers {meta['offset'] + 1}-"
        f"{meta['offset'] + meta['problems']} (never fitted on); k = {meta['k']}; LLM `{Path(meta['llm']).name}`, "
        f"{meta['threads']} thread(s), {meta['samples']} rewrites a problem, time budget "
        f"{meta.get('budget_s', args.budget or '?')} s; 2-core CPU, no GPU.", "",
        *table, "", "Labelling:", "", *lines, "",
        "A variant is valid when every pass says valid, depth 2 when every pass says 2 (GUIDELINES.md).", "",
    ]
    previous = OUT.read_text(encoding="utf-8").split("## Earlier runs", 1)[1] if OUT.exists() and \
        "## Earlier runs" in OUT.read_text(encoding="utf-8") else ""
    OUT.write_text("\n".join(body) + "## Earlier runs\n" + previous, encoding="utf-8")
    print("\n".join(table + [""] + lines))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    r = commands.add_parser("run", help="hand out variants of fresh problems with the LLM on")
    r.add_argument("--problem-set", choices=sorted(PROBLEM_SETS), default="aqua-test")
    r.add_argument("--offset", type=int, default=200)
    r.add_argument("--problems", type=int, default=30)
    r.add_argument("--k", type=int, default=5)
    r.add_argument("--llm", default=str(REPO / "var" / "models" / "qwen2.5-coder-1.5b-instruct.gguf"))
    r.add_argument("--work", required=True)
    b = commands.add_parser("batch", help="write the blind batch of every handed-out variant")
    b.add_argument("--work", required=True)
    b.add_argument("--seed", type=int, default=3407)
    p = commands.add_parser("report", help="read the labelling passes and write docs/results/reworded.md")
    p.add_argument("--work", required=True)
    p.add_argument("--passes", nargs="+", required=True)
    p.add_argument("--commit", default="")
    p.add_argument("--budget", default="", help="the LLM time budget of the run, if run.json lacks it")
    args = parser.parse_args()
    {"run": run, "batch": batch, "report": report}[args.command](args)


if __name__ == "__main__":
    main()
