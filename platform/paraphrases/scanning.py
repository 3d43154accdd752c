"""SCANNING in the platform (paper 000): STEAD and PAP versions, PAP's parallel corpus, the whole
chain as one job, and PAP's retraining from the annotators' labels.

- ``stead_train``: STEAD on the problems of some datasets (test split and evaluation problems
  left out, as for ParaQD), Table 6 noise drawn afresh every epoch, 20 % passive targets.
- ``pap_corpus_build``: the active (or given) STEAD rewrites training problems under Table 7
  inference noise; every output is stored as a ``stead`` candidate with its scores (σ from the
  active ParaQD, else the pretrained encoder); QF-PCF + PAMMR pick at most k per problem, marked
  ``selected_by="pammr"`` and queued for annotation. Those picks *are* the stored parallel
  corpus: browsable on the dataset's candidate page (generator ``stead``, selected only).
- ``pap_train``: PAP on that corpus, minus gold-invalid candidates, plus gold-valid STEAD/PAP
  candidates (weighted up where the model disagreed with the annotators).
- ``scanning_run``: train STEAD → inference noise → generate → score → QF-PCF → PAMMR → train PAP
  → generate on the evaluation dataset with STEAD, PAP, the rule-based generators and the
  baselines (the ``generate`` job's code), and the per-generator mean S, D, N, PQI.

Training runs write checkpoints under ``MODEL_DIR/<kind>/.job-<job id>/``; a job redelivered after
its worker was killed resumes from there (and a version this job already registered is reused).
A failure raised in Python removes the work folder and leaves the active versions as they were.
"""
from __future__ import annotations

import logging
import random
import shutil
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from annotation.models import GoldLabel
from corpus.models import Dataset, Problem
from jobs import tasks
from jobs.models import Job
from jobs.services import job_create, job_enqueue
from jobs.progress import scaled_progress
from modelhub.models import ModelVersion
from modelhub.selectors import modelversion_active
from modelhub.services import modelversion_activate, modelversion_create

from .models import Candidate

if TYPE_CHECKING:
    from django.contrib.auth.models import AbstractBaseUser

logger = logging.getLogger("paralab.scanning")

Progress = Callable[..., None]
STEAD, PAP = "stead", "pap"
NEURAL_GENERATORS = (STEAD, PAP)
PRESETS = ("tiny", "paper")
CORPUS_SELECTOR = "pammr"


class ScanningError(ValueError):
    """Bad input or nothing to train on; the message is for the user."""


# --- settings ------------------------------------------------------------------------------------


def scanning_device() -> str:
    """``PARALAB_DEVICE`` resolved (``auto``: cuda when a GPU is visible)."""
    if settings.PARALAB_DEVICE != "auto":
        return settings.PARALAB_DEVICE
    try:
        import torch

        return "cuda" if torch.cuda.is_available() else "cpu"
    except ImportError:
        return "cpu"


def scanning_base(base: str | None = None, preset: str | None = None) -> str:
    """The STEAD/PAP base: the argument, else ``PARALAB_SEQ2SEQ_BASE`` when set, else the tiny
    scratch BART for the ``tiny`` preset (it must finish in minutes on a CPU; SmolLM2 took over
    40 minutes for 200 problems) and SmolLM2 for the others."""
    named = (base or settings.PARALAB_SEQ2SEQ_BASE or "").strip()
    if named:
        return named
    return "scratch" if preset == "tiny" else "smollm2"


def scanning_preset(name: str | None = None, **overrides: Any):
    from ml.stead import preset

    try:
        return preset(name or settings.PARALAB_SCANNING_PRESET, **overrides)
    except ValueError as exc:
        raise ScanningError(str(exc)) from exc


# --- problems and noise --------------------------------------------------------------------------


def datasets_named(names: Sequence[str]) -> list[Dataset]:
    if not names:
        raise ScanningError("name at least one dataset to train on")
    # A name with a NUL byte names no dataset (and PostgreSQL refuses it in a query).
    found = {d.name: d for d in Dataset.objects.filter(name__in=[n for n in names if "\x00" not in n])}
    missing = [n for n in names if n not in found]
    if missing:
        raise ScanningError(f"unknown dataset(s): {', '.join(missing)}")
    return [found[n] for n in names]


