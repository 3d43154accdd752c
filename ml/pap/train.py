"""Training PAP, the paraphraser (paper 000, section 3.8): ``[prompt || problem] -> selected
paraphrase`` over the parallel corpus built from STEAD's outputs (:mod:`ml.pap.data`), with the
same optimiser, checkpoints and resumption as STEAD. A retrain starts from the active PAP's
weights when given (``init_from``), else from the base."""
from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from .. import seq2seq  # train_text_model is looked up at call time, where callers (tests) patch it
from ..seq2seq import load_text_model
from ..stead.config import ScanningPreset
from ..stead.train import TrainedGenerator, build_or_resume_model, seq2seq_train_config, training_summary
from .data import PapPair, pap_examples

__all__ = ["train_pap"]


def train_pap(
    pairs: Sequence[PapPair],
    *,
    preset: ScanningPreset,
    base: str,
    out_dir: Path,
    device: str = "cpu",
    init_from: str | Path | None = None,
    progress: Callable[[float, str], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
    max_seconds: float | None = None,
    corpus_counts: dict[str, int] | None = None,
) -> TrainedGenerator:
    """Train PAP on ``pairs`` and save it to ``out_dir/model`` (checkpoints in
    ``out_dir/checkpoints``; a killed run resumes there)."""
    started = time.monotonic()
    pairs = list(pairs)
    if not pairs:
        raise ValueError("PAP has no training pair: no STEAD output passed QF-PCF")
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)

    def report(fraction: float, note: str) -> None:
        if progress:
            progress(fraction, note)

    if init_from:
        model = load_text_model(Path(init_from), device=device)
    else:
        corpus = [text for p in pairs for text in (p.problem, p.target)]
        model = build_or_resume_model(base, corpus=corpus, preset=preset, out_dir=out_dir, device=device)
    examples = pap_examples(pairs)
    report(0.02, f"{model.architecture} with {model.parameters_count:,} parameters; {len(pairs)} pairs "
                 f"({len(examples)} examples with weights)")

    result = seq2seq.train_text_model(
        model, lambda epoch: examples, seq2seq_train_config(preset, max_seconds=max_seconds),
        checkpoint_dir=out_dir / "checkpoints",
        progress=lambda fraction, note: report(0.02 + 0.96 * fraction, note), should_stop=should_stop,
    )
    model_dir = out_dir / "model"
    model.save(model_dir)
    report(1.0, f"saved to {model_dir}")
    prompts: dict[str, int] = {}
    for pair in pairs:
        prompts[pair.prompt] = prompts.get(pair.prompt, 0) + 1
    summary: dict[str, Any] = {
        "kind": "pap",
        "architecture": model.architecture,
        "base": str(init_from) if init_from else base,
        "parameters": model.parameters_count,
        "pairs": len(pairs),
        "examples": len(examples),
        "problems": len({p.problem for p in pairs}),
        "prompts": prompts,
        "origins": {o: sum(1 for p in pairs if p.origin == o) for o in sorted({p.origin for p in pairs})},
        "corpus": corpus_counts or {},
        "preset": preset.as_dict(),
        "training": training_summary(result),
        "seconds": round(time.monotonic() - started, 1),
        "device": device,
    }
    return TrainedGenerator(model_dir, summary)
