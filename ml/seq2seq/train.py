"""The training loop STEAD and PAP share: the paper's optimiser, fresh examples every epoch,
length-bucketed batches with dynamic padding, mixed precision on a GPU and resumable checkpoints.

Optimiser (paper 000): AdamW, lr 8e-5, weight decay 0.03, linear schedule with 10 % warm-up,
seed 3407, 15 epochs, batch 128, here reached by accumulating gradients over micro-batches.
When a wall-clock budget (``max_seconds``) is set and the planned steps cannot fit, the schedule
is re-planned after the first optimizer step over the steps that fit, so a short CPU run still
warms up and decays instead of stopping at the top of the warm-up.

Checkpoints (``checkpoint_dir/checkpoint``: weights as safetensors, optimizer, scheduler and
loop state) are written atomically every ``checkpoint_every`` optimizer steps, at the end of every
epoch and when the run stops early. A run started on a folder holding a checkpoint resumes from
it: same epoch, the micro-batches already done in that epoch skipped (the epoch's examples and
batch order are rebuilt deterministically from the seed and the epoch number), the schedule and
the random state as saved. ``examples_for_epoch`` is called once for every epoch that runs.
"""
from __future__ import annotations

import json
import logging
import math
import os
import random
import shutil
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["TrainConfig", "TrainResult", "length_buckets", "train_text_model"]

logger = logging.getLogger(__name__)

CHECKPOINT = "checkpoint"


@dataclass(frozen=True)
class TrainConfig:
    learning_rate: float = 8e-5
    weight_decay: float = 0.03
    warmup_ratio: float = 0.1
    epochs: int = 15
    batch_size: int = 128
    micro_batch: int = 16
    seed: int = 3407
    max_source_tokens: int = 192
    max_target_tokens: int = 160
    precision: str = "auto"  # auto: bf16 (or fp16 + loss scaling) on CUDA, fp32 on CPU
    max_seconds: float | None = None
    max_steps: int | None = None
    checkpoint_every: int = 50
    grad_clip: float = 1.0
    bucket_pool: int = 50  # micro-batches per length-sorting pool

    def __post_init__(self) -> None:
        if self.batch_size < 1 or self.micro_batch < 1 or self.batch_size % self.micro_batch:
            raise ValueError("batch_size must be a positive multiple of micro_batch")
        if self.epochs < 1:
            raise ValueError("epochs must be >= 1")
        if self.precision not in ("auto", "fp32", "bf16", "fp16"):
            raise ValueError("precision must be auto, fp32, bf16 or fp16")

    @property
    def accumulation(self) -> int:
        return self.batch_size // self.micro_batch


@dataclass
class TrainResult:
    epochs_completed: int = 0
    steps: int = 0
    planned_steps: int = 0
    examples_seen: int = 0
    final_loss: float | None = None
    loss_history: list[float] = field(default_factory=list)
    seconds: float = 0.0
    resumed_from_step: int = 0
    stopped_early: bool = False
    stop_reason: str = ""
    device: str = "cpu"
    precision: str = "fp32"


def length_buckets(pairs: Sequence[tuple[str, str]], micro_batch: int, seed: int, pool: int = 50) -> list[list[int]]:
    """Micro-batches of indices: shuffled, then sorted by length inside pools of ``pool``
    micro-batches (similar lengths pad little), then the batches shuffled. Deterministic in ``seed``."""
    rng = random.Random(seed)
    order = list(range(len(pairs)))
    rng.shuffle(order)
    size = micro_batch * pool
    batches = []
    for start in range(0, len(order), size):
        chunk = sorted(order[start:start + size], key=lambda i: len(pairs[i][0]) + len(pairs[i][1]))
        batches += [chunk[j:j + micro_batch] for j in range(0, len(chunk), micro_batch)]
    rng.shuffle(batches)
    return batches


def _precision(config: TrainConfig, device: str) -> str:
    import torch

    if not device.startswith("cuda"):
        return "fp32"
    if config.precision != "auto":
        return config.precision
    return "bf16" if torch.cuda.is_bf16_supported() else "fp16"


