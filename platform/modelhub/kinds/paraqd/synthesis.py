"""ParaQD's synthesized test set (paper 4.2): test operators fa-fe, queued for double annotation."""
from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.db import transaction

from annotation.models import AnnotationItem
from corpus.models import Dataset, Problem
from corpus.text import text_hash
from jobs import tasks
from jobs.models import Job
from jobs.requests import JobRequest
from jobs.services import job_create, job_enqueue
from ml.generation import GenerationResources, generate
from ml.operators import TEST_OPERATORS, fit_tfidf
from ml.seq2seq import Seq2SeqConfig, Seq2SeqGenerator
from modelhub.selectors import modelversion_active
from paraphrases.models import TEST_GENERATOR_PREFIX, Candidate

from .common import SYNTHESIZED_TEST_PURPOSE, ParaQDError, Progress, generation_device, scaled
from .operators import OnceUnavailable, apply_or_none

if TYPE_CHECKING:
    from django.contrib.auth.models import AbstractBaseUser

def _test_generators() -> dict[str, Any]:
    """Generators for fb (the platform's denoiser: the active STEAD version) and fe (a general
    seq2seq paraphraser, ``PARALAB_PARAPHRASER_MODEL``), when they exist; fb/fe refuse otherwise."""

    device = generation_device()
    generators: dict[str, Any] = {}
    stead = modelversion_active(kind="stead")
    if stead is not None and stead.artifact_path and Path(stead.artifact_path).is_dir():
        generators["fb"] = OnceUnavailable(Seq2SeqGenerator(
            Seq2SeqConfig(model=stead.artifact_path, prefix="paraphrase: ", device=device)))
    if settings.PARALAB_PARAPHRASER_MODEL:
        generators["fe"] = OnceUnavailable(Seq2SeqGenerator(
            Seq2SeqConfig(model=settings.PARALAB_PARAPHRASER_MODEL, device=device)))
    return generators


def _pick(names: list[str], count: int, text: str, rng: random.Random, resources_for: Callable[[str], dict]):
    """Up to ``count`` results of distinct operators among ``names``, tried in a random order."""
    order = names[:]
    rng.shuffle(order)
    picked = []
    for name in order:
        if len(picked) == count:
            break
        result = apply_or_none(name, text, rng, resources_for(name))
        if result is not None:
            picked.append(result)
    return picked


def paraqd_synthesize_tests(
    *,
    dataset: Dataset,
    per_problem: int = 2,
    seed: int = 3407,
    progress: Progress | None = None,
    generators: dict[str, Any] | None = None,
    positive_fallback: Sequence[str] = (),
    prefer_generators: bool = False,
) -> dict[str, Any]:
    """ParaQD's synthesized test set (paper 4.2): per problem, ``per_problem`` pairs, half from a
    positive test operator (fa, or fb when a generator exists) and half from a negative one (fc,
    fd, fe), each chosen at random among those that apply. ``positive_fallback``: platform
    generators (``ml.generation``, e.g. ``reorder``) tried in order for the positive half when
    neither fa nor fb applies. The paper's fa rewrites few problems (16 of the 56 demo problems),
    so without it most problems get only their negative pair; the demo passes its validated
    default generators here, first (``prefer_generators``: blind labels found 2 of the paper's
    16 fa pairs on the demo problems garbled, none of the generators'). With a fallback the pairs are balanced: a problem that still has no
    positive gets no negative either, so at least half the pairs are meant to be valid. Each output becomes a Candidate
    (generator ``test:<op>``, ``intended_valid``) and an AnnotationItem (purpose
    ``synthesized_test``, two labels required).

    Idempotent: a problem that already has synthesized test candidates is skipped, so running it
    again creates nothing. fc's TF-IDF is fitted on the dataset's problems.
    Returns ``{"dataset", "problems", "skipped_existing", "no_operator_applied",
    "candidates_created", "items_created", "per_operator"}``.
    """

    if per_problem < 1:
        raise ParaQDError("--per-problem must be at least 1")
    progress = scaled(progress, 0.0, 1.0)
    problems = list(Problem.objects.filter(dataset=dataset).order_by("id").values_list("id", "text"))
    if not problems:
        raise ParaQDError(f"dataset {dataset.name!r} has no problems")
    done_already = set(
        Candidate.objects.filter(problem__dataset=dataset, generator__startswith=TEST_GENERATOR_PREFIX)
        .values_list("problem_id", flat=True)
    )
    gens = _test_generators() if generators is None else generators
    shared = {"spacy_model": settings.PARALAB_SPACY_MODEL, "tfidf": fit_tfidf(text for _, text in problems)}

    def resources_for(name: str) -> dict[str, Any]:
        return {**shared, "generator": gens.get(name)}

    positive = [n for n, spec in TEST_OPERATORS.items() if spec.valid and (n != "fb" or "fb" in gens)]
    negative = [n for n, spec in TEST_OPERATORS.items() if not spec.valid and (n != "fe" or "fe" in gens)]
    n_pos, n_neg = math.ceil(per_problem / 2), per_problem // 2

    per_operator: Counter[str] = Counter()
    created = items = skipped = none_applied = 0
    todo = [(pk, text) for pk, text in problems if pk not in done_already]
    skipped = len(problems) - len(todo)
    for done, (problem_id, text) in enumerate(todo, start=1):
        rng = random.Random(f"{seed}-{problem_id}")
        if prefer_generators and positive_fallback:  # the platform's validated generators first, fa/fb after
            positives = _fallback_positives(text, positive_fallback, n_pos, seed, problem_id)
            if len(positives) < n_pos:
                positives += _pick(positive, n_pos - len(positives), text, rng, resources_for)
        else:
            positives = _pick(positive, n_pos, text, rng, resources_for)
            if len(positives) < n_pos and positive_fallback:
                positives += _fallback_positives(text, positive_fallback, n_pos - len(positives), seed, problem_id)
        negatives = _pick(negative, n_neg, text, rng, resources_for)
        if positive_fallback:  # balanced: a problem no positive operator rewrites gets no negative either
            negatives = negatives[:len(positives)]
        results = positives + negatives
        if not results:
            none_applied += 1
        with transaction.atomic():
            for result in results:
                candidate, was_created = Candidate.objects.get_or_create(
                    problem_id=problem_id,
                    generator=f"{TEST_GENERATOR_PREFIX}{result.operator}",
                    text_hash=text_hash(result.text),
                    defaults={
                        "text": result.text,
                        "operator": result.operator,
                        "intended_valid": result.valid,
                        "metadata": {"synthesized_test": True, "seed": seed,
                                     **{k: v for k, v in result.meta.items() if isinstance(v, (str, int, float, bool))}},
                    },
                )
                _, item_created = AnnotationItem.objects.get_or_create(
                    candidate=candidate,
                    defaults={"dataset": dataset, "purpose": SYNTHESIZED_TEST_PURPOSE,
                              "required_labels": dataset.labels_per_item},
                )
                created += was_created
                items += item_created
                per_operator[result.operator] += was_created
        if progress and (done % 10 == 0 or done == len(todo)):
            progress(done / len(todo), f"{done}/{len(todo)} problems, {created} test pairs")
    return {
        "dataset": dataset.name,
        "problems": len(problems),
        "skipped_existing": skipped,
        "no_operator_applied": none_applied,
        "candidates_created": created,
        "items_created": items,
        "per_operator": dict(sorted(per_operator.items())),
    }


