"""Benchmark: ParaQD on the paper's AquaRAT test set (Table 1), pretrained vs trained, and scoring speed.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/paralab_bench PARALAB_TORCH_THREADS=1 \\
        python benchmarks/paraqd.py --max-problems 1500 --budget-min 60

One run, through the platform's own code paths:
1. imports ``../shared/data/paraqd/AQUA_test.csv`` with ``manage.py import_pairs --split test`` and the
   training corpora (AQuA dev, GSM8K train, SVAMP, MAWPS/ASDiv) with ``manage.py import_problems``, and
   with ``--aqua-val`` the paper's operator outputs for the AQuA dev questions (``aqua_val.csv``);
   AQuA test questions are never trained on (the platform's training-problem filter drops every
   imported-pair question and any copy of it);
2. evaluates the untrained encoder (``eval_paraqd --model pretrained``);
3. builds triplets with the training operators and trains a version with the ``paper`` preset
   (``paraqd_train``; loss, distance and margin from the flags), wall-clock budget for the whole
   training step (operators + training + save) = ``--budget-min``;
4. evaluates the trained version on AQUA_test;
5. measures scoring throughput on the AQUA_test pairs: the platform's scorer
   (``ml.paraqd.score_pairs`` through the cached scorer) against plain sentence-transformers
   ``model.encode`` of both sides of every pair, same model, same texts, same process;
and writes the table to ``docs/results/paraqd.md`` (``--out``), keeping earlier runs below it.
"""
from __future__ import annotations

import argparse
import csv
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DATA = REPO.parent / "shared" / "data"
OUT = REPO / "docs" / "results" / "paraqd.md"
PAPER = {  # Table 1, AquaRAT, MiniLM-L12 (METHODS.md)
    "pretrained": {"separation": 0.080, "weighted": {"p": 0.784, "r": 0.318, "f1_hm": 0.453}},
    "paraqd": {"separation": 0.780, "weighted": {"p": 0.762, "r": 0.625, "f1_hm": 0.687}},
}
CORPORA = [  # (dataset suffix, path, format, split)
    ("aqua-dev", DATA / "aqua" / "dev.json", "aqua", "dev"),
    ("gsm8k-train", DATA / "gsm8k" / "train.jsonl", "gsm8k", "train"),
    ("svamp", DATA / "svamp" / "SVAMP.json", "svamp", ""),
    ("mawps", DATA / "mawps_asdiv" / "train.csv", "mawps", "train"),
]


def manage(*args: str) -> str:
    done = subprocess.run([sys.executable, "manage.py", *args], cwd=REPO, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"manage.py {' '.join(args)} failed:\n{done.stderr}")
    return done.stdout


def ensure_database(url: str) -> None:
    """Create the PostgreSQL database named in ``url`` when it does not exist yet."""
    from urllib.parse import urlparse

    import psycopg2

    parts = urlparse(url)
    name = parts.path.lstrip("/")
    conn = psycopg2.connect(host=parts.hostname, port=parts.port or 5432, user=parts.username,
                            password=parts.password, dbname="postgres")
    conn.autocommit = True
    with conn.cursor() as cur:
        cur.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name])
        if cur.fetchone() is None:
            cur.execute(f'CREATE DATABASE "{name}"')
    conn.close()


def hardware() -> str:
    cpu = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    import torch

    gpu = torch.cuda.get_device_name(0) if torch.cuda.is_available() else "no GPU"
    return f"{os.cpu_count()} cores ({cpu}), {gpu}, torch {torch.__version__}"


def metrics_row(name: str, m: dict) -> str:
    mac, wei = m["macro"], m["weighted"]
    cells = [mac["p"], mac["r"], mac["f1"], mac["f1_hm"], wei["p"], wei["r"], wei["f1"], wei["f1_hm"],
             m["mu_pos"], m["mu_neg"], m["separation"]]
    return f"| {name} | " + " | ".join(f"{c:.3f}" if c is not None else "–" for c in cells) + " |"


