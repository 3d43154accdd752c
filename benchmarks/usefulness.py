"""Benchmark and fit: how well the wording-change features tell a useful valid variant from one a
teacher would not bother handing out, and the logistic weights selection uses.

    python benchmarks/usefulness.py [--out docs/results/usefulness.md]

Labelled pairs (validation data only):
- the shared labelled candidates (``labels/aqua_dev_candidates_val.csv``), valid rows with their
  "useful" column;
- the platform's blind labels (``benchmarks/labels/blind.csv``, keyed by a hash of each pair): the
  rule generators are run again on the problem sets those batches came from (the AQuA dev problems
  of the labelled set, AQuA train 1-1000, GSM8K train 1-500, 1901-2300 and 2401-2900) and every
  output whose pair the store holds is recovered with its verdict (useful only when every pass
  said so).

Reported: per feature and combined, ROC AUC under grouped (by problem) 5-fold cross-validation, for
each source and pooled; the weights fitted on everything, which ``ml/selection/usefulness.py``
holds as ``USEFULNESS``; and the probability those weights give at a few edit counts.
"""
from __future__ import annotations

import argparse
import csv
import json
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO), str(REPO / "benchmarks")]
DATA = REPO.parent / "shared" / "data"

from blind import label_key, stored_labels  # noqa: E402

SLICES = (("aqua-train", 0, 1000), ("gsm8k", 0, 500), ("gsm8k", 1900, 2300), ("gsm8k", 2400, 2900))


def problems_of(name: str) -> list[str]:
    lines = (DATA / name / "train.jsonl").read_text(encoding="utf-8").splitlines()
    return list(dict.fromkeys(json.loads(line)["question"] for line in lines if line.strip()))


def recovered_pairs(problems: list[str], store: dict) -> list[tuple[str, str, bool, bool]]:
    """(problem, text, valid, useful) for each rule output whose pair the store holds."""
    from ml.generation import GENERATORS, GenerationResources, generate

    resources = GenerationResources(wordnet_dir=str(REPO / "var" / "nltk_data"))
    names = [n for n, g in GENERATORS.items() if g.kind == "rule" and "synonym" not in n
             and n not in ("fill_mask", "eda", "copy") and g.unavailable_reason(resources) is None]
    found = []
    for problem in problems:
        candidates, _ = generate(names, problem, 3407, resources)
        for candidate in candidates:
            key = label_key(problem, candidate.text)
            if key in store:
                found.append((problem, candidate.text, *store[key]))
    return found


def grouped_auc(X, y, groups, columns) -> "list[float]":
    import numpy as np
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import GroupKFold

    out = np.zeros(len(y))
    for train, test in GroupKFold(5).split(X, y, groups):
        model = LogisticRegression().fit(X[train][:, columns], y[train])
        out[test] = model.predict_proba(X[test][:, columns])[:, 1]
    return out