def _save_checkpoint(directory: Path, model: Any, optimizer: Any, scheduler: Any, state: dict[str, Any]) -> None:
    import torch
    from safetensors.torch import save_model

    directory.mkdir(parents=True, exist_ok=True)
    tmp = directory / f".{CHECKPOINT}.tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir()
    save_model(model.network, str(tmp / "model.safetensors"))
    torch.save({"optimizer": optimizer.state_dict(), "scheduler": scheduler.state_dict(),
                "rng": torch.get_rng_state(),
                "cuda_rng": torch.cuda.get_rng_state_all() if torch.cuda.is_available() else None}, tmp / "optimizer.pt")
    (tmp / "state.json").write_text(json.dumps(state), encoding="utf-8")
    final, old = directory / CHECKPOINT, directory / f".{CHECKPOINT}.old"
    shutil.rmtree(old, ignore_errors=True)
    if final.exists():
        os.replace(final, old)
    os.replace(tmp, final)
    shutil.rmtree(old, ignore_errors=True)


def _load_checkpoint(directory: Path, model: Any, optimizer: Any, scheduler: Any) -> dict[str, Any] | None:
    import torch
    from safetensors.torch import load_model

    final = directory / CHECKPOINT
    if not (final / "state.json").exists():
        return None
    load_model(model.network, str(final / "model.safetensors"), device=str(model.device))
    saved = torch.load(final / "optimizer.pt", map_location=model.device, weights_only=False)
    optimizer.load_state_dict(saved["optimizer"])
    scheduler.load_state_dict(saved["scheduler"])
    if saved.get("rng") is not None:  # dropout continues as if the run had not stopped
        torch.set_rng_state(saved["rng"])
    if saved.get("cuda_rng") and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(saved["cuda_rng"])
    return json.loads((final / "state.json").read_text(encoding="utf-8"))


