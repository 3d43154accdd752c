"""Benchmark: import and export of GSM8K train (7473 problems) on the configured database.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/paralab_bench python benchmarks/corpus_io.py

Creates the database's tables if needed, imports ../shared/data/gsm8k/train.jsonl into a fresh
dataset with `manage.py import_problems` (wall time, Django start-up included) and in-process
through the service (import alone), exports it as JSONL and CSV with `manage.py export_dataset`,
and writes the table to docs/results/corpus-io.md.
"""
from __future__ import annotations

import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
GSM8K = REPO.parent / "shared" / "data" / "gsm8k" / "train.jsonl"
OUT = REPO / "docs" / "results" / "corpus-io.md"
RUNS = 3


def manage(*args: str) -> tuple[float, str]:
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "manage.py", *args], cwd=REPO, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"manage.py {' '.join(args)} failed:\n{done.stderr}")
    return elapsed, done.stdout


def main() -> None:
    if not os.environ.get("DATABASE_URL"):
        sys.exit("set DATABASE_URL (the benchmark is meant for PostgreSQL)")
    manage("migrate", "--noinput")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "paralab.settings")
    import django

    django.setup()
    from django.db import connection

    from corpus.models import Dataset
    from corpus.services import dataset_create, dataset_import

    stamp = datetime.now(timezone.utc).strftime("%Y%m%d%H%M%S")
    rows = []

    command_times, service_times = [], []
    for run in range(RUNS):
        name = f"bench-gsm8k-{stamp}-cmd{run}"
        elapsed, stdout = manage("import_problems", str(GSM8K), "--dataset", name, "--format", "gsm8k")
        assert json.loads(stdout)["created"] == 7473, stdout
        command_times.append(elapsed)
        dataset = dataset_create(name=f"bench-gsm8k-{stamp}-svc{run}")
        start = time.perf_counter()
        result = dataset_import(dataset=dataset, path=str(GSM8K), fmt="gsm8k")
        service_times.append(time.perf_counter() - start)
        assert result["created"] == 7473, result
    rows.append(("import_problems gsm8k train (command, wall)", command_times))
    rows.append(("dataset_import service (in-process)", service_times))

    export_from = f"bench-gsm8k-{stamp}-cmd0"
    for fmt in ("jsonl", "csv"):
        times = []
        for _ in range(RUNS):
            with tempfile.TemporaryDirectory() as tmp:
                out = Path(tmp) / f"out.{fmt}"
                elapsed, _ = manage("export_dataset", "--dataset", export_from, "--what", "problems",
                                    "--format", fmt, "--output", str(out))
                times.append(elapsed)
                lines = out.read_text(encoding="utf-8").count("\n")
                assert lines >= 7473, lines
        rows.append((f"export_dataset problems {fmt} (command, wall)", times))
    startup, _ = manage("check")
    rows.append(("manage.py check (Django start-up alone)", [startup]))

    for dataset in Dataset.objects.filter(name__startswith=f"bench-gsm8k-{stamp}"):
        dataset.delete()

    lines = [
        "# Corpus import and export (GSM8K train, 7473 problems)",
        "",
        f"Reproduce: `DATABASE_URL=postgres://postgres@127.0.0.1:5432/paralab_bench python benchmarks/corpus_io.py`",
        "",
        f"Run {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC on {platform.node() or 'this machine'}: "
        f"{os.cpu_count()} cores, Python {platform.python_version()}, database {connection.vendor} "
        f"{'.'.join(map(str, connection.pg_version // 10000 and divmod(connection.pg_version, 10000))) if connection.vendor == 'postgresql' else ''}.",
        f"{RUNS} runs each; a fresh dataset per import run.",
        "",
        "| what | median s | min s | max s |",
        "|---|---|---|---|",
    ]
    for label, times in rows:
        lines.append(f"| {label} | {statistics.median(times):.2f} | {min(times):.2f} | {max(times):.2f} |")
    lines.append("")
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text("\n".join(lines), encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
