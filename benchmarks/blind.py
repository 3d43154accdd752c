"""Blind labelling batches shared by the benchmarks that measure what people accept
(``handout.py``, ``generators.py``).

A batch is a shuffled CSV of ``id, original, rewrite`` with no generator and no source; AQUA_test
pairs with people's labels are mixed in to check each labelling pass against people, and, where
asked, shared labelled candidates with people's usefulness verdict (``useful_check``). The key
(``blind_key.csv``: id, source, gold) stays beside it. A pass is a CSV ``id, valid (0/1), useful
(yes/no, for valid rows), reason`` written by one labeller following ``labels/GUIDELINES.md``.

Batches hold the shared corpora's text, so they stay in ``var/`` and never enter the repository.
What their passes concluded does: ``benchmarks/labels/blind.csv`` keeps one row per labelled
(original, rewrite) pair under a SHA-256 of the pair (no text), with the verdict, the number of
passes and the batch it came from (:func:`store_labels`, :func:`stored_labels`). Every benchmark
that reads passes adds them to the store, and reads the store, so a fresh checkout counts the
labels earlier sessions made without their batches.
"""
from __future__ import annotations

import csv
import hashlib
import random
from collections.abc import Iterator, Mapping
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DATA = REPO.parent / "shared" / "data"
AQUA_CHECKS = 12  # AQUA_test pairs (people's labels) mixed into every blind batch
STORE = REPO / "benchmarks" / "labels" / "blind.csv"
_STORE_FIELDS = ["key", "valid", "useful", "passes", "batch"]

__all__ = [
    "AQUA_CHECKS", "STORE", "LabelLookup", "at_least", "label_key", "make_blind_batch", "read_blind", "read_blind_dirs",
    "read_blind_useful", "shared_candidates", "store_labels", "stored_labels", "useful_checks",
]


def label_key(original: str, rewrite: str) -> str:
    """The store's key of a labelled pair: SHA-256 of the stripped texts (first 32 hex digits)."""
    return hashlib.sha256(f"{original.strip()}\x1f{rewrite.strip()}".encode("utf-8")).hexdigest()[:32]


class LabelLookup(Mapping):
    """(original, rewrite) -> (valid, valid and useful), from text-keyed dicts first and then the
    hashed store; only ``in`` and ``[]`` by pair are meant (iteration yields the text-keyed pairs)."""

    def __init__(self, *by_text: Mapping, store: Mapping[str, tuple[bool, bool]] | None = None):
        self._by_text = by_text
        self._store = store if store is not None else {}

    def __getitem__(self, pair):
        for labels in self._by_text:
            if pair in labels:
                return labels[pair]
        return self._store[label_key(*pair)]

    def __contains__(self, pair) -> bool:
        return any(pair in labels for labels in self._by_text) or label_key(*pair) in self._store

    def __iter__(self) -> Iterator:
        return iter({pair: None for labels in self._by_text for pair in labels})

    def __len__(self) -> int:
        return len(set(self))


def stored_labels(path: Path = STORE) -> dict[str, tuple[bool, bool]]:
    """The hashed store: key -> (valid, valid and useful)."""
    if not path.is_file():
        return {}
    with path.open(newline="", encoding="utf-8") as handle:
        return {r["key"]: (r["valid"] == "1", r["useful"] == "1") for r in csv.DictReader(handle)}


def store_labels(labels: Mapping[tuple[str, str], tuple[bool, bool]], *, batch: str, passes: int,
                 path: Path = STORE) -> int:
    """Add (or replace) ``labels`` of one batch in the hashed store; returns how many rows it holds."""
    rows: dict[str, dict] = {}
    if path.is_file():
        with path.open(newline="", encoding="utf-8") as handle:
            rows = {r["key"]: r for r in csv.DictReader(handle)}
    for (original, rewrite), (valid, useful) in labels.items():
        key = label_key(original, rewrite)
        rows[key] = {"key": key, "valid": int(valid), "useful": int(useful), "passes": passes, "batch": batch}
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=_STORE_FIELDS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(sorted(rows.values(), key=lambda r: (r["batch"], r["key"])))
    return len(rows)


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