def training_problem_rows(
    datasets: Sequence[Dataset], *, max_problems: int | None = None, exclude: Sequence[Dataset] = (), seed: int = 3407
) -> list[tuple[int, str]]:
    """(id, text) of the problems STEAD/PAP may train on: ParaQD's rule (no test split, no copy of a
    test or imported-pair question) and no problem whose text is in an ``exclude`` dataset (the
    evaluation set); a seeded sample of ``max_problems`` when given, one per distinct text."""
    from modelhub.kinds.paraqd import training_problems

    allowed, _ = training_problems(datasets=datasets)
    if exclude:
        allowed = allowed.exclude(text_hash__in=Problem.objects.filter(dataset__in=exclude).values("text_hash"))
    rows, seen = [], set()
    for pk, text, digest in allowed.order_by("id").values_list("id", "text", "text_hash"):
        if digest not in seen and text.strip():
            seen.add(digest)
            rows.append((pk, text))
    if max_problems is not None and len(rows) > max_problems:
        rows = random.Random(seed).sample(rows, max_problems)
        rows.sort()
    return rows


@lru_cache(maxsize=2)
def _noise_resources(corpus_key: tuple[str, ...], fluency: str) -> Any:
    from ml.generation import GeneratorUnavailable, synonym_lookup
    from ml.noise import noise_resources

    from .generation import generation_resources

    try:
        synonyms = synonym_lookup(generation_resources())
    except GeneratorUnavailable as exc:
        logger.warning("SCANNING noise without synonyms: %s", exc.reason)
        synonyms = None
    return noise_resources(list(corpus_key), fluency=fluency, synonyms=synonyms)


def noise_resources_for(texts: Sequence[str]) -> Any:
    """``ml.noise`` resources for these problems (insertion vocabulary, synonyms, the fluency LM of
    ``PARALAB_FLUENCY_LM``), built once per process and corpus."""
    return _noise_resources(tuple(texts), settings.PARALAB_FLUENCY_LM)


# --- model folders -------------------------------------------------------------------------------


def _root(kind: str) -> Path:
    root = Path(settings.MODEL_DIR) / kind
    root.mkdir(parents=True, exist_ok=True)
    return root


def _work_dir(kind: str, job: Job | None) -> Path:
    """Where a training run writes checkpoints: stable per job, so a redelivered job resumes."""
    name = f".job-{job.pk}" if job is not None else f".partial-{uuid.uuid4().hex[:12]}"
    return _root(kind) / name


def _existing(kind: str, job: Job | None) -> ModelVersion | None:
    """The version of ``kind`` this job already registered (a rerun after a lost worker)."""
    if job is None:
        return None
    done = ModelVersion.objects.filter(job=job, kind=kind).first()
    if done is not None and done.artifact_path and Path(done.artifact_path).is_dir():
        return done
    return None


def _register(kind: str, *, trained: Any, work: Path, base: str, name: str, training_data: dict[str, Any],
              activate: bool, user: Any, job: Job | None) -> ModelVersion:
    """Create the version row, move the trained model to ``MODEL_DIR/<kind>/v<id>-<stamp>`` and
    drop the work folder; activated last when asked."""
    from ml.serialization import json_safe

    stamp = timezone.now().strftime("%Y%m%d-%H%M%S")
    final: Path | None = None
    summary = json_safe(trained.summary)
    try:
        with transaction.atomic():
            version = modelversion_create(
                kind=kind, base_model=base, artifact_path="", training_data=json_safe(training_data),
                params={"preset": summary.get("preset"), "architecture": summary.get("architecture"),
                        "parameters": summary.get("parameters"), "device": summary.get("device")},
                metrics={"training": summary.get("training"), "noise": summary.get("noise"),
                         "seconds": summary.get("seconds")},
                job=job, created_by=user, name=name[:128],
            )
            final = _root(kind) / f"v{version.pk}-{stamp}"
            Path(trained.model_dir).rename(final)
            version.artifact_path = str(final)
            version.save(update_fields=["artifact_path"])
            if activate:
                version = modelversion_activate(version=version)
    except BaseException:
        if final is not None:
            shutil.rmtree(final, ignore_errors=True)
        raise
    shutil.rmtree(work, ignore_errors=True)
    return version


