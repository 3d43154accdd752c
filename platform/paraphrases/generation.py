"""Generation on the platform: run generators over a dataset's problems, score and select the
candidates, queue the selected ones for annotation, and hand variants to people and scripts.

The generators, metrics and selectors are pure ``ml`` code (``ml.generation``, ``ml.metrics``,
``ml.selection``); this module reads rows, calls them, and writes the results back:

- :func:`generation_run` (the ``generate`` job, :func:`generation_start` queues it): per problem,
  every chosen generator's candidates become ``Candidate`` rows (unique per problem, generator and
  text), each is scored against its problem (σ from the active ParaQD version, or the packaged
  pretrained encoder when none is active; ν, δ, 1 − BLEU, WPD, PQI) into one ``Score`` row per
  candidate and scorer version, the selector picks ``per_problem`` of them, and the picked ones
  become annotation items (k annotators, the dataset's ``labels_per_item``). Everything is keyed
  by what it is (problem, generator, text; candidate and scorer; candidate), so a redelivered job
  rewrites the same rows; a generator failing on one problem is logged, not fatal.
- :func:`paraphrase_variants` answers ``POST paraphrase/`` and the ``paraphrase`` command: the
  same pipeline on one pasted text, nothing stored.
- :func:`pqi_by_generator` is the ``pqi`` command and the dashboard's PQI-per-generator plot.
"""
from __future__ import annotations

import logging
import time
import zlib
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.db import transaction

from core.errors import UserError
from corpus.models import Dataset, Problem
from jobs import tasks
from jobs.models import Job
from jobs.progress import Progress
from jobs.requests import JobRequest
from jobs.partial import job_partial
from jobs.services import job_create, job_enqueue, job_log
from ml.generation import GENERATORS, GenerationResources, available_generators, generate, get_generator, is_default
from ml.selection import SELECTORS
from modelhub.resources import generation_resources
from modelhub.scorer import scoring_model

from .candidates import NEURAL_KINDS, candidates_queue, candidates_store
from .models import METRIC_KEYS, Candidate
from .neural_defaults import neural_default_reason
from .selection import candidates_score, judged_select

if TYPE_CHECKING:
    from django.contrib.auth.models import AbstractBaseUser

logger = logging.getLogger("paralab.generation")


DEFAULT_SELECTOR = "pammr"
DEFAULT_PER_PROBLEM = 2
DEFAULT_SEED = 3407
MAX_PER_PROBLEM = 20


class GenerationError(UserError):
    """A request the user can fix (unknown generator or selector, empty text, bad count...)."""


# --- resources and names ------------------------------------------------------------------------


def generator_catalog(resources: GenerationResources | None = None) -> list[dict[str, Any]]:
    """Every registered generator: ``{"name", "kind", "description", "available", "reason",
    "default", "not_default_reason"}`` (``default``: run when no generator is named; a trained
    generator only once its version passed the handout gate, ``paraphrases.neural_gate``)."""
    resources = resources or generation_resources()
    rows = []
    for name, generator in GENERATORS.items():
        reason = generator.unavailable_reason(resources)
        default, why_not = is_default(name), ""
        if default and reason is None and name in NEURAL_KINDS:
            why_not = neural_default_reason(name) or ""
            default = not why_not
        rows.append({"name": name, "kind": generator.kind, "description": generator.description,
                     "available": reason is None, "reason": reason or "", "default": default,
                     "not_default_reason": why_not})
    return rows


def _in_default_set(name: str) -> bool:
    """A trained generator runs by default only once its version passed the handout gate."""
    if name not in NEURAL_KINDS:
        return True
    return neural_default_reason(name) is None


def generator_names(requested: Sequence[str] | str | None, resources: GenerationResources) -> list[str]:
    """The generators to run: the requested ones (each must exist and be able to run here), or by
    default the default set (``ml.generation.registry``: no baseline, none of the optional ones)
    that can run here."""
    if isinstance(requested, str):
        requested = [n for n in requested.split(",")]
    names = list(dict.fromkeys(n.strip() for n in (requested or []) if n and n.strip()))
    if not names:
        names = [n for n in available_generators(resources) if _in_default_set(n)]
        if not names:
            raise GenerationError("no generator can run here")
        return names
    unknown = [n for n in names if n not in GENERATORS]
    if unknown:
        raise GenerationError(
            f"unknown generator {', '.join(repr(n) for n in unknown)} (known: {', '.join(GENERATORS)})"
        )
    for name in names:
        reason = GENERATORS[name].unavailable_reason(resources)
        if reason:
            raise GenerationError(f"generator {name!r} cannot run here: {reason}")
    return names


def selector_name(name: str | None) -> str:
    name = (name or DEFAULT_SELECTOR).strip()
    if name not in SELECTORS:
        raise GenerationError(f"unknown selector {name!r} (known: {', '.join(SELECTORS)})")
    return name


def _check_per_problem(per_problem: int) -> int:
    if not isinstance(per_problem, int) or isinstance(per_problem, bool) or not 1 <= per_problem <= MAX_PER_PROBLEM:
        raise GenerationError(f"per_problem must be an integer from 1 to {MAX_PER_PROBLEM}, not {per_problem!r}")
    return per_problem