def held_out(folders: list[Path], out: Path) -> None:
    """AUC of the committed weights on valid pairs labelled after they were fitted."""
    from sklearn.metrics import roc_auc_score

    from blind import read_blind_useful
    from ml.selection.usefulness import useful_probability

    pairs: dict[tuple[str, str], bool] = {}
    for folder in folders:
        labels, _ = read_blind_useful(folder, sorted(folder.glob("pass_*.csv")), store=False)
        pairs.update({pair: useful for pair, (valid, useful) in labels.items() if valid})
    y = list(pairs.values())
    p = [useful_probability(original, rewrite) for original, rewrite in pairs]
    names = ", ".join(f"`{f}`" for f in folders)
    lines = ["", f"### Held-out check, {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC", "",
             f"Command: `python benchmarks/usefulness.py --held-out {' '.join(str(f) for f in folders)}`.", "",
             f"The committed weights on {len(y)} valid pairs labelled blind after they were fitted ({names}; "
             f"useful only when both passes said so; {sum(y)} useful): ROC AUC **{roc_auc_score(y, p):.3f}**.", ""]
    with out.open("a", encoding="utf-8") as handle:
        handle.write("\n".join(lines) + "\n")
    print("\n".join(lines))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=REPO / "docs" / "results" / "usefulness.md")
    parser.add_argument("--held-out", type=Path, nargs="*", default=[],
                        help="labelled blind batch folders (blind_batch.csv, blind_key.csv, pass_*.csv) made after "
                             "the weights were fitted: only the committed weights' AUC on them is reported (appended "
                             "to --out)")
    args = parser.parse_args()
    if args.held_out:
        held_out(args.held_out, args.out)
        return

    import numpy as np
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import roc_auc_score

    from ml.selection.usefulness import USEFULNESS, usefulness_features, useful_probability

    started = time.perf_counter()
    store = stored_labels()
    with (DATA / "labels" / "aqua_dev_candidates_val.csv").open(newline="", encoding="utf-8") as handle:
        shared = list(csv.DictReader(handle))
    data = [(r["question"], r["augmented"], r["useful"] == "yes", "shared labels") for r in shared
            if r["final_label"] == "1"]
    problems = list(dict.fromkeys(r["question"] for r in shared))
    for name, start, end in SLICES:
        problems += problems_of(name.split("-")[0])[start:end]
    blind = recovered_pairs(list(dict.fromkeys(problems)), store)
    data += [(p, t, useful, "blind labels") for p, t, valid, useful in blind if valid]
    X = np.array([usefulness_features(p, t) for p, t, _, _ in data])
    y = np.array([u for _, _, u, _ in data])
    groups = [p for p, _, _, _ in data]
    sources = np.array([s for _, _, _, s in data])

    lines = [
        f"# Usefulness of a valid variant: run of {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC", "",
        "Command: `python benchmarks/usefulness.py` (2 cores, no GPU; "
        f"{time.perf_counter() - started:.0f} s).", "",
        "Data (validation only): the valid rows of the shared labelled candidates (AQuA dev, their "
        "`useful` column) and the platform's blind labels recovered from the hashed store by running "
        "the rule generators again on the problem sets the batches came from (AQuA dev of the labelled "
        "set, AQuA train 1-1000, GSM8K train 1-500, 1901-2300, 2401-2900; useful only when every pass "
        "said so).", "",
        "| source | valid pairs | useful |", "|---|---|---|",
    ]
    for source in ("shared labels", "blind labels"):
        mask = sources == source
        lines.append(f"| {source} | {int(mask.sum())} | {int(y[mask].sum())} ({y[mask].mean():.0%}) |")
    lines.append(f"| pooled | {len(y)} | {int(y.sum())} ({y.mean():.0%}) |")
    lines += ["", "ROC AUC of the probability of useful, grouped (by problem) 5-fold cross-validation:", "",
              "| features | pooled | shared labels | blind labels |", "|---|---|---|---|"]
    for label, columns in (("log(1 + wording edits)", [0]), ("1 - BLEU, numbers written out", [1]),
                           ("both (what selection uses)", [0, 1])):
        p = grouped_auc(X, y, groups, columns)
        cells = [roc_auc_score(y, p)] + [roc_auc_score(y[sources == s], p[sources == s])
                                         for s in ("shared labels", "blind labels")]
        lines.append(f"| {label} | " + " | ".join(f"{c:.3f}" for c in cells) + " |")

    model = LogisticRegression().fit(X, y)
    intercept, (w_edits, w_div) = float(model.intercept_[0]), (float(c) for c in model.coef_[0])
    committed = np.array([useful_probability(p, t) for p, t, _, _ in data])
    lines += ["", f"Weights fitted on every pair: intercept {intercept:.2f}, log(1 + edits) {w_edits:.2f}, "
              f"divergence {w_div:.2f}. `ml/selection/usefulness.py` holds intercept {USEFULNESS.intercept}, "
              f"edits {USEFULNESS.edits}, divergence {USEFULNESS.divergence}; with those, in-sample "
              f"AUC {roc_auc_score(y, committed):.3f}.", ""]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
