"""Benchmark: ParaQD training throughput (triplets/s) on this machine, one setting at a time.

    python benchmarks/paraqd_speed.py --steps 30

The triplets are the paper's aqua_val operator outputs (AQuA dev questions; ``../shared/data``),
each anchor's positives and negatives cycled as in training; the encoder is the packaged
all-MiniLM-L6-v2; batch 16, max length 128, the repository's best recipe (Euclidean margin 5,
lr 1e-4). Each setting trains ``--steps`` optimiser steps after 3 warm-up steps in a fresh
process state and reports triplets per second of the timed steps. Settings: torch threads (1, 2),
bfloat16 autocast on CPU, frozen lower layers, and one anchor encoding shared by every triplet of
a question (``max_triplets_per_anchor``: more triplets per unique text encoded). Written to
``docs/results/paraqd-speed.md`` (``--out``), earlier runs kept below.
"""
from __future__ import annotations

import argparse
import csv
import os
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO)]
DATA = REPO.parent / "shared" / "data"
OUT = REPO / "docs" / "results" / "paraqd-speed.md"

SETTINGS = {
    "1 thread (the previous measurement's setting)": {"num_threads": 1},
    "2 threads": {"num_threads": 2},
    "2 threads, bf16 autocast": {"num_threads": 2, "cpu_bf16": True},
    "2 threads, lower 3 of 6 layers frozen": {"num_threads": 2, "freeze_layers": 3},
    "2 threads, bf16, lower 3 layers frozen": {"num_threads": 2, "cpu_bf16": True, "freeze_layers": 3},
    "1 thread, bf16": {"num_threads": 1, "cpu_bf16": True},
}


def triplets():
    from ml.paraqd import Triplet

    out = []
    with (DATA / "paraqd" / "aqua_val.csv").open(newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        for row in reader:
            positives = [row[k] for k in row if k.startswith("positive") and row[k]]
            negatives = [row[k] for k in row if k.startswith("neg") and row[k]]
            for i in range(max(len(positives), len(negatives))):
                if positives and negatives:
                    out.append(Triplet(anchor=row["question"], positive=positives[i % len(positives)],
                                       negative=negatives[i % len(negatives)], source="aqua_val"))
    return out


def measure(name: str, overrides: dict, data, steps: int) -> dict:
    import torch

    from ml.paraqd import ParaQDTrainConfig, TripletBatcher
    from ml.paraqd.model import load_encoder
    from ml.paraqd.train import _adamw, _batch_loss, _freeze, _param_groups, set_seed

    config = ParaQDTrainConfig.paper(device="cpu", distance="euclidean", margin=5.0, lr=1e-4,
                                     **{k: v for k, v in overrides.items() if k != "num_threads"})
    set_seed(3407)
    torch.set_num_threads(overrides.get("num_threads", 1))
    model = load_encoder(config.encoder, "cpu", config.max_seq_length)
    _freeze(model, config.freeze_layers)
    batcher = TripletBatcher(data, config.batch_size, seed=3407, max_per_anchor=config.max_triplets_per_anchor,
                             bucket_batches=config.bucket_batches)
    optimizer = _adamw(_param_groups(model, config.weight_decay), config.lr)
    model.train()
    seen = 0
    started = None
    for index, batch in enumerate(batcher.epoch(0)):
        if index == 3:
            started, seen = time.perf_counter(), 0
        loss = _batch_loss(model, batch, config, "cpu")
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        seen += len(batch)
        if index == 3 + steps - 1:
            break
    seconds = time.perf_counter() - started
    result = {"setting": name, "triplets_per_s": seen / seconds, "steps": steps, "seconds": seconds,
              "unique_texts_per_triplet": None}
    print(result, flush=True)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import torch

    from benchmarks.paraqd import hardware

    data = triplets()
    rows = [measure(name, overrides, data, args.steps) for name, overrides in SETTINGS.items()]
    base = rows[0]["triplets_per_s"]
    lines = [f"## Run {datetime.now(timezone.utc).isoformat(timespec='seconds')}", "",
             f"Command: `python benchmarks/paraqd_speed.py --steps {args.steps}`", "",
             f"Hardware: {hardware()}; torch {torch.__version__}. Triplets: aqua_val ({len(data)}), batch 16, "
             "max length 128, all-MiniLM-L6-v2, Euclidean margin 5.", "",
             "| setting | triplets/s | × the 1-thread run |", "|---|---|---|"]
    lines += [f"| {r['setting']} | {r['triplets_per_s']:.1f} | {r['triplets_per_s'] / base:.2f} |" for r in rows]
    lines.append("")
    header = "# ParaQD training throughput\n\n"
    previous = args.out.read_text() if args.out.exists() else ""
    body = previous.removeprefix(header) if previous.startswith(header) else previous
    args.out.write_text(header + "\n".join(lines) + "\n" + body)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