def request_checked(generators: Sequence[str] | str | None, select: str | None, per_problem: int
             ) -> tuple[GenerationResources, list[str], str]:
    """(resources, generator names, selector) of a request, each checked (GenerationError)."""
    resources = generation_resources()
    names = generator_names(generators, resources)
    selector = selector_name(select)
    _check_per_problem(per_problem)
    return resources, names, selector


def problem_seed(seed: int, text: str) -> int:
    """One seed per (run seed, problem text): the same problem gets the same candidates, whatever
    its id or the dataset it is in."""
    return (seed * 1_000_003 + zlib.crc32(text.encode("utf-8"))) % (2**31)


# --- the generate job ---------------------------------------------------------------------------


@dataclass(frozen=True)
class GenerateRequest(JobRequest):
    """Generators over a dataset's problems: which ones, the selector, how many per problem, whether
    the picks are queued for annotation, the seed, and (``max_problems``) only the first N problems."""

    generators: list[str] = field(default_factory=list)
    select: str | None = None
    per_problem: int = DEFAULT_PER_PROBLEM
    queue: bool = True
    seed: int = DEFAULT_SEED
    max_problems: int | None = None


def generation_start(
    *,
    dataset: Dataset,
    generators: Sequence[str] | str | None = None,
    select: str | None = None,
    per_problem: int = DEFAULT_PER_PROBLEM,
    queue: bool = True,
    seed: int = DEFAULT_SEED,
    user: AbstractBaseUser | None = None,
    enqueue: bool = True,
    max_problems: int | None = None,
) -> Job:
    """Check the request and queue a ``generate`` job (cpu queue: the generators are rule-based;
    a neural generator's job goes to the gpu queue) once the transaction commits. ``max_problems``:
    only the dataset's first N problems (by id)."""

    _, names, selector = request_checked(generators, select, per_problem)
    if not Problem.objects.filter(dataset=dataset).exists():
        raise GenerationError(f"dataset {dataset.name!r} has no problems")
    neural = any(get_generator(n).kind == "neural" for n in names)
    request = GenerateRequest(generators=names, select=selector, per_problem=per_problem, queue=bool(queue),
                              seed=int(seed), max_problems=max_problems)
    job = job_create(
        kind=Job.Kind.GENERATE, params=request.to_params(),
        dataset=dataset, created_by=user, queue="gpu" if neural else "cpu",
    )
    if enqueue:
        job_enqueue(job=job, task=tasks.GENERATE)
    return job


