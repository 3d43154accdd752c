"""Benchmark: what people would accept of STEAD's and PAP's outputs, beside their PQI.

    python benchmarks/scanning.py --neural-only --dump var/neural/outputs.jsonl ...   # train, generate
    python benchmarks/neural_labels.py make --dump var/neural/outputs.jsonl --batch var/neural/batch
    # two independent labelling passes of var/neural/batch/blind_batch.csv (labels/GUIDELINES.md)
    python benchmarks/neural_labels.py read --dump var/neural/outputs.jsonl --batch var/neural/batch \\
        --report var/bench-scanning/report.json

``make`` samples up to ``--per-generator`` outputs of each neural generator (seeded; an output that
copies its problem word for word is left out and counted: it is no variant), and writes a blind
batch (``benchmarks/blind.py``: shuffled, generator hidden, AQUA_test pairs with people's labels
mixed in). ``read`` reads the passes (valid only when every pass says so; useful only when every
pass says useful), stores the verdicts in the hashed label store, and writes per generator: the
valid and valid-and-useful shares with a 95 % Wilson interval; how many outputs pass the number/unit
guard (``require_quantities``), the content check (``content_refusal``) and both (what the
platform's generator now returns), with the valid share among each; PQI and N from the scanning
report; seconds per variant; with ``--judge``, the shipped judge's ranking and what its handout floor
lets through (``docs/results/neural-labels.md``).
"""
from __future__ import annotations

import argparse
import json
import math
import random
import sys
from collections import defaultdict
from datetime import datetime, timezone
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO)]
OUT = REPO / "docs" / "results" / "neural-labels.md"

from benchmarks.blind import make_blind_batch, read_blind_useful  # noqa: E402
from benchmarks.results import prepend_run  # noqa: E402