# --- STEAD ---------------------------------------------------------------------------------------


def stead_train(
    *,
    dataset_names: Sequence[str],
    preset: str | None = None,
    base: str | None = None,
    max_problems: int | None = None,
    activate: bool = False,
    user: AbstractBaseUser | None = None,
    job: Job | None = None,
    progress: Progress | None = None,
    max_seconds: float | None = None,
    exclude_datasets: Sequence[str] = (),
) -> ModelVersion:
    """Train a STEAD version on the datasets' problems; a ``candidate`` (or active) version."""
    from ml.noise import apply_training_noise
    from ml.stead import train_stead

    done = _existing(STEAD, job)
    if done is not None:
        if progress:
            progress(1.0, f"STEAD version {done.pk} was already trained by this job")
        return modelversion_activate(version=done) if activate else done
    config = scanning_preset(preset, max_problems=max_problems)
    base = scanning_base(base, config.name)
    datasets = datasets_named(dataset_names)
    rows = training_problem_rows(datasets, max_problems=config.max_problems, seed=config.seed,
                                 exclude=datasets_named(exclude_datasets) if exclude_datasets else ())
    if not rows:
        raise ScanningError(f"no problem of {', '.join(dataset_names)} may be trained on")
    texts = [text for _, text in rows]
    resources = noise_resources_for(texts)
    description = resources.describe()
    if progress:
        progress(0.0, f"STEAD on {len(texts)} problems, base {base}, preset {config.name}; noise: {description}")
    work = _work_dir(STEAD, job)
    try:
        trained = train_stead(
            texts, preset=config, base=base, out_dir=work,
            noise=lambda text, rng: apply_training_noise(text, rng, resources).text,
            device=scanning_device(), progress=progress, max_seconds=max_seconds, noise_description=description,
        )
        version = _register(
            STEAD, trained=trained, work=work, base=base, activate=activate, user=user, job=job,
            name=f"stead {config.name} on {', '.join(d.name for d in datasets)}",
            training_data={"datasets": [d.name for d in datasets], "problems": len(texts),
                           "problem_ids": [pk for pk, _ in rows][:20000],
                           "passive_targets": trained.summary.get("passive_targets")},
        )
    except BaseException as exc:
        if not isinstance(exc, (KeyboardInterrupt, SystemExit)):
            shutil.rmtree(work, ignore_errors=True)
        raise
    logger.info("trained STEAD version %s in %.0f s", version.pk, trained.summary.get("seconds", 0))
    return version


# --- the parallel corpus -------------------------------------------------------------------------


def _scoring_model():
    from modelhub.kinds.paraqd import paraqd_default_model

    return paraqd_default_model()


def _cosines(model) -> Callable[[Sequence[str], Sequence[str]], list[float]]:
    from modelhub.kinds.paraqd import paraqd_cosines

    def cosines(questions: Sequence[str], paraphrases: Sequence[str]) -> list[float]:
        return paraqd_cosines(model=model, questions=list(questions), paraphrases=list(paraphrases))

    return cosines


def _resolve(kind: str, version: ModelVersion | int | None) -> ModelVersion:
    if isinstance(version, ModelVersion):
        return version
    if version is not None:
        found = ModelVersion.objects.filter(pk=version, kind=kind).first()
        if found is None:
            raise ScanningError(f"there is no {kind.upper()} version {version}")
        return found
    active = modelversion_active(kind=kind)
    if active is None:
        raise ScanningError(f"no {kind.upper()} version is active: train one first (train_{kind} --activate)")
    return active


