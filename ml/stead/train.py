"""Training STEAD, the denoiser (paper 000, section 3.6): minimise the negative log-likelihood
of the original (or its passive version) given the prompt and a training-noised input, with fresh
Table 6 noise every epoch, through :func:`ml.seq2seq.train_text_model` (resumable checkpoints).
"""
from __future__ import annotations

import inspect
import logging
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, is_dataclass
from pathlib import Path
from typing import Any

from .. import seq2seq  # train_text_model is looked up at call time, where callers (tests) patch it
from ..seq2seq import TrainConfig, build_text_model, load_text_model
from .config import ScanningPreset
from .data import passive_targets, stead_examples

__all__ = ["TrainedGenerator", "build_or_resume_model", "seq2seq_train_config", "train_stead", "training_summary"]

logger = logging.getLogger(__name__)

Progress = Callable[[float, str], None]


@dataclass
class TrainedGenerator:
    """What a STEAD or PAP training run produced: the saved model directory and a JSON-safe
    summary (``summary``) for the model version's params/metrics."""

    model_dir: Path
    summary: dict[str, Any] = field(default_factory=dict)


def seq2seq_train_config(preset: ScanningPreset, *, max_seconds: float | None = None, max_steps: int | None = None):
    """The :class:`ml.seq2seq.TrainConfig` of a preset (paper optimiser settings)."""
    wanted = dict(
        learning_rate=preset.learning_rate, weight_decay=preset.weight_decay, warmup_ratio=preset.warmup_ratio,
        epochs=preset.epochs, batch_size=preset.batch_size, micro_batch=preset.micro_batch, seed=preset.seed,
        max_source_tokens=preset.max_source_tokens, max_target_tokens=preset.max_target_tokens,
        max_seconds=max_seconds if max_seconds is not None else preset.max_seconds, max_steps=max_steps,
    )
    accepted = inspect.signature(TrainConfig).parameters
    return TrainConfig(**{k: v for k, v in wanted.items() if k in accepted and v is not None})


def build_or_resume_model(base: str, *, corpus: Sequence[str], preset: ScanningPreset, out_dir: Path, device: str):
    """The text model to train: rebuilt from ``out_dir/init`` when an interrupted run left one
    (so a resumed run keeps its tokenizer), else built from ``base`` and, for a scratch base,
    saved there first."""
    init = out_dir / "init"
    if (init / "paralab_text_model.json").exists() or (init / "config.json").exists():
        try:
            return load_text_model(init, device=device)
        except Exception as exc:  # a half-written init: rebuild it
            logger.warning("could not reload %s (%s); building the model again", init, exc)
    options: dict[str, Any] = {"corpus": list(corpus), "size": preset.scratch_size, "device": device}
    params = inspect.signature(build_text_model).parameters
    if "vocab_size" in params:
        options["vocab_size"] = preset.vocab_size
    model = build_text_model(base, **{k: v for k, v in options.items() if k in params})
    if base == "scratch":
        model.save(init)
    return model


def train_stead(
    problems: Sequence[str],
    *,
    preset: ScanningPreset,
    base: str,
    out_dir: Path,
    noise: Callable[[str, random.Random], str],
    device: str = "cpu",
    progress: Progress | None = None,
    should_stop: Callable[[], bool] | None = None,
    max_seconds: float | None = None,
    passive: dict[int, str] | None = None,
    noise_description: dict[str, Any] | None = None,
) -> TrainedGenerator:
    """Train STEAD on ``problems`` (at most ``preset.max_problems``) and save it to
    ``out_dir/model``. ``noise(text, rng)`` applies one sampled Table 6 combination.
    Checkpoints go to ``out_dir/checkpoints``: a run killed midway resumes there."""
    started = time.monotonic()
    problems = [p for p in problems if p and p.strip()]
    if preset.max_problems is not None:
        problems = problems[: preset.max_problems]
    if not problems:
        raise ValueError("no problems to train STEAD on")
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)

    def report(fraction: float, note: str) -> None:
        if progress:
            progress(fraction, note)

    if passive is None:
        report(0.0, f"turning {preset.passive_fraction:.0%} of {len(problems)} problems passive")
        passive = passive_targets(problems, fraction=preset.passive_fraction, seed=preset.seed)
    model = build_or_resume_model(base, corpus=[*problems, *passive.values()], preset=preset, out_dir=out_dir,
                                  device=device)
    report(0.02, f"{model.architecture} with {model.parameters_count:,} parameters; {len(problems)} problems, "
                 f"{len(passive)} passive targets")

    def examples_for_epoch(epoch: int) -> list[tuple[str, str]]:
        return stead_examples(problems, epoch, seed=preset.seed, noise=noise, passive=passive)

    def training_progress(fraction: float, note: str) -> None:
        report(0.02 + 0.96 * fraction, note)

    result = seq2seq.train_text_model(
        model, examples_for_epoch, seq2seq_train_config(preset, max_seconds=max_seconds),
        checkpoint_dir=out_dir / "checkpoints", progress=training_progress, should_stop=should_stop,
    )
    model_dir = out_dir / "model"
    model.save(model_dir)
    report(1.0, f"saved to {model_dir}")
    summary = {
        "kind": "stead",
        "architecture": model.architecture,
        "base": base,
        "parameters": model.parameters_count,
        "problems": len(problems),
        "passive_targets": len(passive),
        "preset": preset.as_dict(),
        "training": training_summary(result),
        "noise": noise_description or {},
        "seconds": round(time.monotonic() - started, 1),
        "device": device,
    }
    return TrainedGenerator(model_dir, summary)


def training_summary(result: Any) -> dict[str, Any]:
    """A training result (``ml.seq2seq`` ``TrainResult`` or any object) as a small JSON-able dict
    for a model version's summary (the loss history thinned to about 50 points)."""
    data = asdict(result) if is_dataclass(result) else dict(getattr(result, "__dict__", {}))
    history = data.get("loss_history")
    if isinstance(history, list) and len(history) > 50:  # keep the summary small
        step = max(1, len(history) // 50)
        data["loss_history"] = history[::step]
    return data