@dataclass(frozen=True)
class _GeneratedPositive:
    """A platform generator's rewrite standing in for fa/fb (shaped like an operator result)."""

    text: str
    operator: str
    valid: bool = True
    meta: dict = field(default_factory=dict)


def _fallback_positives(text: str, names: Sequence[str], count: int, seed: int, problem_id: int) -> list:
    resources = GenerationResources(spacy_model=settings.PARALAB_SPACY_MODEL)  # the rule generators need spaCy only
    found = []
    for name in names:
        if len(found) == count:
            break
        candidates, _ = generate([name], text, seed + problem_id, resources)
        if candidates:
            found.append(_GeneratedPositive(candidates[0].text, name, meta={"fallback_for": "fa"}))
    return found


@dataclass(frozen=True)
class SynthesizeRequest(JobRequest):
    """Synthesize ``per_problem`` test pairs per problem of the job's dataset (see the module)."""

    per_problem: int = 2
    seed: int = 3407
    positive_fallback: list[str] = field(default_factory=list)
    prefer_generators: bool = False


def paraqd_synthesize_start(
    *,
    dataset: Dataset,
    per_problem: int = 2,
    seed: int = 3407,
    user: AbstractBaseUser | None = None,
    enqueue: bool = True,
    positive_fallback: Sequence[str] = (),
    prefer_generators: bool = False,
) -> Job:
    """Queue a synthesis job (cpu queue) once the transaction commits."""

    if per_problem < 1:
        raise ParaQDError("--per-problem must be at least 1")
    job = job_create(
        kind=Job.Kind.SYNTHESIZE,
        params=SynthesizeRequest(per_problem=per_problem, seed=seed, positive_fallback=list(positive_fallback),
                                 prefer_generators=prefer_generators).to_params(), dataset=dataset,
        created_by=user, queue="cpu",
    )
    if enqueue:
        job_enqueue(job=job, task=tasks.PARAQD_SYNTHESIZE)
    return job


def paraqd_synthesize_run(*, job: Job, progress: Progress | None = None) -> dict[str, Any]:
    """The synthesis job's body (idempotent: a rerun adds nothing)."""
    if job.dataset is None:
        raise ParaQDError("the dataset of this synthesis no longer exists")
    request = SynthesizeRequest.from_params(job.params)
    return paraqd_synthesize_tests(
        dataset=job.dataset, per_problem=int(request.per_problem), seed=int(request.seed),
        positive_fallback=tuple(request.positive_fallback or ()), prefer_generators=bool(request.prefer_generators),
        progress=progress,
    )
