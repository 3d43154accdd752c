"""Blind labelling batches shared by the benchmarks that measure what people accept
(``handout.py``, ``generators.py``).

A batch is a shuffled CSV of ``id, original, rewrite`` with no generator and no source; AQUA_test
pairs with people's labels are mixed in to check each labelling pass against people. The key
(``blind_key.csv``: id, source, gold) stays beside it. A pass is a CSV ``id, valid (0/1), useful
(yes/no, for valid rows), reason`` written by one labeller following ``labels/GUIDELINES.md``.
"""
from __future__ import annotations

import csv
import random
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DATA = REPO.parent / "shared" / "data"
AQUA_CHECKS = 12  # AQUA_test pairs (people's labels) mixed into every blind batch

__all__ = ["AQUA_CHECKS", "at_least", "make_blind_batch", "read_blind", "read_blind_dirs", "read_blind_useful"]


def at_least(probabilities: list[float], k: int) -> float:
    """P(at least k successes) of independent events (Poisson binomial)."""
    dist = [1.0]
    for p in probabilities:
        nxt = [0.0] * (len(dist) + 1)
        for j, q in enumerate(dist):
            nxt[j] += q * (1 - p)
            nxt[j + 1] += q * p
        dist = nxt
    return sum(dist[k:])


def make_blind_batch(work: Path, rows: list[dict], seed: int = 3407, checks: int = AQUA_CHECKS) -> int:
    """Write the batch of ``rows`` (``problem``, ``variant``) and ``checks`` AQUA_test pairs to
    ``work``; returns its size."""
    rng = random.Random(seed)
    test = list(csv.DictReader(open(DATA / "paraqd" / "AQUA_test.csv", newline="", encoding="utf-8")))
    items = [{"original": r["problem"], "rewrite": r["variant"], "source": "candidate", "gold": ""} for r in rows]
    items += [{"original": r["question"], "rewrite": r["augmented"], "source": "aqua_test", "gold": r["final_label"]}
              for r in rng.sample(test, checks)]
    rng.shuffle(items)
    work.mkdir(parents=True, exist_ok=True)
    with (work / "blind_batch.csv").open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=["id", "original", "rewrite"])
        writer.writeheader()
        writer.writerows({"id": i, "original": r["original"], "rewrite": r["rewrite"]} for i, r in enumerate(items))
    with (work / "blind_key.csv").open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=["id", "source", "gold"])
        writer.writeheader()
        writer.writerows({"id": i, "source": r["source"], "gold": r["gold"]} for i, r in enumerate(items))
    return len(items)


def _truthy(value: str | None) -> bool:
    return (value or "").strip().lower() in ("1", "true", "yes", "valid")


def _passes(work: Path, passes: list[Path]) -> tuple[dict, dict, list[dict[str, dict]]]:
    batch = {r["id"]: r for r in csv.DictReader(open(work / "blind_batch.csv", newline="", encoding="utf-8"))}
    key = {r["id"]: r for r in csv.DictReader(open(work / "blind_key.csv", newline="", encoding="utf-8"))}
    said = []
    for path in passes:
        rows = {r["id"].strip(): r for r in csv.DictReader(open(path, newline="", encoding="utf-8"))}
        missing = set(batch) - set(rows)
        if missing:
            raise SystemExit(f"{path}: no label for {len(missing)} batch rows (e.g. id {sorted(missing)[0]})")
        said.append(rows)
    return batch, key, said


def read_blind(work: Path, passes: list[Path]) -> tuple[dict[tuple[str, str], bool], list[str]]:
    """Blind labels of the batch's candidate rows (valid only when every pass says valid) and lines
    reporting the passes' agreement (Cohen's kappa) and their agreement with people on AQUA_test."""
    labels, lines = read_blind_useful(work, passes)
    return {k: v[0] for k, v in labels.items()}, lines


def read_blind_useful(work: Path, passes: list[Path]) -> tuple[dict[tuple[str, str], tuple[bool, bool]], list[str]]:
    """As :func:`read_blind`, with (valid, valid and useful) per row: useful when every pass that
    says valid also says useful."""
    from sklearn.metrics import cohen_kappa_score

    if not passes:
        return {}, []
    batch, key, said = _passes(work, passes)
    ids = sorted(batch, key=int)
    lines = []
    for i in range(len(said)):
        for j in range(i + 1, len(said)):
            a = [int(_truthy(said[i][x]["valid"])) for x in ids]
            b = [int(_truthy(said[j][x]["valid"])) for x in ids]
            agree = sum(x == y for x, y in zip(a, b)) / len(ids)
            lines.append(f"Blind passes {i + 1} and {j + 1}: agree on {100 * agree:.0f} % of {len(ids)} rows, "
                         f"Cohen's kappa {cohen_kappa_score(a, b):.2f}.")
    checks = [x for x in ids if key[x]["source"] == "aqua_test"]
    for i, rows in enumerate(said):
        hits = sum(int(_truthy(rows[x]["valid"])) == int(key[x]["gold"]) for x in checks)
        lines.append(f"Pass {i + 1} against people's labels on {len(checks)} AQUA_test pairs mixed in blind: "
                     f"{hits} of {len(checks)} agree.")
    labels = {}
    for x in ids:
        if key[x]["source"] != "aqua_test":
            valid = all(_truthy(rows[x]["valid"]) for rows in said)
            useful = valid and all(_truthy(rows[x].get("useful")) for rows in said)
            labels[(batch[x]["original"].strip(), batch[x]["rewrite"].strip())] = (valid, useful)
    return labels, lines + [""]


def read_blind_dirs(dirs: list[Path]) -> tuple[dict[tuple[str, str], tuple[bool, bool]], list[str]]:
    """The labels of several labelled batches (each folder: blind_batch.csv, blind_key.csv and its
    passes ``pass_*.csv``), merged; the agreement lines are given per folder."""
    labels: dict[tuple[str, str], tuple[bool, bool]] = {}
    lines: list[str] = []
    for folder in dirs:
        passes = sorted(folder.glob("pass_*.csv"))
        if not passes:
            raise SystemExit(f"{folder}: no labelling pass (pass_*.csv)")
        found, said = read_blind_useful(folder, passes)
        labels.update(found)
        lines += [f"Batch `{folder.relative_to(REPO) if folder.is_relative_to(REPO) else folder}` "
                  f"({len(found)} rows, {len(passes)} passes):"] + said
    return labels, lines