def throughput(model_path: str, questions: list[str], paraphrases: list[str], repeats: int) -> dict[str, float]:
    """Pairs per second: the platform's scorer vs plain ``encode`` of both sides (best of ``repeats``)."""
    import numpy as np

    from ml.paraqd.model import clear_scorer_cache, get_scorer

    clear_scorer_cache()
    scorer = get_scorer(model_path, "auto")
    model = scorer.model
    n = len(questions)
    scorer.score(questions[:8], paraphrases[:8])  # warm-up (allocations, lazy init)

    def platform_run() -> float:
        start = time.perf_counter()
        scorer.score(questions, paraphrases)
        return time.perf_counter() - start

    def plain_run() -> float:
        start = time.perf_counter()
        a = model.encode(questions, batch_size=64, normalize_embeddings=True, show_progress_bar=False)
        b = model.encode(paraphrases, batch_size=64, normalize_embeddings=True, show_progress_bar=False)
        np.sum(a * b, axis=1)
        return time.perf_counter() - start

    def plain_unique_run() -> float:
        # The same work the platform does (each distinct text encoded once), with nothing around it.
        start = time.perf_counter()
        texts = list(dict.fromkeys([*questions, *paraphrases]))
        row = {t: i for i, t in enumerate(texts)}
        emb = model.encode(texts, batch_size=64, normalize_embeddings=True, show_progress_bar=False)
        np.sum(emb[[row[q] for q in questions]] * emb[[row[p] for p in paraphrases]], axis=1)
        return time.perf_counter() - start

    # Interleaved, so a busy moment of the machine hits all three alike; the best of each is kept.
    runs = [(platform_run(), plain_run(), plain_unique_run()) for _ in range(repeats)]
    platform_s, plain_s, unique_s = (min(column) for column in zip(*runs))
    return {"pairs": n, "platform_pairs_per_s": n / platform_s, "plain_pairs_per_s": n / plain_s,
            "plain_unique_pairs_per_s": n / unique_s, "overhead": platform_s / plain_s - 1.0,
            "overhead_vs_unique": platform_s / unique_s - 1.0, "device": str(model.device),
            "threads": torch_threads()}


def torch_threads() -> int:
    import torch

    return torch.get_num_threads()


def validation_lines(name: str | None, history: list[dict]) -> list[str]:
    """The per-epoch validation curve (held-out aqua_val questions), if there was one."""
    if not name or not history:
        return []
    points = ", ".join(f"epoch {h['epoch']:g}: sep {h['separation']:.3f} / wF1(hm) {h['weighted_f1_hm']:.3f}"
                       for h in history)
    return ["", f"Validation (`{name}`, {history[-1]['n']} held-out aqua_val pairs, never trained on): {points}."]


