"""Benchmark: what each batch of human labels buys the judge, uncertainty-first against random.

    PARALAB_TORCH_THREADS=2 python benchmarks/loop.py [--batch 50] [--eval-percent 30]

Human labels are replayed through the platform's own services on a fresh embedded database (where
the shipped judge decides), once per queue order:

1. the pairs of ``paraqd/AQUA_test.csv`` (the ParaQD paper's human labels; the shipped judge never
   saw them) become a dataset whose problems are split by a hash of their text: ``--eval-percent``
   of them are never labelled and measure the judge; the rest become annotation items (k = 1);
2. an annotator takes items in the dataset's queue order (``annotation_next``: ``uncertainty``,
   the deciding judge's probability nearest its threshold first, or ``random``) and labels each
   with the human label (``label_submit``), which makes it gold;
3. after every ``--batch`` labels the deciding judge is refitted on the gold (``judge_refit``:
   its own held-out gold decides promotion), and the pool is re-scored by whichever judge decides;
4. at every step: the deciding judge's ROC AUC on the evaluation problems, and the valid share of
   what it would hand out there (per problem, up to 3 pairs above its handout floor, most probable
   first).

Because the refitted judges learn from AQUA_test labels, these are cross-fitted figures of the
loop, reported here only: the AQUA_test row comparable with the paper stays the shipped judge's
(``docs/results/handout.md``, the model card). Results: ``docs/results/loop.md`` and
``docs/results/loop.svg`` (``--out``).
"""
from __future__ import annotations

import argparse
import csv
import json
import os
import random
import subprocess
import sys
import tempfile
import time
import zlib
from datetime import datetime, timezone
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DATA = REPO.parent / "shared" / "data"
OUT = REPO / "docs" / "results" / "loop.md"


def pairs_of(path: Path) -> list[tuple[str, str, bool]]:
    rows = csv.DictReader(open(path, newline="", encoding="utf-8"))
    return [(r["question"], r["augmented"], r["final_label"].strip() == "1") for r in rows]


def is_eval(question: str, percent: int) -> bool:
    return zlib.crc32(("eval:" + question).encode("utf-8")) % 100 < percent


def shuffled(pairs, seed: int) -> list:
    """``pairs`` in the order a seed stores them: 0 keeps the file order, any other seed shuffles
    them reproducibly (so the queue's ids, and its random order, differ per seed)."""
    pairs = list(pairs)
    if seed:
        random.Random(seed).shuffle(pairs)
    return pairs


def replay(*, pairs, order: str, batch: int, eval_percent: int, max_labels: int, seed: int = 0,
           log=print) -> list[dict]:
    """Replay ``pairs`` in ``order`` through the platform; returns one point per step. ``seed``
    shuffles the pool before it is stored (0: file order), so each seed's ``random`` order is an
    independent draw (the queue's shuffle is a fixed permutation of item ids per annotator)."""
    pairs = shuffled(pairs, seed)
    from django.contrib.auth import get_user_model

    from annotation.models import AnnotationItem
    from annotation.services import annotation_next, label_submit
    from corpus.models import Dataset, Problem
    from corpus.text import text_hash
    from ml.metrics.classification import roc_auc
    from modelhub.judging import decision_version, handout_floor
    from modelhub.kinds.judge.refit import RefitError, judge_refit
    from modelhub.kinds.judge.service import judge_evaluate_pairs
    from modelhub.kinds.judge.storage import judge_score_candidates
    from paraphrases.models import Candidate

    user = get_user_model().objects.create_user(f"replay-{order}-{seed}", password="x")
    dataset = Dataset.objects.create(name=f"replay-{order}-{seed}", labels_per_item=1, queue_order=order)
    dataset.annotators.add(user)
    label_of: dict[int, bool] = {}
    pool: list[int] = []
    evaluation: list[tuple[str, str, bool]] = []
    problems: dict[str, Problem] = {}
    for question, paraphrase, valid in pairs:
        if is_eval(question, eval_percent):
            evaluation.append((question, paraphrase, valid))
            continue
        problem = problems.get(question)
        if problem is None:
            problem = problems[question] = Problem.objects.create(dataset=dataset, text=question,
                                                                  text_hash=text_hash(question), split=Problem.Split.DEV)
        candidate, _ = Candidate.objects.get_or_create(problem=problem, text_hash=text_hash(paraphrase),
                                                       generator="replay", defaults={"text": paraphrase})
        label_of[candidate.pk] = valid
        pool.append(candidate.pk)
    AnnotationItem.objects.bulk_create([AnnotationItem(dataset=dataset, candidate_id=pk, required_labels=1)
                                        for pk in pool])
    judge_score_candidates(candidate_ids=pool, version=decision_version())
    eval_q, eval_p = [e[0] for e in evaluation], [e[1] for e in evaluation]
    eval_y = [int(e[2]) for e in evaluation]

    def point(n_labels: int, refit: dict | None) -> dict:
        version = decision_version()
        results = judge_evaluate_pairs(version=version, questions=eval_q, paraphrases=eval_p)
        probabilities = [r["probability"] for r in results]
        floor = handout_floor(version)
        by_problem: dict[str, list[tuple[float, int]]] = {}
        for q, p, y in zip(eval_q, probabilities, eval_y):
            if p > floor:
                by_problem.setdefault(q, []).append((p, y))
        handed = [y for rows in by_problem.values() for _, y in sorted(rows, reverse=True)[:3]]
        row = {"labels": n_labels, "version": version.pk, "auc": roc_auc(probabilities, eval_y),
               "handed_out": len(handed), "valid_share": sum(handed) / len(handed) if handed else None,
               "refit": refit}
        log(f"  [{order}] {n_labels:4d} labels: judge v{version.pk} AUC {row['auc']:.3f}, "
            f"{row['handed_out']} handed out, valid {row['valid_share']}")
        return row

    points = [point(0, None)]
    labelled = 0
    while labelled < max_labels:
        done = 0
        while done < batch and labelled < max_labels:
            item = annotation_next(user=user, dataset=dataset)
            if item is None:
                break
            label_submit(user=user, item=item, valid=label_of[item.candidate_id])
            done += 1
            labelled += 1
        if done == 0:
            break
        try:
            refit = judge_refit()
        except RefitError as exc:
            refit = {"promoted": False, "reason": str(exc)}
        if refit.get("promoted"):
            left = list(AnnotationItem.objects.filter(dataset=dataset, label_count=0).values_list("candidate_id",
                                                                                                   flat=True))
            judge_score_candidates(candidate_ids=left, version=decision_version())
        points.append(point(labelled, {k: refit.get(k) for k in ("promoted", "reason", "train", "heldout")}))
        if done < batch:
            break
    return points


