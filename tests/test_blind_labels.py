"""The benchmarks' store of blind labels: verdicts survive a fresh checkout, texts never enter it."""
from __future__ import annotations

import csv
import re

from benchmarks.blind import STORE, LabelLookup, label_key, read_blind_useful, store_labels, stored_labels


def write_batch(folder, rows, passes):
    with (folder / "blind_batch.csv").open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "original", "rewrite"])
        writer.writerows([i, o, r] for i, (o, r, _) in enumerate(rows))
    with (folder / "blind_key.csv").open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "source", "gold"])
        writer.writerows([i, source, gold] for i, (_, _, (source, gold)) in enumerate(rows))
    paths = []
    for n, said in enumerate(passes, start=1):
        path = folder / f"pass_{n}.csv"
        with path.open("w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle)
            writer.writerow(["id", "valid", "useful", "reason"])
            writer.writerows([i, v, u, ""] for i, (v, u) in enumerate(said))
        paths.append(path)
    return paths


def test_read_passes_land_in_the_store_without_their_text(tmp_path):
    batch = tmp_path / "batch-a"
    batch.mkdir()
    rows = [("Tom has 5 pens. How many?", "Find how many pens Tom has, 5 given.", ("candidate", "")),
            ("Ann has 3 cats. What is the total?", "Find the total.", ("candidate", "")),
            ("A check pair.", "A check pair!", ("aqua_test", "1"))]
    passes = write_batch(batch, rows, [[(1, "yes"), (1, "no"), (1, "no")], [(1, "yes"), (0, "no"), (1, "no")]])
    store = tmp_path / "blind.csv"
    labels, lines = read_blind_useful(batch, passes, store=False)
    assert labels[(rows[0][0], rows[0][1])] == (True, True)
    assert labels[(rows[1][0], rows[1][1])] == (False, False)  # valid only when every pass says so
    assert len(labels) == 2  # the people-labelled check is not a candidate's label
    assert store_labels(labels, batch="batch-a", passes=2, path=store) == 2
    text = store.read_text(encoding="utf-8")
    assert "Tom" not in text and "pens" not in text
    found = stored_labels(store)
    assert found[label_key(rows[0][0], rows[0][1])] == (True, True)
    # the same pair labelled again replaces its row instead of adding one
    store_labels({(rows[0][0] + "  ", rows[0][1]): (False, False)}, batch="batch-b", passes=2, path=store)
    assert stored_labels(store)[label_key(rows[0][0], rows[0][1])] == (False, False)
    assert len(stored_labels(store)) == 2


def test_lookup_prefers_text_keyed_labels_then_the_store():
    pair, other = ("Q one?", "Find one."), ("Q two?", "Find two.")
    lookup = LabelLookup({pair: (False, False)}, store={label_key(*pair): (True, True), label_key(*other): (True, False)})
    assert lookup[pair] == (False, False)
    assert other in lookup and lookup[other] == (True, False)
    assert ("Q three?", "x") not in lookup


def test_the_committed_store_holds_only_keys_and_verdicts():
    with STORE.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert rows, "benchmarks/labels/blind.csv is empty"
    for row in rows:
        assert set(row) == {"key", "valid", "useful", "passes", "batch"}
        assert re.fullmatch(r"[0-9a-f]{32}", row["key"])
        assert row["valid"] in ("0", "1") and row["useful"] in ("0", "1") and int(row["passes"]) >= 2
        assert not (row["useful"] == "1" and row["valid"] == "0")


def test_passes_are_checked_against_peoples_usefulness(tmp_path):
    batch = tmp_path / "batch-u"
    batch.mkdir()
    rows = [("Tom has 5 pens. How many?", "How many pens has Tom, given he has 5?", ("candidate", "")),
            ("Ann has 3 cats.", "Given Ann has 3 cats, how many?", ("useful_check", "yes")),
            ("Bo has 2 dogs.", "Bo has two dogs.", ("useful_check", "no")),
            ("Cy has 4 hats.", "Cy owns 4 hats.", ("useful_check", "no"))]
    passes = write_batch(batch, rows, [[(1, "yes"), (1, "yes"), (1, "no"), (1, "yes")],
                                       [(1, "yes"), (1, "yes"), (1, "no"), (1, "no")]])
    labels, lines = read_blind_useful(batch, passes, store=False)
    assert list(labels) == [(rows[0][0], rows[0][1])]  # people's checks are not candidates' labels
    said = [line for line in lines if "usefulness" in line]
    assert said[0].startswith("Pass 1") and "2 of 3 agree" in said[0]
    assert said[1].startswith("Pass 2") and "3 of 3 agree" in said[1]
    assert said[2].startswith("The passes together") and "3 of 3 agree" in said[2]


def test_useful_checks_are_valid_shared_candidates_half_not_useful():
    import random

    from benchmarks.blind import useful_checks

    checks = useful_checks(10, random.Random(1))
    assert len(checks) == 10 and {c["source"] for c in checks} == {"useful_check"}
    assert sum(c["gold"] == "no" for c in checks) == 5 and sum(c["gold"] == "yes" for c in checks) == 5
    assert all(c["original"] and c["rewrite"] and c["original"] != c["rewrite"] for c in checks)
