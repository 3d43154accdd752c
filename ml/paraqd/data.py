"""Triplets and the batcher that feeds ParaQD training.

A :class:`Triplet` is (anchor question, valid paraphrase, invalid paraphrase). The operators
give each question several positives and negatives, so many triplets share an anchor; the
:class:`TripletBatcher` packs those together and hands the trainer each batch's *unique* texts
plus index lists, so one forward pass encodes every anchor (and a repeated positive) once and the
loss gathers embeddings by index. Groups are sorted by length inside shuffled windows, so
dynamic padding (to the longest text of the batch) wastes little. Pure Python: no torch here.

>>> ts = [Triplet("Q1 has 5 apples.", "Q1 has five apples.", "Q1 has apples."),
...       Triplet("Q1 has 5 apples.", "Q1 has 5 apples.", "Q1 has some apples.")]
>>> batch = next(iter(TripletBatcher(ts, batch_size=2).epoch(0)))
>>> len(batch.texts), batch.anchor_index   # 4 unique texts for 2 triplets, one anchor
(4, (0, 0))
"""
from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

__all__ = ["DISAGREEMENT_SOURCE", "Triplet", "TripletBatch", "TripletBatcher"]

# Triplets built from pairs where annotators disagreed with the model carry this source
# (optionally followed by ":detail"); training multiplies their weight by hard_example_weight.
DISAGREEMENT_SOURCE = "disagreement"


@dataclass(frozen=True)
class Triplet:
    """One training example: ``anchor`` with a valid ``positive`` and an invalid ``negative``.

    ``weight`` scales this triplet's loss; ``source`` says where it came from (e.g. "f3/f8", or
    "disagreement" for a human-model disagreement, see :data:`DISAGREEMENT_SOURCE`).
    """

    anchor: str
    positive: str
    negative: str
    weight: float = 1.0
    source: str = ""

    def __post_init__(self) -> None:
        for name in ("anchor", "positive", "negative"):
            if not isinstance(getattr(self, name), str):
                raise TypeError(f"Triplet.{name} must be a string, got {type(getattr(self, name)).__name__}")
        if not self.anchor.strip():
            raise ValueError("Triplet.anchor must not be empty")
        if not (isinstance(self.weight, (int, float)) and math.isfinite(self.weight) and self.weight > 0):
            raise ValueError(f"Triplet.weight must be a finite number > 0, got {self.weight!r}")

    @property
    def is_hard(self) -> bool:
        """Whether this triplet records a human-model disagreement."""
        return self.source == DISAGREEMENT_SOURCE or self.source.startswith(DISAGREEMENT_SOURCE + ":")


@dataclass(frozen=True)
class TripletBatch:
    """One optimiser step's worth of triplets, deduplicated for encoding.

    ``texts`` holds each distinct text once; the three index tuples (one entry per triplet, B in
    all) point into it, and ``weights`` is each triplet's loss weight.
    """

    texts: tuple[str, ...]
    anchor_index: tuple[int, ...]
    positive_index: tuple[int, ...]
    negative_index: tuple[int, ...]
    weights: tuple[float, ...]

    def __len__(self) -> int:
        return len(self.anchor_index)

    @property
    def num_anchors(self) -> int:
        return len(set(self.anchor_index))


