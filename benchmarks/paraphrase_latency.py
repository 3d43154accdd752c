"""Benchmark: how long ``POST /api/v1/paraphrase/`` takes with its defaults and the judge on.

    PARALAB_TORCH_THREADS=2 python benchmarks/paraphrase_latency.py [--problems 130] [--k 3]

A fresh SQLite database after ``migrate`` (so the shipped judge is active and decides, as on a new
installation), one staff session through Django's test client, one warm-up call (it loads spaCy, the
encoder and the fluency LM), then one call per problem: the AQuA dev problems of the shared labelled
set (``labels/aqua_dev_candidates_val.csv``, validation data), the default generators, ``k``
variants asked. Reports the warm median, p90 and max seconds, and how many variants came back.
Results go to ``docs/results/paraphrase-latency.md`` (``--out``).
"""
from __future__ import annotations

import argparse
import csv
import os
import statistics
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DATA = REPO.parent / "shared" / "data"
OUT = REPO / "docs" / "results" / "paraphrase-latency.md"


def problems(n: int) -> list[str]:
    rows = csv.DictReader(open(DATA / "labels" / "aqua_dev_candidates_val.csv", newline="", encoding="utf-8"))
    found = list(dict.fromkeys(r["question"].strip() for r in rows))
    return found[:n] if n else found


def measure(texts: list[str], k: int) -> dict:
    tmp = tempfile.mkdtemp(prefix="paralab-latency-")
    os.environ["DATABASE_URL"] = f"sqlite:///{tmp}/bench.sqlite3"
    os.environ["PARALAB_DATA_DIR"] = tmp
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "paralab.settings")
    sys.path[:0] = [str(REPO / "platform"), str(REPO)]
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.test import Client

    call_command("migrate", verbosity=0)
    user = get_user_model().objects.create_user("bench", password="bench-pass-1", is_staff=True)
    client = Client()
    client.force_login(user)
    started = time.perf_counter()
    client.post("/api/v1/paraphrase/", {"text": texts[0], "k": k}, content_type="application/json")
    first = time.perf_counter() - started
    times, counts, judged = [], [], set()
    for text in texts:
        started = time.perf_counter()
        response = client.post("/api/v1/paraphrase/", {"text": text, "k": k}, content_type="application/json")
        times.append(time.perf_counter() - started)
        if response.status_code == 400:  # refused as input (e.g. no question): answered, nothing handed out
            counts.append(0)
            continue
        if response.status_code != 200:
            raise SystemExit(f"POST paraphrase/ answered {response.status_code}: {response.content[:300]!r}")
        body = response.json()
        counts.append(len(body["variants"]))
        if body.get("judge"):  # no judge info when no generator applied (nothing to judge)
            judged.add(body["judge"]["name"])
    ordered = sorted(times)
    return {"calls": len(times), "first": first, "median": statistics.median(times),
            "p90": ordered[int(0.9 * (len(ordered) - 1))], "max": ordered[-1],
            "variants": sum(counts) / len(counts), "judges": sorted(judged)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--problems", type=int, default=0, help="the first N labelled problems (0: all 130)")
    parser.add_argument("--k", type=int, default=3)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    texts = problems(args.problems)
    result = measure(texts, args.k)
    stamp = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    threads = os.environ.get("PARALAB_TORCH_THREADS", "default")
    lines = [
        "# `POST paraphrase/` with its defaults and the judge on", "",
        f"## Run of {stamp}", "",
        f"Command: `PARALAB_TORCH_THREADS={threads} python benchmarks/paraphrase_latency.py"
        f"{' --problems ' + str(args.problems) if args.problems else ''} --k {args.k}` "
        f"({os.cpu_count()} cores, no GPU).", "",
        f"Data: the {len(texts)} AQuA dev problems of `labels/aqua_dev_candidates_val.csv` (validation), one call each "
        "after one warm-up call, on a fresh SQLite database after `migrate` (the shipped judge active).", "",
        "| calls | first call (loads the models) s | warm median s | p90 s | max s | variants per call |",
        "|---|---|---|---|---|---|",
        f"| {result['calls']} | {result['first']:.2f} | {result['median']:.2f} | {result['p90']:.2f} | "
        f"{result['max']:.2f} | {result['variants']:.2f} |", "",
        f"Deciding judge in the answers: {', '.join(result['judges'])}.", "",
    ]
    report = "\n".join(lines)
    print(report)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(report, encoding="utf-8")


if __name__ == "__main__":
    main()