def child(order: str, out: Path, batch: int, eval_percent: int, max_labels: int, seed: int = 0) -> None:
    sys.path[:0] = [str(REPO / "platform"), str(REPO)]
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    points = replay(pairs=pairs_of(DATA / "paraqd" / "AQUA_test.csv"), order=order, batch=batch,
                    eval_percent=eval_percent, max_labels=max_labels, seed=seed)
    out.write_text(json.dumps(points))


def labels_to_reach(points: list[dict], target: float) -> int | None:
    for p in points:
        if p["auc"] >= target:
            return p["labels"]
    return None


def svg(curves: dict[str, list[dict]], key: str, title: str) -> str:
    """A small line chart of ``key`` against labels, one polyline per order (no plotting library)."""
    width, height, pad = 480, 260, 40
    xs = [p["labels"] for c in curves.values() for p in c]
    ys = [p[key] for c in curves.values() for p in c if p[key] is not None]
    x_max = max(xs) or 1
    y_lo, y_hi = min(ys), max(ys)
    if y_hi - y_lo < 0.02:
        y_lo, y_hi = y_lo - 0.01, y_hi + 0.01
    colours = {"uncertainty": "#1f77b4", "random": "#d62728"}
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" '
             f'font-size="11"><text x="{pad}" y="16">{title}</text>',
             f'<line x1="{pad}" y1="{height - pad}" x2="{width - 10}" y2="{height - pad}" stroke="#333"/>',
             f'<line x1="{pad}" y1="{height - pad}" x2="{pad}" y2="24" stroke="#333"/>',
             f'<text x="{width // 2}" y="{height - 8}">labels</text>',
             f'<text x="{pad}" y="{height - pad + 14}">0</text>',
             f'<text x="{width - 30}" y="{height - pad + 14}">{x_max}</text>',
             f'<text x="4" y="{height - pad}">{y_lo:.2f}</text><text x="4" y="30">{y_hi:.2f}</text>']

    def px(x, y):
        return pad + (width - pad - 10) * x / x_max, (height - pad) - (height - pad - 24) * (y - y_lo) / (y_hi - y_lo)

    for i, (name, points) in enumerate(curves.items()):
        coords = [px(p["labels"], p[key]) for p in points if p[key] is not None]
        line = " ".join(f"{x:.1f},{y:.1f}" for x, y in coords)
        colour = colours.get(name, "#2ca02c")
        parts.append(f'<polyline fill="none" stroke="{colour}" stroke-width="2" points="{line}"/>')
        parts.append(f'<text x="{width - 120}" y="{height - pad - 30 + 14 * i}" fill="{colour}">{name}</text>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def mean_curve(runs: list[list[dict]]) -> list[dict]:
    """The point-wise mean of several runs' AUC and valid share (their label steps are the same:
    one pool, one batch size)."""
    steps = min(len(r) for r in runs)
    curve = []
    for i in range(steps):
        points = [r[i] for r in runs]
        shares = [p["valid_share"] for p in points if p["valid_share"] is not None]
        curve.append({"labels": points[0]["labels"], "auc": sum(p["auc"] for p in points) / len(points),
                      "valid_share": sum(shares) / len(shares) if shares else None,
                      "auc_min": min(p["auc"] for p in points), "auc_max": max(p["auc"] for p in points)})
    return curve


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--batch", type=int, default=50, help="labels between two refits")
    parser.add_argument("--eval-percent", type=int, default=30, help="share of problems never labelled, for measuring")
    parser.add_argument("--max-labels", type=int, default=10_000)
    parser.add_argument("--seeds", type=int, nargs="+", default=[0],
                        help="pool shuffles (0: file order); each seed replays both orders, the curves are averaged")
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--child-out", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--child-seed", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.child_out, args.batch, args.eval_percent, args.max_labels, args.child_seed)
        return
    started = time.perf_counter()
    runs: dict[str, list[list[dict]]] = {"uncertainty": [], "random": []}
    with tempfile.TemporaryDirectory() as tmp:
        for seed in args.seeds:
            for order in runs:
                env = dict(os.environ, PARALAB_DATA_DIR=str(Path(tmp) / f"{order}-{seed}"),
                           DJANGO_SETTINGS_MODULE="paralab.settings")
                env.pop("DATABASE_URL", None)
                out = Path(tmp) / f"{order}-{seed}.json"
                print(f"order {order}, seed {seed}", flush=True)
                subprocess.run([sys.executable, __file__, "--child", order, "--child-out", str(out), "--batch",
                                str(args.batch), "--eval-percent", str(args.eval_percent), "--max-labels",
                                str(args.max_labels), "--child-seed", str(seed)], env=env, check=True, cwd=REPO)
                runs[order].append(json.loads(out.read_text()))
    curves = {order: mean_curve(r) for order, r in runs.items()}
    final_random = curves["random"][-1]
    needed = labels_to_reach(curves["uncertainty"], final_random["auc"])
    share = needed / final_random["labels"] if needed is not None and final_random["labels"] else None
    stamp = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    seeds = " ".join(str(s) for s in args.seeds)
    lines = [f"## Run of {stamp}", "",
             f"Command: `python benchmarks/loop.py --batch {args.batch} --eval-percent {args.eval_percent} "
             f"--seeds {seeds}` ({time.perf_counter() - started:.0f} s, {os.cpu_count()} cores, no GPU). Data: "
             f"`paraqd/AQUA_test.csv` replayed (cross-fitted: the refitted judges learn from AQUA_test labels, so none "
             f"of these numbers is the paper-comparable AQUA_test row); {args.eval_percent} % of its problems held out "
             f"for measuring. Each seed shuffles the pool once and replays both orders on it.", ""]
    if len(args.seeds) > 1:
        lines += [f"Mean over the {len(args.seeds)} seeds (min–max in brackets):", "",
                  "| labels | uncertainty ROC AUC | random ROC AUC | uncertainty valid share | random valid share |",
                  "|---|---|---|---|---|"]
        for u, r in zip(curves["uncertainty"], curves["random"]):
            share_u = "–" if u["valid_share"] is None else f"{100 * u['valid_share']:.1f} %"
            share_r = "–" if r["valid_share"] is None else f"{100 * r['valid_share']:.1f} %"
            lines.append(f"| {u['labels']} | {u['auc']:.3f} ({u['auc_min']:.3f}–{u['auc_max']:.3f}) | "
                         f"{r['auc']:.3f} ({r['auc_min']:.3f}–{r['auc_max']:.3f}) | {share_u} | {share_r} |")
        lines += ["", "Each run:", ""]
    lines += ["| order | seed | labels | deciding judge | ROC AUC (held-out problems) | handed out | valid share | refit |",
              "|---|---|---|---|---|---|---|---|"]
    for order, order_runs in runs.items():
        for seed, points in zip(args.seeds, order_runs):
            for p in points:
                refit = p["refit"] or {}
                note = "" if not refit else ("promoted" if refit.get("promoted") else "kept") + f": {refit.get('reason', '')}"
                share_txt = "–" if p["valid_share"] is None else f"{100 * p['valid_share']:.1f} %"
                lines.append(f"| {order} | {seed} | {p['labels']} | v{p['version']} | {p['auc']:.3f} | {p['handed_out']} | "
                             f"{share_txt} | {note} |")
    what = "Random order's final AUC" if len(args.seeds) == 1 else "Random order's mean final AUC"
    lines += ["", f"{what} {final_random['auc']:.3f} after {final_random['labels']} labels; "
              f"uncertainty-first reached it after "
              + (f"{needed} labels ({100 * share:.0f} % of random's)." if needed is not None else "— (never)."),
              "", f"![held-out AUC against labels]({args.out.with_suffix('.svg').name})", ""]
    report = "\n".join(lines)
    print(report)
    from benchmarks.results import prepend_run

    prepend_run(args.out, "# What each batch of labels buys the judge\n\n", report)
    args.out.with_suffix(".svg").write_text(svg(curves, "auc", "held-out ROC AUC of the deciding judge"
                                                + (f" (mean of {len(args.seeds)} seeds)" if len(args.seeds) > 1 else "")))
    args.out.with_suffix(".json").write_text(json.dumps({"curves": curves, "runs": runs, "seeds": args.seeds},
                                                        indent=1))


if __name__ == "__main__":
    main()
