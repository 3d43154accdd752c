"""Training PAP (paper 000) on the stored parallel corpus, minus gold-invalid candidates, plus
gold-valid STEAD/PAP candidates (weighted up where the deciding judge disagreed with the
annotators)."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from jobs.progress import scaled_progress
from ml.pap import PapPair, apply_gold_labels, train_pap
from ml.serialization import json_safe
from modelhub.artifacts import discard_work, model_device, version_already_trained, version_register, work_dir
from modelhub.disagreements import gold_disagrees
from modelhub.judging import decision
from modelhub.models import ModelVersion
from modelhub.selectors import human_gold_labels

from ..seq2seq import (
    NEURAL_GENERATORS,
    PAP,
    STEAD,
    Progress,
    ScanningError,
    datasets_named,
    scanning_base,
    scanning_preset,
    summary_params,
    training_problem_rows,
    version_resolve,
)
from .corpus import pap_corpus_build

if TYPE_CHECKING:
    from django.contrib.auth.models import AbstractBaseUser

    from jobs.models import Job


@dataclass(frozen=True)
class GoldEdit:
    problem: str
    prompt: str
    text: str
    valid: bool
    disagreed: bool


def pap_gold_edits(*, exclude_candidate_ids: Sequence[int] = ()) -> list[GoldEdit]:
    """Annotators' gold labels on STEAD/PAP candidates (agreement or adjudication), with whether
    the deciding judge disagreed with them (``modelhub.disagreements``)."""
    judge = decision()
    labels = human_gold_labels().filter(candidate__generator__in=NEURAL_GENERATORS).exclude(
        candidate_id__in=list(exclude_candidate_ids)).select_related("candidate__problem")
    edits = []
    for gold in labels:
        candidate = gold.candidate
        scores = candidate.scores.filter(**{f"{judge.column}__isnull": False})
        if judge.version_id is not None:
            scores = scores.filter(model_version_id=judge.version_id)
        score = scores.order_by("-id").values_list(judge.column, flat=True).first()
        edits.append(GoldEdit(candidate.problem.text, candidate.prompt, candidate.text, bool(gold.valid),
                              gold_disagrees(gold_valid=bool(gold.valid), model_score=score, threshold=judge.threshold)))
    return edits


def pap_train(
    *,
    pairs: Sequence[Any],
    preset: str | None = None,
    base: str | None = None,
    activate: bool = False,
    user: AbstractBaseUser | None = None,
    job: Job | None = None,
    progress: Progress | None = None,
    max_seconds: float | None = None,
    init_from: ModelVersion | None = None,
    training_data: dict[str, Any] | None = None,
    gold: Sequence[GoldEdit] = (),
) -> ModelVersion:
    """Train a PAP version on ``pairs`` edited by the annotators' ``gold`` labels."""
    done = version_already_trained(PAP, job, activate=activate, progress=progress, label="PAP")
    if done is not None:
        return done
    config = scanning_preset(preset)
    base = scanning_base(base, config.name)
    edited, counts = apply_gold_labels(pairs, [(g.problem, g.prompt, g.text, g.valid, g.disagreed) for g in gold])
    if not edited:
        raise ScanningError("PAP has nothing to train on: no STEAD output passed QF-PCF and no gold-valid candidate")
    if progress:
        progress(0.0, f"PAP on {len(edited)} pairs ({counts['gold_valid_added']} gold-valid added, "
                      f"{counts['gold_invalid_removed']} gold-invalid removed), base {base}")
    work = work_dir(PAP, job)
    try:
        trained = train_pap(
            edited, preset=config, base=base, out_dir=work, device=model_device(),
            init_from=init_from.artifact_path if init_from is not None else None,
            progress=progress, max_seconds=max_seconds, corpus_counts=counts,
        )
        params, metrics = summary_params(json_safe(trained.summary))
        version = version_register(
            kind=PAP, folder=trained.model_dir, base_model=init_from.artifact_path if init_from else base,
            activate=activate, user=user, job=job, name=f"pap {config.name} on {len(edited)} pairs",
            params=params, metrics=metrics,
            training_data=json_safe({**(training_data or {}), "pairs": len(edited), **counts,
                                     "problems": len({p.problem for p in edited})}),
        )
    except BaseException as exc:
        discard_work(work, exc)
        raise
    discard_work(work)
    return version


def pap_train_from_corpus(
    *,
    dataset_names: Sequence[str],
    preset: str | None = None,
    base: str | None = None,
    stead_version: ModelVersion | int | None = None,
    max_problems: int | None = None,
    activate: bool = False,
    user: AbstractBaseUser | None = None,
    job: Job | None = None,
    progress: Progress | None = None,
    max_seconds: float | None = None,
    exclude_datasets: Sequence[str] = (),
    queue: bool = True,
) -> ModelVersion:
    """Build (or reuse) the parallel corpus of the datasets' problems with STEAD, then train PAP
    on it with the annotators' labels applied."""
    done = version_already_trained(PAP, job, activate=activate)
    if done is not None:
        return done
    config = scanning_preset(preset, max_problems=max_problems)
    stead = version_resolve(STEAD, stead_version)
    datasets = datasets_named(dataset_names)
    rows = training_problem_rows(datasets, max_problems=config.max_problems, seed=config.seed,
                                 exclude=datasets_named(exclude_datasets) if exclude_datasets else ())
    if not rows:
        raise ScanningError(f"no problem of {', '.join(dataset_names)} may be trained on")
    corpus = pap_corpus_build(rows=rows, stead_version=stead, preset=preset, queue=queue,
                              progress=scaled_progress(progress, 0.0, 0.5))
    pairs = [PapPair(problem, prompt, target) for _, problem, prompt, target in corpus["pairs"]]
    return pap_train(
        pairs=pairs, preset=preset, base=base, activate=activate, user=user, job=job,
        progress=scaled_progress(progress, 0.5, 1.0), max_seconds=max_seconds, gold=pap_gold_edits(),
        training_data={"datasets": [d.name for d in datasets], "stead_version": stead.pk,
                       "corpus": corpus["summary"], "corpus_candidate_ids": [c for c, *_ in corpus["pairs"]][:20000]},
    )