def operator_names(value: str | None) -> list[str] | None:
    """``--operators``: None (the platform's default set), [] for 'none', else the named ones."""
    if value is None:
        return None
    if value.strip().lower() == "none":
        return []
    return [name.strip() for name in value.split(",") if name.strip()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--max-problems", type=int, default=800, help="training problems (operators run on each)")
    parser.add_argument("--no-balance", action="store_true",
                        help="draw problems from the union of the corpora (default: the corpora in turn)")
    parser.add_argument("--lr", type=float, default=None, help="peak learning rate (default: the paper's 2e-5)")
    parser.add_argument("--aqua-val", action="store_true",
                        help="also train on the paper's operator outputs for AQuA dev (paraqd/aqua_val.csv, imported "
                             "with import_pairs --format paraqd-wide --split dev)")
    parser.add_argument("--aqua-val-holdout", type=int, default=0, metavar="N",
                        help="with --aqua-val: keep the last N aqua_val questions out of training and score their "
                             "pairs after every epoch (a validation curve that does not touch AQUA_test)")
    parser.add_argument("--pairing", default="cycle", choices=["cycle", "all"],
                        help="a question's triplets: max(#pos, #neg) in turn (default) or every positive with every negative")
    parser.add_argument("--max-triplets-per-question", type=int, default=None,
                        help="per-question cap per epoch (default: 6 with cycle, none with all)")
    parser.add_argument("--operators", default=None, metavar="NAMES",
                        help="comma-separated training operators (default: the platform's default set); 'none' "
                             "trains on the imported aqua_val outputs only (needs --aqua-val)")
    parser.add_argument("--seed", type=int, default=3407, help="training seed (the paper's 3407)")
    parser.add_argument("--operator-draws", type=int, default=1,
                        help="apply each stochastic operator N times per question (distinct outputs pooled)")
    parser.add_argument("--budget-min", type=float, default=60.0, help="wall-clock budget of the training step")
    parser.add_argument("--epochs", type=int, default=9, help="planned epochs (the budget may stop earlier)")
    parser.add_argument("--distance", default="euclidean", choices=["cosine", "euclidean"])
    parser.add_argument("--margin", type=float, default=None, help="default: 0.5 cosine, 5 euclidean")
    parser.add_argument("--loss", default="triplet", choices=["triplet", "mnrl"])
    parser.add_argument("--repeats", type=int, default=3, help="throughput repetitions (best is kept)")
    parser.add_argument("--note", default="", help="a line added to the report")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    if operator_names(args.operators) == [] and not args.aqua_val:
        parser.error("--operators none leaves nothing to train on without --aqua-val")
    if not os.environ.get("DATABASE_URL"):
        sys.exit("set DATABASE_URL (the benchmark is meant for PostgreSQL)")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "paralab.settings")
    sys.path[:0] = [str(REPO / "platform"), str(REPO)]
    ensure_database(os.environ["DATABASE_URL"])
    manage("migrate", "--noinput")

    stamp = datetime.now(timezone.utc).strftime("%Y%m%d%H%M%S")
    test_name = f"bench-aquatest-{stamp}"
    started = time.perf_counter()
    imported = json.loads(manage("import_pairs", str(DATA / "paraqd" / "AQUA_test.csv"), "--dataset", test_name,
                                 "--split", "test"))
    train_names = []
    for suffix, path, fmt, split in CORPORA:
        if args.aqua_val and suffix == "aqua-dev":
            continue  # the same questions come with aqua_val.csv
        name = f"bench-{suffix}-{stamp}"
        extra = ["--split", split] if split else []
        manage("import_problems", str(path), "--dataset", name, "--format", fmt, *extra)
        train_names.append(name)
    holdout_name = None
    if args.aqua_val:
        name = f"bench-aqua-val-{stamp}"
        aqua_val = DATA / "paraqd" / "aqua_val.csv"
        with tempfile.TemporaryDirectory() as tmp:
            if args.aqua_val_holdout > 0:
                # Split by question: the held-out part is imported as split test, so none of its
                # questions can be trained on, and serves as the per-epoch validation set.
                with aqua_val.open(newline="", encoding="utf-8") as handle:
                    rows = list(csv.reader(handle))
                header, body = rows[0], rows[1:]
                parts = {"train": body[:-args.aqua_val_holdout], "holdout": body[-args.aqua_val_holdout:]}
                for part, part_rows in parts.items():
                    with open(Path(tmp) / f"{part}.csv", "w", newline="", encoding="utf-8") as handle:
                        csv.writer(handle).writerows([header, *part_rows])
                holdout_name = f"bench-aqua-val-holdout-{stamp}"
                manage("import_pairs", str(Path(tmp) / "holdout.csv"), "--dataset", holdout_name,
                       "--format", "paraqd-wide", "--split", "test")
                aqua_val = Path(tmp) / "train.csv"
            manage("import_pairs", str(aqua_val), "--dataset", name, "--format", "paraqd-wide", "--split", "dev")
        train_names.append(name)
    import_s = time.perf_counter() - started
    print(f"imported in {import_s:.1f} s: {imported}", flush=True)

    import django

    django.setup()
    from django.conf import settings

    from corpus.models import Dataset
    from modelhub.kinds.paraqd import gold_pairs, paraqd_evaluate, paraqd_train

    test_dataset = Dataset.objects.get(name=test_name)
    pretrained = paraqd_evaluate(dataset=test_dataset, model="pretrained")
    print("pretrained:", json.dumps(pretrained), flush=True)

    log: list[str] = []

    def progress(fraction: float, note: str | None = None) -> None:
        if not note:
            return
        line = f"[{time.strftime('%H:%M:%S')}] {fraction:6.1%} {note}"
        log.append(line)
        print(line, flush=True)

    train_start = time.perf_counter()
    try:
        version = paraqd_train(
            dataset_names=train_names, preset="paper", epochs=args.epochs, max_problems=args.max_problems,
            time_budget_s=args.budget_min * 60.0, progress=progress, seed=args.seed,
            config_overrides={"distance": args.distance, "margin": args.margin, "loss": args.loss, "lr": args.lr,
                              "triplet_pairing": args.pairing, "max_triplets_per_anchor": args.max_triplets_per_question,
                              "operator_draws": args.operator_draws},
            balance_datasets=not args.no_balance, include_imported_pairs=args.aqua_val, eval_dataset_name=holdout_name,
            operators=operator_names(args.operators),
        )
    finally:
        if holdout_name:
            # Its questions are imported as split test: left in the database, they would keep a
            # later run in the same database from training on them.
            Dataset.objects.filter(name=holdout_name).delete()
    train_wall = time.perf_counter() - train_start
    trained = paraqd_evaluate(dataset=test_dataset, model=version)
    print("trained:", json.dumps(trained), flush=True)

    pairs = gold_pairs(dataset=test_dataset)
    questions, paraphrases = [p[1] for p in pairs], [p[2] for p in pairs]
    speed = throughput(version.artifact_path, questions, paraphrases, args.repeats)
    print("throughput:", speed, flush=True)

    training = version.metrics["training"]
    snapshot = version.training_data
    params = version.params
    targets_met = trained["separation"] >= 0.78 and trained["weighted"]["f1_hm"] >= 0.687
    lines = [
        f"## Run {datetime.now(timezone.utc).isoformat(timespec='seconds')}",
        "",
        f"Command: `DATABASE_URL=… PARALAB_TORCH_THREADS={settings.PARALAB_TORCH_THREADS or ''} "
        f"python benchmarks/paraqd.py --max-problems {args.max_problems} --budget-min {args.budget_min:g} "
        f"--epochs {args.epochs} --distance {args.distance}"
        + (f" --margin {args.margin:g}" if args.margin is not None else "")
        + (f" --loss {args.loss}" if args.loss != "triplet" else "")
        + (f" --lr {args.lr:g}" if args.lr is not None else "") + (" --no-balance" if args.no_balance else "")
        + (" --aqua-val" if args.aqua_val else "")
        + (f" --aqua-val-holdout {args.aqua_val_holdout}" if args.aqua_val_holdout else "")
        + (f" --pairing {args.pairing}" if args.pairing != "cycle" else "")
        + (f" --max-triplets-per-question {args.max_triplets_per_question}" if args.max_triplets_per_question else "")
        + (f" --operator-draws {args.operator_draws}" if args.operator_draws != 1 else "")
        + (f" --operators {args.operators}" if args.operators else "")
        + (f" --seed {args.seed}" if args.seed != 3407 else "")
        + "`",
        "",
        f"Hardware: {hardware()}; Python {platform.python_version()}; training ran with "
        f"{params.get('num_threads') or 'torch default'} torch thread(s) (PARALAB_TORCH_THREADS).",
        *([f"Note: {args.note}"] if args.note else []),
        "",
        f"Evaluation: `{test_name}` = AQUA_test.csv ({pretrained['n']} pairs, threshold {pretrained['threshold']}).",
        f"Training data: {', '.join(train_names)}; {snapshot['problems_used']} problems used of "
        f"{snapshot['problems_available']} allowed (left out: {json.dumps(snapshot['excluded'])}), "
        f"{'the corpora taken in turn' if snapshot.get('balance_datasets') else 'drawn from their union'}; "
        f"{snapshot['triplets']} triplets; operator outputs {json.dumps(snapshot['outputs_per_operator'])}"
        + (f", {snapshot['operator_draws']} draws of the stochastic operators (extra distinct outputs "
           f"{json.dumps(snapshot['extra_draw_outputs_per_operator'])})" if snapshot.get("operator_draws", 1) > 1 else "")
        + ".",
        f"Loss: {params['loss']}, distance {params['distance']}, margin {params['margin']:g}; AdamW lr {params['lr']:g}, "
        f"weight decay {params['weight_decay']:g}, warm-up {params['warmup_ratio']:g}, batch {params['batch_size']}, "
        f"{params.get('triplet_pairing', 'cycle')} pairing, ≤{params['max_triplets_per_anchor'] or 'all'} triplets per question per epoch, seed {params['seed']}, "
        f"max_seq_length {params['max_seq_length']}.",
        f"Training step wall time {train_wall / 60:.1f} min (budget {args.budget_min:g} min): operators "
        f"{snapshot.get('seconds', float('nan')) / 60:.1f} min, "
        f"training {training['seconds'] / 60:.1f} min on {training['device']}: {training['steps']}/"
        f"{training['planned_steps']} steps, {training['triplets_seen']} triplets "
        f"({training['triplets_per_second']:.1f}/s), {training['epochs_completed']} full epochs"
        + (f"; stopped early: {training['stop_reason']}" if training["stopped_early"] else "") + ".",
        *validation_lines(holdout_name, training.get("eval_history") or []),
        "",
        "| model | macro P | macro R | macro F1 (sklearn) | macro F1 (hm) | weighted P | weighted R | "
        "weighted F1 (sklearn) | weighted F1 (hm) | μ+ | μ− | separation |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
        metrics_row("pretrained all-MiniLM-L6-v2", pretrained),
        metrics_row(f"trained (version {version.pk})", trained),
        f"| paper, pretrained MiniLM-L12 | | | | | {PAPER['pretrained']['weighted']['p']:.3f} | "
        f"{PAPER['pretrained']['weighted']['r']:.3f} | | {PAPER['pretrained']['weighted']['f1_hm']:.3f} | | | "
        f"{PAPER['pretrained']['separation']:.3f} |",
        f"| paper, ParaQD MiniLM-L12 | | | | | {PAPER['paraqd']['weighted']['p']:.3f} | "
        f"{PAPER['paraqd']['weighted']['r']:.3f} | | {PAPER['paraqd']['weighted']['f1_hm']:.3f} | | | "
        f"{PAPER['paraqd']['separation']:.3f} |",
        "",
        f"Targets (separation ≥ 0.78 and weighted F1(hm) ≥ 0.687): {'met' if targets_met else 'NOT met'}.",
        "",
        f"Scoring throughput on {speed['device']} ({speed['pairs']} AQUA_test pairs, best of {args.repeats}): "
        f"platform scorer {speed['platform_pairs_per_s']:.1f} pairs/s, plain sentence-transformers encode of both "
        f"sides {speed['plain_pairs_per_s']:.1f} pairs/s, plain encode of the distinct texts only "
        f"{speed['plain_unique_pairs_per_s']:.1f} pairs/s ({speed['threads']} torch threads). Overhead of the "
        f"platform: {speed['overhead']:+.1%} against encoding both sides, {speed['overhead_vs_unique']:+.1%} "
        "against encoding the same distinct texts (negative: the platform is faster).",
        "",
        "<details><summary>training log</summary>",
        "",
        "```",
        *log[-60:],
        "```",
        "</details>",
        "",
    ]
    report = "\n".join(lines)
    header = "# ParaQD on AquaRAT (AQUA_test), pretrained vs trained\n\nWritten by `benchmarks/paraqd.py`; newest run first.\n\n"
    previous = ""
    if args.out.exists():
        previous = args.out.read_text().split("\n\n", 2)[-1] if args.out.read_text().startswith("# ParaQD") else ""
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(header + report + ("\n" + previous if previous else ""))
    print(report)


if __name__ == "__main__":
    main()
