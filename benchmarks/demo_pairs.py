"""Benchmark: are the demo's synthesized test pairs at least half valid, by people's rules?

    python manage.py demo --no-server                      # in a fresh clone: the demo database
    python benchmarks/demo_pairs.py --export               # its test pairs into a blind batch
    # two independent labelling passes following labels/GUIDELINES.md: var/demo-pairs/pass_*.csv
    python benchmarks/demo_pairs.py --blind var/demo-pairs/pass_a.csv var/demo-pairs/pass_b.csv

``--export`` reads every synthesized test pair (generator ``test:…``) of the demo dataset from the
configured database and writes a shuffled blind batch (no operator shown; AQUA_test pairs with
people's labels mixed in, ``benchmarks/blind.py``). With the passes it reports the share of pairs
valid by both passes, overall and per source (the paper's operators fa/fc/fd, or the platform
generator that stood in for fa), against the share meant to be valid, and writes
``docs/results/demo-test-pairs.md``.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from collections import defaultdict
from datetime import datetime, timezone
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO), str(REPO / "platform"), str(REPO / "benchmarks")]
OUT = REPO / "docs" / "results" / "demo-test-pairs.md"

from blind import make_blind_batch, read_blind_useful  # noqa: E402


def export(work: Path) -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "paralab.settings")
    import django

    django.setup()
    from paralab.demo import DEMO_DATASET
    from paraphrases.models import Candidate

    rows = [{"problem": c.problem.text, "variant": c.text, "generator": c.generator, "intended": c.intended_valid}
            for c in Candidate.objects.filter(problem__dataset__name=DEMO_DATASET, generator__startswith="test:")
            .select_related("problem").order_by("id")]
    work.mkdir(parents=True, exist_ok=True)
    (work / "pairs.json").write_text(json.dumps(rows), encoding="utf-8")
    print(f"{len(rows)} test pairs, {make_blind_batch(work, rows, seed=3416)} rows in {work / 'blind_batch.csv'}")


def report(work: Path, passes: list[Path], out: Path) -> None:
    rows = json.loads((work / "pairs.json").read_text(encoding="utf-8"))
    labels, agreement = read_blind_useful(work, passes)
    by_source: dict[str, list[bool]] = defaultdict(list)
    for row in rows:
        valid, _ = labels[(row["problem"].strip(), row["variant"].strip())]
        by_source[row["generator"].removeprefix("test:")].append(valid)
    every = [v for values in by_source.values() for v in values]
    intended = sum(r["intended"] for r in rows)
    stamp = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        f"## Run of {stamp}", "",
        f"Command: `python benchmarks/demo_pairs.py --work {work.relative_to(REPO) if work.is_relative_to(REPO) else work} "
        f"--blind {' '.join(str(p) for p in passes)}`, on the test pairs "
        f"`manage.py demo --no-server` synthesized on a fresh clone. Labels: {len(passes)} independent blind passes "
        "following `labels/GUIDELINES.md` (valid only when every pass says so).", "",
        *agreement,
        f"**{sum(every)} of {len(every)} test pairs valid ({100 * sum(every) / len(every):.0f} %)**; "
        f"{intended} ({100 * intended / len(rows):.0f} %) were meant to be valid.", "",
        "| source | meant to be | pairs | valid by people's rules |", "|---|---|---|---|",
    ]
    meant = {r["generator"].removeprefix("test:"): r["intended"] for r in rows}
    for source, values in sorted(by_source.items(), key=lambda kv: (not meant[kv[0]], kv[0])):
        lines.append(f"| {source} | {'valid' if meant[source] else 'invalid'} | {len(values)} | "
                     f"{sum(values)} ({100 * sum(values) / len(values):.0f} %) |")
    header = "# The demo's synthesized test pairs, labelled blind\n\nWritten by `benchmarks/demo_pairs.py`; newest run first.\n\n"
    text = out.read_text(encoding="utf-8") if out.exists() else ""
    earlier = text[text.index("## Run"):] if "## Run" in text else ""
    out.write_text(header + "\n".join(lines) + "\n\n" + earlier,
                   encoding="utf-8")
    print("\n".join(lines))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--work", type=Path, default=REPO / "var" / "demo-pairs")
    parser.add_argument("--export", action="store_true", help="write the blind batch from the demo database")
    parser.add_argument("--blind", type=Path, nargs="*", default=None, help="labelling passes over the batch")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    if args.export:
        export(args.work)
    if args.blind:
        report(args.work, args.blind, args.out)


if __name__ == "__main__":
    main()