def shared_candidates(data: Path = DATA) -> list[dict]:
    """The rows of the shared labelled candidates (``labels/aqua_dev_candidates_val.csv``: question,
    augmented, final_label, useful, generator, …)."""
    with (data / "labels" / "aqua_dev_candidates_val.csv").open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def useful_checks(count: int, rng: random.Random, data: Path = DATA) -> list[dict]:
    """``count`` valid candidates of the shared labelled set with people's usefulness verdict, half
    of them called not useful (EDA's word salad left out: it tests nothing about wording), as batch
    items of source ``useful_check`` whose gold is "yes" or "no"."""
    valid = [r for r in shared_candidates(data) if r["final_label"] == "1" and r["generator"] != "eda"]
    no = [r for r in valid if r["useful"] == "no"]
    yes = [r for r in valid if r["useful"] == "yes"]
    picked = rng.sample(no, min(len(no), count // 2))
    picked += rng.sample(yes, min(len(yes), count - len(picked)))
    return [{"original": r["question"], "rewrite": r["augmented"], "source": "useful_check", "gold": r["useful"]}
            for r in picked]


def make_blind_batch(work: Path, rows: list[dict], seed: int = 3407, checks: int = AQUA_CHECKS,
                     useful: int = 0) -> int:
    """Write the batch of ``rows`` (``problem``, ``variant``), ``checks`` AQUA_test pairs (people's
    validity) and ``useful`` shared labelled candidates (people's usefulness, :func:`useful_checks`)
    to ``work``; returns its size."""
    rng = random.Random(seed)
    test = list(csv.DictReader(open(DATA / "paraqd" / "AQUA_test.csv", newline="", encoding="utf-8")))
    items = [{"original": r["problem"], "rewrite": r["variant"], "source": "candidate", "gold": ""} for r in rows]
    items += [{"original": r["question"], "rewrite": r["augmented"], "source": "aqua_test", "gold": r["final_label"]}
              for r in rng.sample(test, checks)]
    if useful:
        items += useful_checks(useful, rng)
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


def read_blind_useful(work: Path, passes: list[Path], *, store: bool | Path = True
                      ) -> tuple[dict[tuple[str, str], tuple[bool, bool]], list[str]]:
    """As :func:`read_blind`, with (valid, valid and useful) per row: useful when every pass that
    says valid also says useful. ``store``: add them to the hashed store (:data:`STORE`, or the store
    at that path). Where the batch holds people's usefulness checks, each pass's agreement with them
    is reported too."""
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
            both = [x for x in ids if key[x]["source"] == "candidate" and _truthy(said[i][x]["valid"])
                    and _truthy(said[j][x]["valid"])]
            a = [int(_truthy(said[i][x].get("useful"))) for x in both]
            b = [int(_truthy(said[j][x].get("useful"))) for x in both]
            if both and len(set(a + b)) > 1:
                lines.append(f"On usefulness ({len(both)} candidates both call valid): useful {sum(a)} and {sum(b)} "
                             f"times, Cohen's kappa {cohen_kappa_score(a, b):.2f}.")
    checks = [x for x in ids if key[x]["source"] == "aqua_test"]
    for i, rows in enumerate(said):
        hits = sum(int(_truthy(rows[x]["valid"])) == int(key[x]["gold"]) for x in checks)
        lines.append(f"Pass {i + 1} against people's labels on {len(checks)} AQUA_test pairs mixed in blind: "
                     f"{hits} of {len(checks)} agree.")
    lines += _useful_agreement(ids, key, said)
    labels = {}
    for x in ids:
        if key[x]["source"] == "candidate":
            valid = all(_truthy(rows[x]["valid"]) for rows in said)
            useful = valid and all(_truthy(rows[x].get("useful")) for rows in said)
            labels[(batch[x]["original"].strip(), batch[x]["rewrite"].strip())] = (valid, useful)
    if store:
        store_labels(labels, batch=work.name, passes=len(said), path=store if isinstance(store, Path) else STORE)
    return labels, lines + [""]


def _useful_agreement(ids: list[str], key: dict, said: list[dict[str, dict]]) -> list[str]:
    """Each pass, and the passes together (useful only when all say so), against people's
    usefulness on the checks they all call valid."""
    from sklearn.metrics import cohen_kappa_score

    checks = [x for x in ids if key[x]["source"] == "useful_check"
              and all(_truthy(rows[x]["valid"]) for rows in said)]
    if not checks:
        return []
    gold = [int(_truthy(key[x]["gold"])) for x in checks]
    lines = []
    verdicts = [[int(_truthy(rows[x].get("useful"))) for x in checks] for rows in said]
    verdicts.append([int(all(v[n] for v in verdicts)) for n in range(len(checks))])
    for i, got in enumerate(verdicts):
        who = f"Pass {i + 1}" if i < len(said) else "The passes together"
        hits = sum(a == b for a, b in zip(gold, got))
        kappa = cohen_kappa_score(gold, got) if len(set(gold)) > 1 else float("nan")
        lines.append(f"{who} against people's usefulness on {len(checks)} shared labelled candidates mixed in blind "
                     f"(valid by every pass): {hits} of {len(checks)} agree, kappa {kappa:.2f}; useful {sum(got)} "
                     f"times, people {sum(gold)}.")
    return lines


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