def train_text_model(
    model: Any,
    examples_for_epoch: Callable[[int], Sequence[tuple[str, str]]],
    config: TrainConfig,
    *,
    checkpoint_dir: Path,
    progress: Callable[[float, str], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> TrainResult:
    """Train ``model`` (a :class:`ml.seq2seq.TextModel`) in place; see the module docstring."""
    import torch

    started = time.monotonic()
    checkpoint_dir = Path(checkpoint_dir)
    torch.manual_seed(config.seed)
    device = model.device
    precision = _precision(config, device)
    plan = {"total": 1}
    no_decay = ("bias", "LayerNorm.weight", "layer_norm.weight", "layernorm.weight", "norm.weight")
    groups = [
        {"params": [p for n, p in model.network.named_parameters() if p.requires_grad and not n.endswith(no_decay)],
         "weight_decay": config.weight_decay},
        {"params": [p for n, p in model.network.named_parameters() if p.requires_grad and n.endswith(no_decay)],
         "weight_decay": 0.0},
    ]
    optimizer = torch.optim.AdamW(groups, lr=config.learning_rate)

    def schedule(step: int) -> float:
        total = max(1, plan["total"])
        warmup = max(1, int(config.warmup_ratio * total))
        if step < warmup:
            return step / warmup
        return max(0.0, (total - step) / max(1, total - warmup))

    # the shape of transformers' get_linear_schedule_with_warmup, over a total that can be re-planned
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, schedule)
    state = _load_checkpoint(checkpoint_dir, model, optimizer, scheduler) or {}
    cached: dict[int, list[tuple[str, str]]] = {}
    steps_per_epoch = int(state.get("steps_per_epoch", 0))
    if not steps_per_epoch and not state.get("planned"):  # a fresh run: size the schedule on epoch 0
        cached[0] = list(examples_for_epoch(0))
        if not cached[0]:
            raise ValueError("no training examples")
        steps_per_epoch = math.ceil(len(cached[0]) / config.batch_size)
    if state.get("planned") and (state.get("replanned") or not steps_per_epoch):
        plan["total"] = int(state["planned"])  # a schedule fitted to a time budget is kept
    else:
        plan["total"] = steps_per_epoch * config.epochs
        if config.max_steps is not None:
            plan["total"] = min(plan["total"], config.max_steps)
    result = TrainResult(planned_steps=plan["total"], device=device, precision=precision,
                         resumed_from_step=int(state.get("step", 0)), steps=int(state.get("step", 0)),
                         examples_seen=int(state.get("examples_seen", 0)),
                         loss_history=list(state.get("loss_history", [])),
                         epochs_completed=int(state.get("epoch", 0)))
    if result.resumed_from_step:
        logger.info("resuming from step %d (epoch %d)", result.resumed_from_step, result.epochs_completed)
        if progress:
            progress(result.steps / max(1, plan["total"]),
                     f"resumed from the checkpoint at step {result.steps} (epoch {result.epochs_completed + 1})")
    scaler = torch.amp.GradScaler("cuda") if precision == "fp16" else None
    autocast_dtype = {"bf16": torch.bfloat16, "fp16": torch.float16}.get(precision)
    accumulation = config.accumulation
    last_note = time.monotonic()
    replanned = bool(state.get("replanned"))
    step_started = time.monotonic()

    def save(epoch: int, micro_done: int) -> None:
        _save_checkpoint(checkpoint_dir, model, optimizer, scheduler, {
            "epoch": epoch, "micro_done": micro_done, "step": result.steps, "examples_seen": result.examples_seen,
            "loss_history": result.loss_history[-2000:], "planned": plan["total"], "replanned": replanned,
            "steps_per_epoch": steps_per_epoch,
        })

    def out_of_budget() -> str:
        if config.max_steps is not None and result.steps >= config.max_steps:
            return f"max_steps {config.max_steps} reached"
        if config.max_seconds is not None and time.monotonic() - started >= config.max_seconds:
            return f"time budget of {config.max_seconds:g} s used"
        if should_stop is not None and should_stop():
            return "asked to stop"
        return ""

    model.network.train()
    start_epoch = int(state.get("epoch", 0))
    skip = int(state.get("micro_done", 0))
    for epoch in range(start_epoch, config.epochs):
        pairs = cached.pop(epoch) if epoch in cached else list(examples_for_epoch(epoch))
        if not pairs:
            raise ValueError(f"no training examples for epoch {epoch}")
        batches = length_buckets(pairs, config.micro_batch, config.seed + epoch, config.bucket_pool)
        micro_done = skip if epoch == start_epoch else 0
        window: list[float] = []
        pending = 0
        for index in range(micro_done, len(batches)):
            batch = model.collate([pairs[i] for i in batches[index]], max_source_tokens=config.max_source_tokens,
                                  max_target_tokens=config.max_target_tokens)
            if autocast_dtype is not None:
                with torch.autocast("cuda", dtype=autocast_dtype):
                    loss = model.loss(batch)
            else:
                loss = model.loss(batch)
            value = float(loss.detach())
            if math.isfinite(value):
                window.append(value)
            scaled = loss / accumulation
            (scaler.scale(scaled) if scaler else scaled).backward()
            pending += 1
            result.examples_seen += len(batches[index])
            micro_done = index + 1
            if pending < accumulation and micro_done < len(batches):
                continue
            if scaler:
                scaler.unscale_(optimizer)
            if pending < accumulation:  # an epoch's short last batch: average over what it had
                for parameter in model.network.parameters():
                    if parameter.grad is not None:
                        parameter.grad.mul_(accumulation / pending)
            torch.nn.utils.clip_grad_norm_(model.network.parameters(), config.grad_clip)
            if scaler:
                scaler.step(optimizer)
                scaler.update()
            else:
                optimizer.step()
            scheduler.step()
            optimizer.zero_grad(set_to_none=True)
            pending = 0
            result.steps += 1
            if window:
                result.loss_history.append(round(sum(window) / len(window), 5))
                window = []
            if not replanned and config.max_seconds is not None:
                replanned = True
                per_step = time.monotonic() - step_started
                fits = int(max(1.0, config.max_seconds - (time.monotonic() - started)) / max(per_step, 1e-6)) + result.steps
                if fits < plan["total"]:
                    plan["total"] = max(result.steps + 1, fits)
                    result.planned_steps = plan["total"]
                    logger.info("time budget: schedule re-planned over %d steps", plan["total"])
            now = time.monotonic()
            if progress and (now - last_note > 5.0 or result.steps == 1):
                last_note = now
                progress(min(1.0, result.steps / max(1, plan["total"])),
                         f"epoch {epoch + 1}/{config.epochs}, step {result.steps}/{plan['total']}, "
                         f"loss {result.loss_history[-1] if result.loss_history else float('nan'):.4f}")
            reason = out_of_budget()
            if reason:
                result.stopped_early, result.stop_reason = True, reason
                save(epoch, micro_done)
                break
            if config.checkpoint_every and result.steps % config.checkpoint_every == 0:
                save(epoch, micro_done)
        if result.stopped_early:
            break
        result.epochs_completed = epoch + 1
        save(epoch + 1, 0)
    result.final_loss = result.loss_history[-1] if result.loss_history else None
    result.seconds = round(time.monotonic() - started, 3)
    model.network.eval()
    if progress:
        progress(1.0, f"trained {result.steps} steps in {result.seconds:.0f} s"
                      + (f" ({result.stop_reason})" if result.stopped_early else ""))
    return result


def result_dict(result: TrainResult) -> dict[str, Any]:
    return asdict(result)
