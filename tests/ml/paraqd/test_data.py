"""Triplet and TripletBatcher: grouping by anchor, exact batch sizes, length buckets, determinism."""
from collections import Counter

import pytest

from ml.paraqd import DISAGREEMENT_SOURCE, Triplet, TripletBatcher


def grouped_triplets(n_anchors=6, per_anchor=4):
    out = []
    for a in range(n_anchors):
        anchor = f"question {a} " + "word " * (3 * a)  # lengths differ between anchors
        for k in range(per_anchor):
            out.append(Triplet(anchor, f"{anchor} positive {k % 2}", f"negative {a}.{k}"))
    return out


def test_triplet_validation_and_hard_flag():
    with pytest.raises(ValueError):
        Triplet("", "p", "n")
    with pytest.raises(ValueError):
        Triplet("a", "p", "n", weight=0)
    with pytest.raises(TypeError):
        Triplet("a", None, "n")
    assert Triplet("a", "p", "n", source=DISAGREEMENT_SOURCE).is_hard
    assert Triplet("a", "p", "n", source="disagreement:annotator-3").is_hard
    assert not Triplet("a", "p", "n", source="f5").is_hard


def test_batches_share_one_anchor_encoding_across_its_triplets():
    triplets = grouped_triplets(n_anchors=6, per_anchor=4)
    batcher = TripletBatcher(triplets, batch_size=4, seed=1)
    batches = list(batcher.epoch(0))
    assert len(batches) == len(batcher) == 6
    for batch in batches:
        # Group size == batch size, so each batch is one anchor's group: one anchor text encoded
        # once for 4 triplets, and the repeated positives (k % 2) encoded once each.
        assert batch.num_anchors == 1 and len(batch) == 4
        assert len(batch.texts) == 1 + 2 + 4
        assert len(set(batch.texts)) == len(batch.texts)
        texts = [(batch.texts[a], batch.texts[p], batch.texts[n])
                 for a, p, n in zip(batch.anchor_index, batch.positive_index, batch.negative_index)]
        assert all((t.anchor, t.positive, t.negative) in texts for t in triplets if t.anchor == texts[0][0])


def test_exact_batch_sizes_and_every_triplet_once_per_epoch():
    triplets = grouped_triplets(n_anchors=7, per_anchor=3)  # 21 triplets, groups of 3, batch 4
    batcher = TripletBatcher(triplets, batch_size=4, seed=3)
    batches = list(batcher.epoch(2))
    assert sorted(len(b) for b in batches) == [1, 4, 4, 4, 4, 4]
    seen = Counter((b.texts[a], b.texts[n]) for b in batches for a, n in zip(b.anchor_index, b.negative_index))
    assert seen == Counter((t.anchor, t.negative) for t in triplets)
    # A group cut by a batch boundary costs at most one extra anchor encoding per batch.
    assert sum(b.num_anchors for b in batches) <= batcher.num_anchors + len(batches) - 1


def test_cap_per_anchor_draws_a_fresh_subset_each_epoch():
    triplets = grouped_triplets(n_anchors=3, per_anchor=5)
    batcher = TripletBatcher(triplets, batch_size=2, seed=0, max_per_anchor=2)
    assert batcher.num_triplets == 6 and len(batcher) == 3
    picked = [{b.texts[n] for b in batcher.epoch(e) for n in b.negative_index} for e in range(4)]
    assert all(len(p) == 6 for p in picked)
    assert len(set(map(frozenset, picked))) > 1


def test_the_cap_always_keeps_disagreement_triplets():
    triplets = grouped_triplets(n_anchors=2, per_anchor=8)
    anchor = triplets[0].anchor
    hard = [Triplet(anchor, f"{anchor} positive 0", f"gold negative {k}", source=f"{DISAGREEMENT_SOURCE}:gold:{k}")
            for k in range(2)]
    batcher = TripletBatcher(triplets + hard, batch_size=3, seed=5, max_per_anchor=3)
    for epoch in range(6):
        negatives = [b.texts[n] for b in batcher.epoch(epoch) for n in b.negative_index]
        assert len(negatives) == 6  # the cap still holds: 3 per anchor
        assert {"gold negative 0", "gold negative 1"} <= set(negatives)


def test_deterministic_given_seed_and_epoch():
    triplets = grouped_triplets(n_anchors=10, per_anchor=3)
    first = list(TripletBatcher(triplets, batch_size=4, seed=7).epoch(0))
    assert first == list(TripletBatcher(triplets, batch_size=4, seed=7).epoch(0))
    assert first != list(TripletBatcher(triplets, batch_size=4, seed=7).epoch(1))
    assert first != list(TripletBatcher(triplets, batch_size=4, seed=8).epoch(0))


def padding_waste(batches):
    """Characters of padding if every text were padded to the longest of its batch."""
    return sum(max(map(len, b.texts)) * len(b.texts) - sum(map(len, b.texts)) for b in batches)


def test_length_buckets_reduce_padding():
    triplets = [Triplet("x " * n, "x " * n + "y", "z " * n) for n in range(1, 65)]  # 64 lengths
    sorted_batches = list(TripletBatcher(triplets, batch_size=8, seed=0, bucket_batches=8).epoch(0))
    unsorted_batches = list(TripletBatcher(triplets, batch_size=8, seed=0, bucket_batches=1).epoch(0))
    assert padding_waste(sorted_batches) < padding_waste(unsorted_batches) / 3
    for batch in sorted_batches:  # whole window sorted: each batch holds 8 consecutive lengths
        lengths = [len(t) for t in batch.texts[::3]]
        assert max(lengths) - min(lengths) <= 2 * 7


def test_weights_include_the_hard_example_multiplier():
    triplets = [Triplet("a", "p", "n", weight=1.5), Triplet("b", "p", "n", source=DISAGREEMENT_SOURCE)]
    batch = next(TripletBatcher(triplets, batch_size=2, hard_example_weight=3.0).epoch(0))
    weights = {batch.texts[a]: w for a, w in zip(batch.anchor_index, batch.weights)}
    assert weights == {"a": 1.5, "b": 3.0}


def test_batcher_refuses_bad_arguments():
    with pytest.raises(ValueError):
        TripletBatcher([], batch_size=4)
    with pytest.raises(ValueError):
        TripletBatcher(grouped_triplets(), batch_size=0)
    with pytest.raises(ValueError):
        TripletBatcher(grouped_triplets(), max_per_anchor=0)
