"""ParaQD training losses on gathered embeddings.

Both take the embeddings of a batch's unique texts, (T, D), and index tensors (B,) saying which
rows are each triplet's anchor, positive and negative, so an anchor shared by several triplets
is encoded once and its gradient sums over them.

- Triplet (paper, eq. in 3.4): max(0, margin - dist(a, n) + dist(a, p)), dist = 1 - cos or
  Euclidean (the authors' script). Weighted mean over triplets: mean(w_i * loss_i), so weight 1
  everywhere is the plain mean and a weight of 2 doubles a triplet's pull.
- MNRL (the paper's ablation): softmax over scale * cos(a_i, c) for every candidate c among the
  batch's positives and negatives; the target is the triplet's own positive. Positives of other
  triplets with the same anchor are masked out: they are valid paraphrases of it, not negatives.

>>> import torch
>>> e = torch.tensor([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]])     # anchor, positive, negative
>>> i = torch.tensor([0]), torch.tensor([1]), torch.tensor([2])
>>> float(triplet_loss(e, *i, margin=0.5, distance="cosine"))   # 0.5 - 1 + 0 < 0
0.0
"""
from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import Tensor

__all__ = ["mnrl_loss", "pairwise_distance", "triplet_loss"]


def pairwise_distance(x: Tensor, y: Tensor, metric: str) -> Tensor:
    """Row-wise distance of (B, D) and (B, D) -> (B,): ``1 - cos`` or Euclidean.

    >>> pairwise_distance(torch.tensor([[3.0, 4.0]]), torch.tensor([[0.0, 0.0]]), "euclidean")
    tensor([5.0000])
    """
    if metric == "cosine":
        return 1.0 - F.cosine_similarity(x, y, dim=-1)  # (B,)
    if metric == "euclidean":
        # pairwise_distance adds eps before the norm, so identical rows (a positive equal to its
        # anchor, encoded once) still have a finite gradient.
        return F.pairwise_distance(x, y, p=2.0)  # (B,)
    raise ValueError(f"unknown distance {metric!r}; use 'cosine' or 'euclidean'")


def _weighted_mean(losses: Tensor, weights: Tensor | None) -> Tensor:
    if weights is None:
        return losses.mean()
    return (losses * weights.to(losses.dtype)).mean()


def triplet_loss(
    embeddings: Tensor,
    anchor_index: Tensor,
    positive_index: Tensor,
    negative_index: Tensor,
    *,
    margin: float,
    distance: str = "cosine",
    weights: Tensor | None = None,
) -> Tensor:
    """Weighted mean of max(0, margin - dist(a, n) + dist(a, p)) over the B triplets.

    ``embeddings`` (T, D); the index tensors and ``weights`` (B,).
    """
    a = embeddings[anchor_index]  # (B, D)
    p = embeddings[positive_index]  # (B, D)
    n = embeddings[negative_index]  # (B, D)
    d_pos = pairwise_distance(a, p, distance)  # (B,)
    d_neg = pairwise_distance(a, n, distance)  # (B,)
    losses = F.relu(margin - d_neg + d_pos)  # (B,)
    return _weighted_mean(losses, weights)


def mnrl_loss(
    embeddings: Tensor,
    anchor_index: Tensor,
    positive_index: Tensor,
    negative_index: Tensor,
    *,
    scale: float = 20.0,
    weights: Tensor | None = None,
) -> Tensor:
    """Multiple negatives ranking loss with in-batch negatives plus each triplet's hard negative.

    ``embeddings`` (T, D); the index tensors and ``weights`` (B,).
    """
    emb = F.normalize(embeddings, dim=-1)  # (T, D)
    candidates = torch.unique(torch.cat([positive_index, negative_index]))  # (C,) sorted text rows
    column = torch.full((emb.shape[0],), -1, dtype=torch.long, device=emb.device)  # (T,)
    column[candidates] = torch.arange(len(candidates), device=emb.device)
    target = column[positive_index]  # (B,) each triplet's own positive

    logits = scale * emb[anchor_index] @ emb[candidates].T  # (B, C)
    # Mask the other positives of the same anchor: (B, B) same-anchor pairs -> (row, column).
    same_anchor = anchor_index[:, None] == anchor_index[None, :]  # (B, B)
    rows, others = same_anchor.nonzero(as_tuple=True)  # (K,), (K,)
    cols = target[others]  # (K,)
    keep = cols != target[rows]  # (K,)
    mask = torch.zeros_like(logits, dtype=torch.bool)  # (B, C)
    mask[rows[keep], cols[keep]] = True
    logits = logits.masked_fill(mask, float("-inf"))
    losses = F.cross_entropy(logits, target, reduction="none")  # (B,)
    return _weighted_mean(losses, weights)