def pap_corpus_build(
    *,
    rows: Sequence[tuple[int, str]],
    stead_version: ModelVersion | int | None = None,
    preset: str | None = None,
    seed: int = 3407,
    queue: bool = True,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """STEAD's outputs on ``rows`` (problem id, text), stored and scored, with QF-PCF + PAMMR's
    picks marked and (``queue``) queued for annotation. Returns ``{"pairs": [(candidate id,
    problem, prompt, target)], "summary": {...}}``. Rerunning it reuses what is stored."""
    from ml.generation import GeneratedCandidate
    from ml.noise import apply_inference_noise
    from ml.pap import select_parallel_corpus
    from ml.stead import stead_generate

    from .generation import _queue, _score, _store

    stead = _resolve(STEAD, stead_version)
    config = scanning_preset(preset)
    model = _load(stead)
    resources = noise_resources_for([text for _, text in rows])
    scorer = _scoring_model()
    pairs: list[tuple[int, str, str, str]] = []
    stats = {"problems": len(rows), "candidates": 0, "pairs": 0, "problems_covered": 0, "reused": 0}
    datasets = dict(Problem.objects.filter(pk__in=[pk for pk, _ in rows]).values_list("pk", "dataset_id"))
    dataset_rows = {d.pk: d for d in Dataset.objects.filter(pk__in=set(datasets.values()))}
    batch = 16
    for start in range(0, len(rows), batch):
        chunk = rows[start:start + batch]
        stored = _stored_corpus(stead, [pk for pk, _ in chunk])
        todo = [(pk, text) for pk, text in chunk if pk not in stored]
        outputs = stead_generate(model, [text for _, text in todo], seed=seed, preset=config,
                                 inference_noise=lambda t, r: apply_inference_noise(t, r, resources)) if todo else []
        for (pk, text), outs in zip(todo, outputs):
            generated = [GeneratedCandidate(o.text, STEAD, o.prompt, {"combination": o.meta.get("combination", ""),
                                                                      "stead_version": stead.pk})
                         for o in outs]
            scored = _score(text, generated, scorer) if generated else []
            picked = select_parallel_corpus(text, [(s.text, s.prompt, s.scores) for s in scored],
                                            k=config.selected_per_problem)
            picked_texts = {p.target for p in picked}
            with transaction.atomic():
                ids = _store(pk, scored, scorer)
                Candidate.objects.filter(pk__in=ids).update(model_version=stead)
                for cid, item in zip(ids, scored):
                    if item.meta.get("combination"):
                        Candidate.objects.filter(pk=cid).update(noise_combination=str(item.meta["combination"])[:128])
                chosen = [cid for cid, item in zip(ids, scored) if item.text in picked_texts]
                Candidate.objects.filter(pk__in=chosen).update(selected_by=CORPUS_SELECTOR)
                if queue and chosen:
                    _queue(dataset_rows[datasets[pk]], chosen)
            stats["candidates"] += len(scored)
            stored[pk] = [(cid, item.prompt, item.text) for cid, item in zip(ids, scored) if item.text in picked_texts]
        for pk, text in chunk:
            picks = stored.get(pk, [])
            stats["problems_covered"] += bool(picks)
            pairs.extend((cid, text, prompt, target) for cid, prompt, target in picks)
        stats["reused"] += len(chunk) - len(todo)
        if progress:
            progress(min(1.0, (start + len(chunk)) / max(1, len(rows))),
                     f"STEAD rewrote {start + len(chunk)}/{len(rows)} problems; {len(pairs)} corpus pairs")
    stats["pairs"] = len(pairs)
    stats["scorer"] = scorer.scorer_version
    return {"pairs": pairs, "summary": stats}


def _stored_corpus(stead: ModelVersion, problem_ids: Sequence[int]) -> dict[int, list[tuple[int, str, str]]]:
    """Corpus picks already stored for these problems by this STEAD version (a rerun reuses them);
    a problem whose outputs were stored without any pick counts as done with none."""
    out: dict[int, list[tuple[int, str, str]]] = {}
    for cid, pid, prompt, text, selected in Candidate.objects.filter(
            generator=STEAD, model_version=stead, problem_id__in=list(problem_ids)).values_list(
            "pk", "problem_id", "prompt", "text", "selected_by"):
        out.setdefault(pid, [])
        if selected:
            out[pid].append((cid, prompt, text))
    return out


@lru_cache(maxsize=4)
def _load_path(path: str, device: str):
    from ml.seq2seq import load_text_model

    return load_text_model(Path(path), device=device)


def _load(version: ModelVersion):
    if not version.artifact_path or not Path(version.artifact_path).is_dir():
        raise ScanningError(f"{version.kind} version {version.pk} has no model folder at {version.artifact_path!r}")
    return _load_path(version.artifact_path, scanning_device())


# --- PAP -----------------------------------------------------------------------------------------


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
    from modelhub.selectors import human_gold_labels

    from modelhub.disagreements import gold_disagrees
    from modelhub.judging import decision

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


def pap_corpus_pairs(*, stead: ModelVersion | None = None, problem_ids: Sequence[int] | None = None) -> list[Any]:
    """The stored parallel corpus as ``ml.pap.PapPair``s: the selected STEAD candidates (of one
    STEAD version when given; of some problems when given)."""
    from ml.pap import PapPair

    qs = Candidate.objects.filter(generator=STEAD).exclude(selected_by="").select_related("problem")
    if stead is not None:
        qs = qs.filter(model_version=stead)
    if problem_ids is not None:
        qs = qs.filter(problem_id__in=list(problem_ids))
    return [PapPair(c.problem.text, c.prompt, c.text) for c in qs.order_by("id")]


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
    from ml.pap import apply_gold_labels, train_pap

    done = _existing(PAP, job)
    if done is not None:
        if progress:
            progress(1.0, f"PAP version {done.pk} was already trained by this job")
        return modelversion_activate(version=done) if activate else done
    config = scanning_preset(preset)
    base = scanning_base(base, config.name)
    edited, counts = apply_gold_labels(pairs, [(g.problem, g.prompt, g.text, g.valid, g.disagreed) for g in gold])
    if not edited:
        raise ScanningError("PAP has nothing to train on: no STEAD output passed QF-PCF and no gold-valid candidate")
    if progress:
        progress(0.0, f"PAP on {len(edited)} pairs ({counts['gold_valid_added']} gold-valid added, "
                      f"{counts['gold_invalid_removed']} gold-invalid removed), base {base}")
    work = _work_dir(PAP, job)
    try:
        trained = train_pap(
            edited, preset=config, base=base, out_dir=work, device=scanning_device(),
            init_from=init_from.artifact_path if init_from is not None else None,
            progress=progress, max_seconds=max_seconds, corpus_counts=counts,
        )
        version = _register(
            PAP, trained=trained, work=work, base=init_from.artifact_path if init_from else base, activate=activate,
            user=user, job=job, name=f"pap {config.name} on {len(edited)} pairs",
            training_data={**(training_data or {}), "pairs": len(edited), **counts,
                           "problems": len({p.problem for p in edited})},
        )
    except BaseException as exc:
        if not isinstance(exc, (KeyboardInterrupt, SystemExit)):
            shutil.rmtree(work, ignore_errors=True)
        raise
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
    done = _existing(PAP, job)
    if done is not None:
        return modelversion_activate(version=done) if activate else done
    config = scanning_preset(preset, max_problems=max_problems)
    stead = _resolve(STEAD, stead_version)
    datasets = datasets_named(dataset_names)
    rows = training_problem_rows(datasets, max_problems=config.max_problems, seed=config.seed,
                                 exclude=datasets_named(exclude_datasets) if exclude_datasets else ())
    if not rows:
        raise ScanningError(f"no problem of {', '.join(dataset_names)} may be trained on")
    corpus = pap_corpus_build(rows=rows, stead_version=stead, preset=preset, queue=queue,
                              progress=scaled_progress(progress, 0.0, 0.5))
    from ml.pap import PapPair

    pairs = [PapPair(problem, prompt, target) for _, problem, prompt, target in corpus["pairs"]]
    return pap_train(
        pairs=pairs, preset=preset, base=base, activate=activate, user=user, job=job,
        progress=scaled_progress(progress, 0.5, 1.0), max_seconds=max_seconds, gold=pap_gold_edits(),
        training_data={"datasets": [d.name for d in datasets], "stead_version": stead.pk,
                       "corpus": corpus["summary"], "corpus_candidate_ids": [c for c, *_ in corpus["pairs"]][:20000]},
    )


# --- jobs ----------------------------------------------------------------------------------------


def _check_preset(preset: str | None) -> None:
    if preset is not None and preset not in PRESETS:
        raise ScanningError(f"unknown preset {preset!r}: choose tiny or paper")


def scanning_train_start(
    *,
    kind: str,
    dataset_names: Sequence[str],
    preset: str | None = None,
    base: str | None = None,
    max_problems: int | None = None,
    activate: bool = False,
    user: AbstractBaseUser | None = None,
    max_seconds: float | None = None,
    enqueue: bool = True,
) -> Job:
    """Queue a STEAD or PAP training job (gpu queue) once the transaction commits."""

    if kind not in NEURAL_GENERATORS:
        raise ScanningError(f"unknown generator kind {kind!r}")
    _check_preset(preset)
    datasets = datasets_named(dataset_names)
    if max_problems is not None and max_problems < 1:
        raise ScanningError("--max-problems must be at least 1")
    job = job_create(
        kind=Job.Kind.TRAIN,
        params={"model": kind, "datasets": [d.name for d in datasets], "preset": preset, "base": base,
                "max_problems": max_problems, "activate": activate, "max_seconds": max_seconds},
        dataset=datasets[0], created_by=user, queue="gpu",
    )
    if enqueue:
        job_enqueue(job=job, task=tasks.SCANNING_TRAIN)
    return job


def scanning_train_run(*, job: Job, progress: Progress | None = None) -> dict[str, Any]:
    """The body of a STEAD/PAP training job."""
    params = job.params
    common = dict(dataset_names=params["datasets"], preset=params.get("preset"), base=params.get("base"),
                  max_problems=params.get("max_problems"), activate=bool(params.get("activate")),
                  user=job.created_by, job=job, progress=progress, max_seconds=params.get("max_seconds"))
    if params.get("model") == STEAD:
        version = stead_train(**common)
    else:
        version = pap_train_from_corpus(**common)
    if version.status == "active":
        from .neural_gate import neural_gate_run

        if progress:
            progress(0.97, "handout gate: the judge reads what the new version writes")
        neural_gate_run(kind=version.kind)
        version.refresh_from_db()
    return _version_result(version)


def _version_result(version: ModelVersion) -> dict[str, Any]:
    return {"version": version.pk, "kind": version.kind, "status": version.status, "path": version.artifact_path,
            "metrics": {k: v for k, v in version.metrics.items() if k != "training"} | {
                "training": {k: v for k, v in (version.metrics.get("training") or {}).items()
                             if k != "loss_history"}}}


def scanning_start(
    *,
    dataset_names: Sequence[str],
    eval_dataset: str,
    preset: str | None = None,
    base: str | None = None,
    max_problems: int | None = None,
    user: AbstractBaseUser | None = None,
    enqueue: bool = True,
) -> Job:
    """Queue the whole SCANNING chain as one job (gpu queue)."""

    _check_preset(preset)
    datasets = datasets_named(dataset_names)
    evaluation = datasets_named([eval_dataset])[0]
    if evaluation.name in [d.name for d in datasets]:
        raise ScanningError("the evaluation dataset must not be one of the training datasets")
    job = job_create(
        kind=Job.Kind.TRAIN,
        params={"model": "scanning", "datasets": [d.name for d in datasets], "eval_dataset": evaluation.name,
                "preset": preset, "base": base, "max_problems": max_problems},
        dataset=evaluation, created_by=user, queue="gpu",
    )
    if enqueue:
        job_enqueue(job=job, task=tasks.SCANNING_RUN)
    return job


def scanning_run(*, job: Job, progress: Progress | None = None) -> dict[str, Any]:
    """The chain (module docstring); the result holds both versions and, per generator, the mean
    S, D, N, PQI, 1 − BLEU, WPD of its candidates on the evaluation dataset."""
    from ml.generation import GENERATORS

    from .generation import generation_resources, generation_run

    params = job.params
    names, evaluation = params["datasets"], params["eval_dataset"]
    started = time.monotonic()
    stead = stead_train(dataset_names=names, preset=params.get("preset"), base=params.get("base"),
                        max_problems=params.get("max_problems"), activate=True, user=job.created_by, job=job,
                        progress=scaled_progress(progress, 0.0, 0.4), exclude_datasets=[evaluation])
    pap = pap_train_from_corpus(dataset_names=names, preset=params.get("preset"), base=params.get("base"),
                                stead_version=stead, max_problems=params.get("max_problems"), activate=True,
                                user=job.created_by, job=job, progress=scaled_progress(progress, 0.4, 0.8),
                                exclude_datasets=[evaluation])
    resources = generation_resources()
    generators = [n for n, g in GENERATORS.items()
                  if n != "instruct_llm" and g.unavailable_reason(resources) is None]
    if progress:
        progress(0.8, f"generating on {evaluation} with {', '.join(generators)}")
    result = generation_run(dataset=datasets_named([evaluation])[0], generators=generators,
                            progress=scaled_progress(progress, 0.8, 1.0))
    return {
        "stead": _version_result(stead), "pap": _version_result(pap),
        "eval_dataset": evaluation, "by_generator": result["by_generator"], "refused": result["refused"],
        "candidates": result["candidates"], "queued": result["queued"], "scorer": result["scorer"],
        "seconds": round(time.monotonic() - started, 1),
    }


# --- PAP retraining (the model kind's hooks) ------------------------------------------------------


def pap_heldout_metrics(*, version: ModelVersion | None, problems: Sequence[tuple[int, str]],
                        preset: str | None = None) -> dict[str, Any]:
    """A PAP version's outputs on held-out problems, scored like everything else: mean PQI, N, S,
    D, and the human-valid rate among outputs that annotators already labelled (same problem and
    text), with how many such outputs there were. ``version=None``: no PAP yet (nothing to beat)."""
    from ml.metrics import paraphrase_scores_many
    from ml.pap import pap_generate

    from corpus.text import text_hash

    from modelhub.kinds.paraqd import paraqd_cosines

    if version is None or not problems:
        return {"n": 0, "problems": len(problems), "PQI": None, "N": None, "S": None, "D": None,
                "human_labelled_outputs": 0, "human_valid_rate": None}
    config = scanning_preset(preset)
    model = _load(version)
    scorer = _scoring_model()
    outputs = pap_generate(model, [text for _, text in problems], preset=config)
    rows: list[dict[str, float]] = []
    labelled = valid = 0
    for (pk, text), outs in zip(problems, outputs):
        texts = [o.text for o in outs]
        if not texts:
            continue
        cos = paraqd_cosines(model=scorer, questions=[text] * len(texts), paraphrases=texts)
        rows += paraphrase_scores_many(text, texts, cos, spacy_model=settings.PARALAB_SPACY_MODEL)
        hashes = [text_hash(t) for t in texts]
        for gold_valid in GoldLabel.objects.filter(candidate__problem_id=pk, candidate__text_hash__in=hashes) \
                .values_list("valid", flat=True):
            labelled += 1
            valid += bool(gold_valid)

    def mean(key: str) -> float | None:
        return round(sum(r[key] for r in rows) / len(rows), 4) if rows else None

    return {"n": len(rows), "problems": len(problems), "PQI": mean("PQI"), "N": mean("N"), "S": mean("S"),
            "D": mean("D"), "human_labelled_outputs": labelled,
            "human_valid_rate": round(valid / labelled, 4) if labelled else None}
