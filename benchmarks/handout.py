"""Benchmark: what ``paraphrase`` hands out, judged by what a teacher would accept.

    PARALAB_TORCH_THREADS=2 python benchmarks/handout.py [--problems 130] [--k 3]

For every AQuA dev problem of the shared labelled set (``labels/aqua_dev_candidates_val.csv``,
validation data), it runs the platform's own ``paraphrase_variants`` with its defaults (the same
code as ``manage.py paraphrase`` and ``POST paraphrase/``) on a fresh SQLite database, where the
shipped judge decides, and looks each handed-out variant up in the labels:

- the valid share among the handed-out variants that are labelled, and how many are not labelled
  (those are written to ``--unlabelled`` for blind labelling; their labels, once made, are read back
  from ``--blind`` and counted as a separate row);
- coverage: the share of problems with at least 1 (and at least 3) handed-out variants labelled valid;
- the same for the paper's selection (PAMMR over every candidate, σ = the encoder's cosine): the
  judge switched off (``PARALAB_SHIPPED_JUDGE=0``, ParaQD's cosine deciding) on the same problems;
- the shipped judge's grouped cross-validated ROC AUC on the labelled candidates (its model card).

Numbers come from validation problems (the labelled set): the judge's floor was chosen on them by
out-of-fold scores, so read the handed-out share as a validation figure, not a test result.
Results go to ``docs/results/handout.md`` (``--out``).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "benchmarks"))
DATA = REPO.parent / "shared" / "data"
OUT = REPO / "docs" / "results" / "handout.md"

from results import prepend_run  # noqa: E402
from blind import (LabelLookup, at_least, make_blind_batch, read_blind_dirs, read_blind_useful,  # noqa: E402
                   shared_candidates, stored_labels)


def labels() -> dict[tuple[str, str], dict]:
    return {(r["question"].strip(), r["augmented"].strip()): r for r in shared_candidates()}


def svamp_problems() -> list[str]:
    return [f"{r['Body'].strip()} {r['Question'].strip()}"
            for r in json.loads((DATA / "svamp" / "SVAMP.json").read_text(encoding="utf-8"))]


def aqua_test_problems() -> list[str]:
    lines = (DATA / "aqua" / "test.json").read_text(encoding="utf-8").splitlines()
    return list(dict.fromkeys(json.loads(line)["question"].strip() for line in lines if line.strip()))


# --problem-set: where the problems come from, besides the labelled set's AQuA dev problems.
PROBLEM_SETS = {"aqua-dev-labelled": None, "svamp": svamp_problems, "aqua-test": aqua_test_problems}


def run_arm(problems: list[str], *, k: int, judge: bool, out: Path, llm: Path | None = None) -> None:
    """One arm in a child process (own SQLite database, settings read at start); ``llm``: that GGUF
    file configured as the instruct LLM, so ``paraphrase`` with its defaults tops the rules up with
    it where they give fewer than k likely useful variants (``PARALAB_LLM_FALLBACK``)."""
    env = dict(os.environ, PARALAB_SHIPPED_JUDGE="1" if judge else "0", DJANGO_SETTINGS_MODULE="paralab.settings")
    env.pop("PARALAB_LLM_DIR", None)
    env.pop("PARALAB_LLM_FILE", None)
    if llm is not None:
        env.update(PARALAB_LLM_DIR=str(llm.parent), PARALAB_LLM_FILE=llm.name, PARALAB_LLM_FALLBACK="1")
    with tempfile.TemporaryDirectory() as tmp:
        env["PARALAB_DATA_DIR"] = tmp
        env.pop("DATABASE_URL", None)
        (Path(tmp) / "problems.json").write_text(json.dumps(problems))
        subprocess.run([sys.executable, __file__, "--child", str(Path(tmp) / "problems.json"), "--k", str(k),
                        "--child-out", str(out)], env=env, check=True, cwd=REPO)


def child(problems_file: Path, k: int, out: Path) -> None:
    sys.path[:0] = [str(REPO / "platform"), str(REPO)]
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    from paraphrases.generation import GenerationError
    from paraphrases.handout import paraphrase_variants

    problems = json.loads(problems_file.read_text())
    with out.open("w", encoding="utf-8") as handle:
        for n, text in enumerate(problems, start=1):
            started = time.perf_counter()
            try:
                result = paraphrase_variants(text=text, k=k)
            except GenerationError as exc:  # refused as input (not English, no words): nothing handed out
                result = {"candidates": 0, "passed": 0, "message": str(exc), "judge": None, "variants": []}
            handle.write(json.dumps({
                "problem": text, "seconds": time.perf_counter() - started, "candidates": result["candidates"],
                "passed": result["passed"], "message": result["message"], "judge": result["judge"],
                "llm_asked": result.get("llm_asked", False),
                "variants": [{"text": v["text"], "generator": v["generator"], "valid_probability": v["valid_probability"]}
                             for v in result["variants"]]}) + "\n")
            if n % 10 == 0:
                print(f"  {n}/{len(problems)} problems", flush=True)


def summarise(rows: list[dict], gold: dict, blind: dict, k: int) -> dict:
    """``blind``: (problem, variant) -> (valid, valid and useful)."""
    handed = labelled = valid = unlabelled = blind_n = blind_valid = 0
    problems_one = problems_three = 0
    per_generator: dict[str, list[int]] = {}
    useful_known: list[int] = []
    for row in rows:
        for v in row["variants"]:
            key = (row["problem"].strip(), v["text"].strip())
            if key in gold:
                useful_known.append(int(gold[key]["final_label"] == "1" and gold[key]["useful"].strip() == "yes"))
            elif key in blind:
                useful_known.append(int(blind[key][1]))
    useful_rate = sum(useful_known) / len(useful_known) if useful_known else None
    ones, threes, fives = [], [], []
    for row in rows:
        good = 0
        chances = []
        for v in row["variants"]:
            handed += 1
            key = (row["problem"].strip(), v["text"].strip())
            label = None
            if key in gold:
                labelled += 1
                label = gold[key]["final_label"] == "1"
                valid += label
                chances.append(float(label and gold[key]["useful"].strip() == "yes"))
            elif key in blind:
                blind_n += 1
                label = blind[key][0]
                blind_valid += label
                chances.append(float(blind[key][1]))
            else:
                unlabelled += 1
                chances.append(useful_rate if useful_rate is not None else 0.0)
            if label is not None:
                per_generator.setdefault(v["generator"], []).append(int(label))
            good += bool(label)
        problems_one += good >= 1
        problems_three += good >= min(3, k)
        ones.append(at_least(chances, 1))
        threes.append(at_least(chances, 3))
        fives.append(at_least(chances, 5))
    n = len(rows)
    seconds = [r["seconds"] for r in rows]
    return {
        "problems": n, "handed_out": handed, "labelled": labelled, "valid": valid,
        "valid_share_labelled": valid / labelled if labelled else None,
        "blind": blind_n, "blind_valid": blind_valid, "unlabelled": unlabelled,
        "valid_share_known": (valid + blind_valid) / (labelled + blind_n) if labelled + blind_n else None,
        # Unlabelled variants counted at the blind sample's valid rate: the share of everything handed out.
        "valid_share_estimated": ((valid + blind_valid + unlabelled * blind_valid / blind_n) / handed
                                  if blind_n and handed else None),
        "problems_with_1_valid": problems_one / n if n else None,
        "problems_with_3_valid": problems_three / n if n else None,
        # Valid and useful (GUIDELINES.md), unlabelled variants at the labelled ones' rate.
        "valid_useful_share_known": useful_rate,
        "problems_with_1_useful_est": sum(ones) / n if n and useful_rate is not None else None,
        "problems_with_3_useful_est": sum(threes) / n if n and useful_rate is not None else None,
        "problems_with_5_useful_est": sum(fives) / n if n and useful_rate is not None else None,
        "mean_variants": handed / n if n else None,
        "median_seconds": statistics.median(seconds) if seconds else None,
        # The first problem loads the models; the rest are warm.
        "p90_seconds": statistics.quantiles(seconds[1:], n=10)[-1] if len(seconds) > 2 else None,
        "by_generator": {g: (sum(v) / len(v), len(v)) for g, v in sorted(per_generator.items())},
    }


def fmt(v, pct=True):
    if v is None:
        return "–"
    return f"{100 * v:.1f} %" if pct else f"{v:.2f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--problems", type=int, default=0, help="only the first N labelled problems (0: all 130)")
    parser.add_argument("--k", type=int, default=3)
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--work", type=Path, default=REPO / "var" / "handout")
    parser.add_argument("--blind", type=Path, nargs="*", default=None,
                        help="blind labelling passes over var/handout/blind_batch.csv (CSV: id, valid 0/1, reason); "
                             "a variant counts as valid only when every pass says so; agreement and each pass's "
                             "agreement with the people's labels on the AQUA_test pairs mixed in are reported")
    parser.add_argument("--blind-sample", type=int, default=100,
                        help="unlabelled handed-out variants per selection put in the blind batch (a random sample)")
    parser.add_argument("--arms", default="judge,paper",
                        help="which selections to run (judge, paper, llm); the others are read from --work")
    parser.add_argument("--llm", type=Path, default=None,
                        help="GGUF file for the llm arm (the judge's selection over the defaults + instruct_llm)")
    parser.add_argument("--blind-dir", type=Path, default=None,
                        help="folder of the blind batch the --blind passes labelled (default: --work)")
    parser.add_argument("--reuse", action="store_true", help="re-read the arms' outputs in --work instead of running")
    parser.add_argument("--labelled", type=Path, nargs="*", default=[],
                        help="folders of labelled blind batches (blind_batch.csv, blind_key.csv, pass_*.csv), "
                             "e.g. the ones benchmarks/generators.py made; their labels count")
    parser.add_argument("--problem-set", choices=tuple(PROBLEM_SETS), default="aqua-dev-labelled",
                        help="the labelled set's AQuA dev problems (validation); SVAMP problems (a style the "
                             "judge and the rules were not fitted on; Body + ' ' + Question); or AQuA test "
                             "questions (the acceptance style, never fitted on); the last two labelled blind")
    parser.add_argument("--offset", type=int, default=0, help="skip the set's first problems (SVAMP, AQuA test)")
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--child-out", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.k, args.child_out)
        return
    gold = labels()
    problems = list(dict.fromkeys(q for q, _ in gold))
    if args.problem_set != "aqua-dev-labelled":
        problems = PROBLEM_SETS[args.problem_set]()[args.offset:]
    if args.problems:
        problems = problems[:args.problems]
    args.work.mkdir(parents=True, exist_ok=True)
    arms = {"judge": True, "paper": False}
    if args.llm or (args.work / "llm.jsonl").is_file():
        arms["llm"] = True
    started = time.perf_counter()
    run = {a.strip() for a in args.arms.split(",") if a.strip()}
    for name, judge in arms.items():
        path = args.work / f"{name}.jsonl"
        if not args.reuse and name in run:
            print(f"arm {name}: {len(problems)} problems", flush=True)
            run_arm(problems, k=args.k, judge=judge, out=path, llm=args.llm if name == "llm" else None)
    blind, agreement = read_blind_useful(args.blind_dir or args.work, args.blind or [])
    earlier, earlier_lines = read_blind_dirs(args.labelled)
    # Labels of earlier sessions' batches come from the hashed store (benchmarks/labels/blind.csv).
    blind, agreement = LabelLookup(blind, earlier, store=stored_labels()), earlier_lines + agreement
    results = {}
    unlabelled_by_arm: dict[str, list[dict]] = {}
    for name in arms:
        if not (args.work / f"{name}.jsonl").is_file():
            print(f"arm {name}: not run in {args.work} (--arms), left out", flush=True)
            continue
        rows = [json.loads(line) for line in (args.work / f"{name}.jsonl").read_text().splitlines()]
        rows = [r for r in rows if r["problem"] in set(problems)]  # --problems N: every arm on the same problems
        results[name] = summarise(rows, gold, blind, args.k)
        unlabelled_by_arm[name] = [{"problem": row["problem"], "variant": v["text"]} for row in rows
                                   for v in row["variants"]
                                   if (row["problem"].strip(), v["text"].strip()) not in gold
                                   and (row["problem"].strip(), v["text"].strip()) not in blind]
    if not args.blind and not args.labelled:
        import random

        rng = random.Random(3407)
        sample: dict[tuple[str, str], dict] = {}
        for name, rows in unlabelled_by_arm.items():
            unique = list({(r["problem"], r["variant"]): r for r in rows}.values())
            for r in rng.sample(unique, min(args.blind_sample, len(unique))):
                sample[(r["problem"], r["variant"])] = r
        if sample:
            make_blind_batch(args.work, list(sample.values()))
    unlabelled = sum(r["unlabelled"] for r in results.values())
    card = json.loads((REPO / "platform" / "modelhub" / "kinds" / "judge" / "shipped" / "card.json").read_text())
    stamp = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        f"## Run of {stamp}",
        "",
        f"Command: `python benchmarks/handout.py{' --problems ' + str(args.problems) if args.problems else ''}"
        f"{' --problem-set ' + args.problem_set + ' --offset ' + str(args.offset) if args.problem_set != 'aqua-dev-labelled' else ''}"
        f" --k {args.k}{' --blind ' + ' '.join(map(str, args.blind)) if args.blind else ''}"
        f"{' --labelled ' + ' '.join(str(d) for d in args.labelled) if args.labelled else ''}"
        f"{' --llm ' + str(args.llm) if args.llm else ''}"
        f"{' --work ' + str(args.work) if args.work.resolve() != REPO / 'var' / 'handout' else ''}`"
        f" ({time.perf_counter() - started:.0f} s, {os.cpu_count()} cores, no GPU).",
        "",
        (f"Data: the {len(problems)} AQuA dev problems of `labels/aqua_dev_candidates_val.csv` (validation). "
         if args.problem_set == "aqua-dev-labelled" else
         f"Data: {len(problems)} SVAMP problems from number {args.offset + 1} on (`svamp/SVAMP.json`, Body + ' ' + "
         "Question; a style the judge's floor and the rules were not fitted on). "
         if args.problem_set == "svamp" else
         f"Data: {len(problems)} AQuA test questions from number {args.offset + 1} on (`aqua/test.json`; the style "
         "of the acceptance problems, never fitted on: nothing here chose a rule, a weight or a threshold). ")
        + "Each handed-out variant is looked up in the shared labels; variants they do not hold are "
        "counted from blind labels (this run's passes, earlier batches and the hashed store of labelled "
        "batches, `benchmarks/labels/blind.csv`; a variant is valid only when every pass says so)"
        + (f"; the {unlabelled} that no label holds are put in a shuffled blind batch "
           f"(`{args.work}/blind_batch.csv`), not counted yet." if unlabelled else "."),
        "",
        *agreement,
        "| selection | variants per problem | labelled | valid among labelled | + blind-labelled (sample) "
        "| valid among all known | valid, estimated over all handed out | problems with ≥ 1 known valid "
        "| with ≥ 3 known valid | valid & useful among known | problems with ≥ 1 valid & useful (est.) "
        "| with ≥ 3 (est.) | s/problem, median (p90) |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    titles = {"judge": "shipped judge gates, PAMMR over the survivors (default)",
              "paper": "paper: PAMMR over every candidate, σ = encoder cosine",
              "llm": "shipped judge, the rules topped up by the instruct LLM where they give fewer than k likely useful (make llm, PARALAB_LLM_FALLBACK)"}
    for name, r in results.items():
        lines.append(f"| {titles[name]} | {fmt(r['mean_variants'], False)} | {r['labelled']} of {r['handed_out']} | "
                     f"{fmt(r['valid_share_labelled'])} | {r['blind']} | {fmt(r['valid_share_known'])} | "
                     f"{fmt(r['valid_share_estimated'])} | "
                     f"{fmt(r['problems_with_1_valid'])} | {fmt(r['problems_with_3_valid'])} | "
                     f"{fmt(r['valid_useful_share_known'])} | {fmt(r['problems_with_1_useful_est'])} | "
                     f"{fmt(r['problems_with_3_useful_est'])} | "
                     f"{fmt(r['median_seconds'], False)} ({fmt(r['p90_seconds'], False)}) |")
    cv = card.get("labelled_candidates_grouped_cv", {}).get("threshold", {})
    test = card.get("aqua_test", {}).get("threshold", {})
    lines += [
        "",
        f"The shipped judge (built {card.get('built')}, `{card.get('command')}`): ROC AUC on the labelled candidates, "
        f"5-fold cross-validation grouped by problem, **{cv.get('roc_auc')}**; on AQUA_test (never fitted on) "
        f"{test.get('roc_auc')}, weighted F1(hm) {test.get('weighted_f1_hm')} at the calibrated threshold. "
        f"Handout floor {card.get('handout_floor'):.3f} (maximises F{card.get('floor_beta')} of the valid class on "
        "the labelled candidates' out-of-fold probabilities).",
        "",
        "Valid share by generator among the handed-out variants with a label, per selection:",
        "",
        "| generator | " + " | ".join(results) + " |",
        "|---|" + "---|" * len(results),
    ]
    for g in sorted(set().union(*(r["by_generator"] for r in results.values()))):
        cells = []
        for name in results:
            share, n = results[name]["by_generator"].get(g, (None, 0))
            cells.append(f"{fmt(share)} ({n})" if n else "–")
        lines.append(f"| {g} | " + " | ".join(cells) + " |")
    report = "\n".join(lines) + "\n"
    print(report)
    prepend_run(args.out, "# What `paraphrase` hands out\n\n", report)
    (args.work / "summary.json").write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
