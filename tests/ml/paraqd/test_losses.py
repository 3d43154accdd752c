"""Triplet loss and MNRL on hand-made embeddings."""
import math

import pytest
import torch

from ml.paraqd.losses import mnrl_loss, pairwise_distance, triplet_loss

# Rows: anchor, positive, negative.
MET = torch.tensor([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]])        # cos(a,p) = 1, cos(a,n) = 0
VIOLATED = torch.tensor([[1.0, 0.0], [0.6, 0.8], [0.8, 0.6]])   # cos(a,p) = 0.6, cos(a,n) = 0.8
IDX = (torch.tensor([0]), torch.tensor([1]), torch.tensor([2]))


def test_cosine_triplet_loss():
    # Margin met: 0.5 - (1 - 0) + (1 - 1) < 0 -> 0.
    assert triplet_loss(MET, *IDX, margin=0.5, distance="cosine").item() == pytest.approx(0.0)
    # Violated: d(a,p) = 0.4, d(a,n) = 0.2 -> 0.5 - 0.2 + 0.4 = 0.7.
    assert triplet_loss(VIOLATED, *IDX, margin=0.5, distance="cosine").item() == pytest.approx(0.7, abs=1e-6)


def test_euclidean_triplet_loss():
    # Met with margin 0.5: d(a,n) = sqrt(2), d(a,p) = 0 -> 0.5 - 1.414 < 0.
    assert triplet_loss(MET, *IDX, margin=0.5, distance="euclidean").item() == pytest.approx(0.0)
    # Margin 5 (the authors' script) is never met on unit vectors: 5 - sqrt(2) + 0.
    assert triplet_loss(MET, *IDX, margin=5.0, distance="euclidean").item() == pytest.approx(5 - math.sqrt(2), abs=1e-5)
    # Violated: d(a,p) = |(0.4, -0.8)| = sqrt(0.8), d(a,n) = |(0.2, -0.6)| = sqrt(0.4).
    expected = 5 - math.sqrt(0.4) + math.sqrt(0.8)
    assert triplet_loss(VIOLATED, *IDX, margin=5.0, distance="euclidean").item() == pytest.approx(expected, abs=1e-5)


def test_weights_scale_each_triplet_and_a_shared_anchor_gets_both_gradients():
    # Two triplets sharing anchor row 0: one violated (0.7), one met (0).
    emb = torch.tensor([[1.0, 0.0], [0.6, 0.8], [0.8, 0.6], [1.0, 0.0], [0.0, 1.0]], requires_grad=True)
    a, p, n = torch.tensor([0, 0]), torch.tensor([1, 3]), torch.tensor([2, 4])
    plain = triplet_loss(emb, a, p, n, margin=0.5)
    assert plain.item() == pytest.approx(0.35, abs=1e-6)  # mean(0.7, 0)
    weighted = triplet_loss(emb, a, p, n, margin=0.5, weights=torch.tensor([2.0, 1.0]))
    assert weighted.item() == pytest.approx(0.7, abs=1e-6)  # mean(2 * 0.7, 1 * 0)
    weighted.backward()
    assert emb.grad[0].abs().sum() > 0 and emb.grad[3].abs().sum() == 0


def test_euclidean_distance_has_a_finite_gradient_for_identical_rows():
    x = torch.tensor([[0.6, 0.8]], requires_grad=True)
    pairwise_distance(x, x, "euclidean").sum().backward()
    assert torch.isfinite(x.grad).all()
    with pytest.raises(ValueError):
        pairwise_distance(x, x, "manhattan")


def test_mnrl_matches_a_hand_computed_softmax():
    # Two anchors (rows 0, 3), positives (1, 4), negatives (2, 5).
    emb = torch.tensor([[1.0, 0.0], [0.8, 0.6], [0.0, 1.0], [0.0, 1.0], [0.6, 0.8], [1.0, 0.0]])
    a, p, n = torch.tensor([0, 3]), torch.tensor([1, 4]), torch.tensor([2, 5])
    # Candidates in row order 1, 2, 4, 5; cosines of anchor 0: 0.8, 0, 0.6, 1; of anchor 3: 0.6, 1, 0.8, 0.
    row0 = torch.log_softmax(20 * torch.tensor([0.8, 0.0, 0.6, 1.0]), 0)[0]
    row1 = torch.log_softmax(20 * torch.tensor([0.6, 1.0, 0.8, 0.0]), 0)[2]
    expected = -(row0 + row1) / 2
    assert mnrl_loss(emb, a, p, n, scale=20).item() == pytest.approx(expected.item(), rel=1e-5)


def test_mnrl_does_not_treat_another_positive_of_the_same_anchor_as_a_negative():
    # One anchor, two valid positives (rows 1 and 2), one negative (row 3).
    emb = torch.tensor([[1.0, 0.0], [0.8, 0.6], [0.6, 0.8], [0.0, 1.0]])
    a, p, n = torch.tensor([0, 0]), torch.tensor([1, 2]), torch.tensor([3, 3])
    first = torch.log_softmax(20 * torch.tensor([0.8, 0.0]), 0)[0]   # candidates 1 and 3 (2 masked)
    second = torch.log_softmax(20 * torch.tensor([0.6, 0.0]), 0)[0]  # candidates 2 and 3 (1 masked)
    assert mnrl_loss(emb, a, p, n).item() == pytest.approx(-(first + second).item() / 2, rel=1e-5)