def generation_run(
    *,
    dataset: Dataset,
    generators: Sequence[str] | str | None = None,
    select: str | None = None,
    per_problem: int = DEFAULT_PER_PROBLEM,
    queue: bool = True,
    seed: int = DEFAULT_SEED,
    progress: Progress | None = None,
    log: Callable[[str], None] | None = None,
    max_problems: int | None = None,
    checkpoint: Callable[[dict[str, Any]], None] | None = None,
    resume: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Generate, score, select and (with ``queue``) queue for annotation, for every problem of
    ``dataset``. After each problem, ``checkpoint`` gets the run so far (done problem ids and
    totals); ``resume``, such a checkpoint of an earlier attempt, skips the problems it did and goes
    on from its totals, so a job whose worker was killed never generates a problem twice (an LLM's
    sampled rewrites are not bit-identical from one process to the next). Returns the ``generate`` command's JSON (less ``job``):
    ``{"problems", "candidates", "selected", "queued", "passed" (candidates above the deciding judge's
    handout floor; all of them when ParaQD decides), "rejected_reasons", "by_generator": {name: {"n", "S", "D", "N",
    "PQI", "bleu_div", "wpd"}}, "refused": {name: count}, "failed": [...], "scorer", "select",
    "generators"}``.
    """
    resources, names, selector = request_checked(generators, select, per_problem)
    model = scoring_model()
    problems = list(Problem.objects.filter(dataset=dataset).order_by("id")
                    .values_list("id", "text", "equation", "answer"))
    if max_problems is not None:
        problems = problems[:max_problems]
    if not problems:
        raise GenerationError(f"dataset {dataset.name!r} has no problems")
    if log:
        log(f"generators: {', '.join(names)}; selector {selector}, {per_problem} per problem; σ from "
            f"{model.scorer_version}")
    state = _RunState.from_checkpoint(resume)
    by_generator, refused, failed, rejected = state.by_generator, state.refused, state.failed, state.rejected
    n_candidates, n_selected, n_queued, n_passed = state.n_candidates, state.n_selected, state.n_queued, state.n_passed
    if log and state.done:
        log(f"resuming: {len(state.done)} of {len(problems)} problems were done by an earlier attempt")
    last_note = 0.0
    for done, (problem_id, text, equation, answer) in enumerate(problems, start=1):
        if problem_id in state.done:
            continue
        try:
            generated, refusals = generate(names, text, problem_seed(seed, text), resources, gold=answer or None)
            for name in refusals:
                refused[name] += 1
            scored = candidates_score(text, generated, model) if generated else []
            judged = judged_select(selector, text, scored, per_problem, equation=equation or "", model=model)
            picks = judged.picks
        except Exception as exc:  # one problem's failure must not stop the dataset
            logger.exception("generation failed on problem %s", problem_id)
            failed.append({"problem": problem_id, "error": f"{type(exc).__name__}: {exc}"})
            if log:
                log(f"problem {problem_id}: {type(exc).__name__}: {exc}")
            state.done.add(problem_id)
            continue
        with transaction.atomic():
            ids = candidates_store(problem_id, scored, model, judged=judged)
            picked_ids = [ids[i] for i in picks]
            if picked_ids:
                Candidate.objects.filter(pk__in=picked_ids).exclude(selected_by=selector).update(selected_by=selector)
                if queue:
                    n_queued += candidates_queue(dataset, picked_ids)
        n_candidates += len(scored)
        n_selected += len(picks)
        n_passed += len(judged.passed)
        for reason, count in judged.rejected_reasons.items():
            rejected[reason] += count
        for item in scored:
            _add_scores(by_generator, item.generator, item.scores)
        state.done.add(problem_id)
        if checkpoint is not None:
            checkpoint(state.to_checkpoint(n_candidates, n_selected, n_queued, n_passed))
        now = time.monotonic()
        if progress and (done == len(problems) or now - last_note > 2.0):
            last_note = now
            progress(done / len(problems), f"{done}/{len(problems)} problems, {n_candidates} candidates")
    return {
        "problems": len(problems),
        "candidates": n_candidates,
        "selected": n_selected,
        "queued": n_queued,
        "passed": n_passed,
        "rejected_reasons": dict(sorted(rejected.items(), key=lambda t: -t[1])),
        "by_generator": {name: _summary(sums) for name, sums in sorted(by_generator.items())},
        "refused": dict(sorted(refused.items())),
        "failed": failed,
        "scorer": model.scorer_version,
        "select": selector,
        "generators": names,
    }


def _add_scores(by_generator: dict[str, dict[str, Any]], generator: str, scores: dict[str, float]) -> None:
    """Running sums of a generator's metrics (JSON-safe, so a checkpoint carries them)."""
    sums = by_generator.setdefault(generator, {"n": 0, "sum": {}, "count": {}})
    sums["n"] += 1
    for key in METRIC_KEYS:
        if scores.get(key) is not None:
            sums["sum"][key] = sums["sum"].get(key, 0.0) + float(scores[key])
            sums["count"][key] = sums["count"].get(key, 0) + 1


def _summary(sums: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"n": sums["n"]}
    for key in METRIC_KEYS:
        count = sums["count"].get(key, 0)
        out[key] = round(sums["sum"][key] / count, 4) if count else None
    return out


@dataclass
class _RunState:
    """A generation run's totals so far, as a job checkpoints them (``Job.partial``)."""

    done: set[int] = field(default_factory=set)
    by_generator: dict[str, dict[str, Any]] = field(default_factory=dict)
    refused: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    rejected: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    failed: list[dict[str, Any]] = field(default_factory=list)
    n_candidates: int = 0
    n_selected: int = 0
    n_queued: int = 0
    n_passed: int = 0

    @classmethod
    def from_checkpoint(cls, data: dict[str, Any] | None) -> "_RunState":
        if not data or "done" not in data:
            return cls()
        totals = data.get("totals", {})
        return cls(done={int(i) for i in data["done"]}, by_generator=dict(data.get("by_generator", {})),
                   refused=defaultdict(int, data.get("refused", {})), rejected=defaultdict(int, data.get("rejected", {})),
                   failed=list(data.get("failed", [])), **{k: int(totals.get(k, 0)) for k in
                                                           ("n_candidates", "n_selected", "n_queued", "n_passed")})

    def to_checkpoint(self, n_candidates: int, n_selected: int, n_queued: int, n_passed: int) -> dict[str, Any]:
        return {"done": sorted(self.done), "by_generator": self.by_generator, "refused": dict(self.refused),
                "rejected": dict(self.rejected), "failed": self.failed,
                "totals": {"n_candidates": n_candidates, "n_selected": n_selected, "n_queued": n_queued,
                           "n_passed": n_passed}}


def generate_run(*, job: Job, progress: Progress | None = None) -> dict[str, Any]:
    """The ``generate`` job's body: :func:`generation_run` on the job's dataset, its JSON plus ``job``."""
    if job.dataset is None:
        raise GenerationError("the dataset of this generation job no longer exists")
    request = GenerateRequest.from_params(job.params)
    result = generation_run(
        dataset=job.dataset, generators=request.generators or None, select=request.select,
        per_problem=int(request.per_problem), queue=bool(request.queue), seed=int(request.seed), progress=progress,
        log=lambda line: job_log(job_id=job.pk, line=line), max_problems=request.max_problems,
        checkpoint=lambda state: job_partial(job_id=job.pk, partial=state), resume=job.partial or None,
    )
    return {"job": job.pk, **result}