def outputs(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def same_words(a: str, b: str) -> bool:
    return " ".join(a.lower().split()) == " ".join(b.lower().split())


def sample(rows: list[dict], per_generator: int, seed: int) -> tuple[list[dict], dict[str, int]]:
    """Up to ``per_generator`` distinct outputs of each generator, none a copy of its problem;
    returns them and how many copies each generator wrote."""
    by_gen: dict[str, list[dict]] = defaultdict(list)
    copies: dict[str, int] = defaultdict(int)
    seen = set()
    for r in rows:
        if same_words(r["problem"], r["text"]):
            copies[r["generator"]] += 1
            continue
        key = (r["generator"], r["problem"].strip(), r["text"].strip())
        if key not in seen and r["text"].strip():
            seen.add(key)
            by_gen[r["generator"]].append(r)
    rng = random.Random(seed)
    picked = []
    for gen in sorted(by_gen):
        rows_g = by_gen[gen]
        picked += rng.sample(rows_g, min(per_generator, len(rows_g)))
    return picked, dict(copies)


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    if not n:
        return 0.0, 0.0
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def guard_passes(problem: str, text: str, generator: str = "stead") -> bool:
    """Whether the guard the platform's STEAD and PAP generators apply before handing an output out
    (``ml.generation.neural``: numbers and units kept) lets it through."""
    from ml.generation.base import require_quantities
    from ml.operators.base import OperatorNotApplicable

    try:
        require_quantities(problem, text, generator=generator)
    except OperatorNotApplicable:
        return False
    return True


def content_kept(problem: str, text: str) -> bool:
    """Whether the neural generators' content check (``ml.generation.base.content_refusal``) keeps it."""
    from ml.generation.base import content_refusal

    return content_refusal(problem, text) is None


def shipped_judge_probabilities(pairs: list[tuple[str, str]]) -> tuple[list[float], float]:
    """The shipped judge's calibrated probability of each (problem, output) pair and its handout
    floor: what would let the output through on a fresh installation (``ml`` only, no Django)."""
    probabilities, floor, _ = shipped_judge_scores(pairs)
    return probabilities, floor


def shipped_judge_scores(pairs: list[tuple[str, str]]) -> tuple[list[float], float, list]:
    """As :func:`shipped_judge_probabilities`, with the features the judge read for each pair."""
    import nltk

    from ml.judge import NumeracyJudge, batch_features, sentence_transformer_tokens, sentence_transformer_words
    from ml.noise.fluency import CausalLMFluency
    from ml.paraqd.model import get_scorer, resolve_encoder_path

    nltk.data.path.insert(0, str(REPO / "var" / "nltk_data"))
    shipped = REPO / "platform" / "modelhub" / "kinds" / "judge" / "shipped"
    card = json.loads((shipped / "card.json").read_text())
    judge = NumeracyJudge.load(shipped)
    scorer = get_scorer(resolve_encoder_path(card["encoder"]), "cpu")
    q, c = [p[0] for p in pairs], [p[1] for p in pairs]
    features = batch_features(q, c, cosines=[float(v) for v in scorer.score(q, c)],
                              token_embedder=sentence_transformer_tokens(scorer.model),
                              fluency_scorer=CausalLMFluency(None, "cpu", batch_size=16),
                              word_embedder=sentence_transformer_words(scorer.model), english=True)
    return judge.probability(features), float(card["handout_floor"]), features


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("step", choices=("make", "read"))
    parser.add_argument("--dump", type=Path, required=True, help="scanning.py --dump output")
    parser.add_argument("--batch", type=Path, required=True, help="the blind batch folder")
    parser.add_argument("--per-generator", type=int, default=110)
    parser.add_argument("--seed", type=int, default=3407)
    parser.add_argument("--report", type=Path, help="scanning.py's report.json (PQI, N, training)")
    parser.add_argument("--judge", action="store_true",
                        help="also score the labelled outputs with the shipped judge (about a minute per 100)")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    rows = outputs(args.dump)
    picked, copies = sample(rows, args.per_generator, args.seed)
    if args.step == "make":
        n = make_blind_batch(args.batch, [{"problem": r["problem"], "variant": r["text"]} for r in picked],
                             seed=args.seed)
        print(f"{args.batch}/blind_batch.csv: {n} rows ({len(picked)} outputs, copies left out: {copies})")
        return
    passes = sorted(args.batch.glob("pass_*.csv"))
    labels, agreement = read_blind_useful(args.batch, passes)
    report = json.loads(args.report.read_text()) if args.report and args.report.is_file() else {}
    lines = [f"## Run of {datetime.now(timezone.utc).strftime('%Y-%m-%d %H:%M UTC')}", "",
             f"Command: `python benchmarks/neural_labels.py read --dump {args.dump} --batch {args.batch}"
             + (f" --report {args.report}" if args.report else "") + (" --judge" if args.judge else "")
             + (f" --out {args.out.relative_to(REPO) if args.out.is_relative_to(REPO) else args.out}"
                if args.out != OUT else "") + "`, after "
             + (f"`scanning.py --neural-only --dump` ({report.get('args', {}).get('preset', '?')} preset, "
                f"{report.get('device', '?')})." if report else "`llm_dump.py` (2 cores, no GPU; since replaced by `llm_verify.py`)."), "",
             f"Data: the outputs of {', '.join(sorted({r['generator'] for r in rows}))} on "
             f"{', '.join(sorted({r['set'] for r in rows}))} problems (none trained on), "
             f"up to {args.per_generator} distinct outputs per generator sampled (seed {args.seed}), labelled blind "
             f"with the generator hidden, {len(passes)} independent passes following `labels/GUIDELINES.md`; an "
             "output is valid only when every pass says so.", "", *agreement]
    training = []
    for name in ("stead", "pap"):
        summary = report.get(name) or {}
        if summary:
            train = summary.get("training", {})
            training.append(f"- {name.upper()}: {summary.get('architecture', '?')}, {train.get('examples_seen', '?')} "
                            f"training examples seen in {train.get('steps', '?')} optimizer steps "
                            f"({train.get('epochs_completed', '?')} full epochs), {summary.get('seconds', '?')} s "
                            f"({train.get('stop_reason') or 'finished'}).")
    if training:
        lines += ["Training (from the scanning report):", *training, ""]
    judged = {}
    if args.judge:
        pairs = [(r["problem"].strip(), r["text"].strip()) for r in picked
                 if (r["problem"].strip(), r["text"].strip()) in labels]
        probabilities, floor = shipped_judge_probabilities(pairs)
        judged = {pair: p for pair, p in zip(pairs, probabilities)}
        lines += [f"The shipped judge's handout floor: {floor:.3f} (calibrated probability of validity).", ""]
    lines += ["| generator | labelled | valid | 95 % interval | valid & useful | pass the number/unit guard | "
              "valid among those | kept by the content check | valid among kept | valid among refused | "
              "kept by both (what the generator returns) | valid among those | "
              "copies of the problem (not labelled) | PQI (AQuA test) | N | s per variant | shipped judge: ROC AUC | "
              "passed by its floor | valid among passed |",
              "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for gen in sorted({r["generator"] for r in rows}):
        mine = [r for r in picked if r["generator"] == gen and (r["problem"].strip(), r["text"].strip()) in labels]
        verdicts = [labels[(r["problem"].strip(), r["text"].strip())] for r in mine]
        valid = sum(v for v, _ in verdicts)
        useful = sum(u for _, u in verdicts)
        # (passes the number guard, kept by the content check, valid) per labelled output
        checked = [(guard_passes(r["problem"], r["text"], gen), content_kept(r["problem"], r["text"]), v)
                   for r, (v, _) in zip(mine, verdicts)]
        guarded = [v for guard, _, v in checked if guard]
        kept = [v for _, ok, v in checked if ok]
        both = [v for guard, ok, v in checked if guard and ok]
        dropped = [v for _, ok, v in checked if not ok]
        lo, hi = wilson(valid, len(verdicts))
        table = report.get("results", {}).get("AQuA test", {}).get("generators", {}).get(gen.upper(), {})
        # seconds per variant: each evaluation set's generation time over the outputs it gave
        per_set = defaultdict(list)
        for r in rows:
            if r["generator"] == gen:
                per_set[r["set"]].append(r)
        seconds = sum(len({r["problem"] for r in rs}) * rs[0]["s_per_problem"] for rs in per_set.values())
        count = sum(len(rs) for rs in per_set.values())
        per_variant = seconds / count if count else None

        def judge_cells(mine, verdicts):
            if not judged:
                return "– | – | –"
            from ml.metrics.classification import roc_auc

            probs = [judged[(r["problem"].strip(), r["text"].strip())] for r in mine]
            ys = [int(v) for v, _ in verdicts]
            auc = f"{roc_auc(probs, ys):.2f}" if 0 < sum(ys) < len(ys) else "–"
            passed = [y for p, y in zip(probs, ys) if p > floor]
            return f"{auc} | {pct(len(passed), len(ys))} | {pct(sum(passed), len(passed))}"

        def pct(k, n):
            return f"{100 * k / n:.0f} % ({k} of {n})" if n else "–"

        pqi = table.get("PQI")
        n_score = table.get("N")
        lines.append(f"| {gen} | {len(verdicts)} | {pct(valid, len(verdicts))} | {100 * lo:.0f}–{100 * hi:.0f} % | "
                     f"{pct(useful, len(verdicts))} | {pct(len(guarded), len(verdicts))} | "
                     f"{pct(sum(guarded), len(guarded))} | {pct(len(kept), len(verdicts))} | "
                     f"{pct(sum(kept), len(kept))} | {pct(sum(dropped), len(dropped))} | "
                     f"{pct(len(both), len(verdicts))} | {pct(sum(both), len(both))} | {copies.get(gen, 0)} | "
                     f"{'–' if pqi is None else f'{pqi:.3f}'} | {'–' if n_score is None else f'{n_score:.3f}'} | "
                     f"{'–' if per_variant is None else f'{per_variant:.2f}'} | {judge_cells(mine, verdicts)} |")
    text = "\n".join(lines) + "\n"
    print(text)
    prepend_run(args.out, "# Neural generators' outputs, labelled blind\n\n", text)


if __name__ == "__main__":
    main()