class TripletBatcher:
    """Deterministic, length-bucketed, anchor-grouped batches of ``batch_size`` triplets.

    Per epoch (seeded by ``seed`` and the epoch number, never the global RNG): each anchor's
    triplets are shuffled and capped at ``max_per_anchor`` (a fresh subset each epoch); the anchor
    groups are shuffled, sorted by length inside windows of ``bucket_batches`` batches, laid end
    to end and cut into batches of exactly ``batch_size`` (the last may be short; a group cut by a
    batch boundary costs one extra anchor encoding); the batches are shuffled.
    ``hard_example_weight`` multiplies the weight of triplets marked as disagreements.

    >>> b = TripletBatcher([Triplet("a b", "a  b", "a")] * 5, batch_size=2)
    >>> len(b), b.num_triplets
    (3, 5)
    """

    def __init__(
        self,
        triplets: Sequence[Triplet],
        batch_size: int = 16,
        *,
        seed: int = 3407,
        max_per_anchor: int | None = None,
        bucket_batches: int = 50,
        hard_example_weight: float = 1.0,
        length: Callable[[str], int] = len,
    ) -> None:
        if batch_size < 1:
            raise ValueError("batch_size must be >= 1")
        if max_per_anchor is not None and max_per_anchor < 1:
            raise ValueError("max_per_anchor must be >= 1 or None")
        if bucket_batches < 1:
            raise ValueError("bucket_batches must be >= 1")
        if not triplets:
            raise ValueError("TripletBatcher needs at least one triplet")
        self.triplets = list(triplets)
        self.batch_size = batch_size
        self.seed = seed
        self.max_per_anchor = max_per_anchor
        self.bucket_batches = bucket_batches
        self.weights = [t.weight * (hard_example_weight if t.is_hard else 1.0) for t in self.triplets]
        groups: dict[str, list[int]] = {}
        for i, t in enumerate(self.triplets):
            groups.setdefault(t.anchor, []).append(i)
        self.groups: list[list[int]] = list(groups.values())
        # Padding follows the longest text of a batch, so a group's sort key is its longest text.
        self.group_lengths: list[int] = [
            max(max(length(t.anchor), length(t.positive), length(t.negative)) for t in (self.triplets[i] for i in g))
            for g in self.groups
        ]

    @property
    def num_anchors(self) -> int:
        return len(self.groups)

    @property
    def num_triplets(self) -> int:
        """Triplets seen per epoch (after the per-anchor cap)."""
        cap = self.max_per_anchor
        return sum(len(g) if cap is None else min(len(g), cap) for g in self.groups)

    def __len__(self) -> int:
        """Batches per epoch."""
        return math.ceil(self.num_triplets / self.batch_size)

    def epoch(self, epoch: int) -> Iterator[TripletBatch]:
        """The batches of one epoch, always the same for the same (seed, epoch)."""
        rng = random.Random(self.seed * 1_000_003 + epoch)
        chosen: list[list[int]] = []
        for members in self.groups:
            if self.max_per_anchor is not None and len(members) > self.max_per_anchor:
                # Human-model disagreements always make the cut (they are few and are what a
                # retrain is for); the cap's other places go to a random subset of the rest.
                hard = [i for i in members if self.triplets[i].is_hard]
                rest = [i for i in members if not self.triplets[i].is_hard]
                keep = rng.sample(hard, min(len(hard), self.max_per_anchor))
                members = keep + rng.sample(rest, min(len(rest), self.max_per_anchor - len(keep)))
                rng.shuffle(members)
            else:
                members = members[:]
                rng.shuffle(members)
            chosen.append(members)
        order = list(range(len(chosen)))
        rng.shuffle(order)

        # Sort by length inside windows of ~bucket_batches batches: little padding, yet each
        # epoch mixes different neighbours.
        window = self.bucket_batches * self.batch_size
        stream: list[int] = []
        start = 0
        while start < len(order):
            size, end = 0, start
            while end < len(order) and size < window:
                size += len(chosen[order[end]])
                end += 1
            block = sorted(order[start:end], key=lambda g: self.group_lengths[g])
            for g in block:
                stream.extend(chosen[g])
            start = end

        cuts = [stream[i:i + self.batch_size] for i in range(0, len(stream), self.batch_size)]
        rng.shuffle(cuts)
        for cut in cuts:
            yield self._batch(cut)

    def _batch(self, indices: Sequence[int]) -> TripletBatch:
        position: dict[str, int] = {}

        def index(text: str) -> int:
            return position.setdefault(text, len(position))

        anchors, positives, negatives = [], [], []
        for i in indices:
            t = self.triplets[i]
            anchors.append(index(t.anchor))
            positives.append(index(t.positive))
            negatives.append(index(t.negative))
        return TripletBatch(
            texts=tuple(position),
            anchor_index=tuple(anchors),
            positive_index=tuple(positives),
            negative_index=tuple(negatives),
            weights=tuple(self.weights[i] for i in indices),
        )
