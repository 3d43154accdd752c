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
import statistics
import time
import zlib
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.db import transaction

from annotation.models import AnnotationItem
from corpus.models import Dataset, Problem
from corpus.text import pair_checks, text_hash
from jobs import tasks
from jobs.models import Job
from jobs.services import job_create, job_enqueue

from .models import Candidate, Score

NEURAL_KINDS = ("stead", "pap")  # trained generators: default only after their handout gate

if TYPE_CHECKING:
    from django.contrib.auth.models import AbstractBaseUser

    from ml.generation import GeneratedCandidate, GenerationResources

    from modelhub.kinds.paraqd import ScoringModel

logger = logging.getLogger("paralab.generation")

Progress = Callable[..., None]

GENERATED_PURPOSE = "generated"
DEFAULT_SELECTOR = "pammr"
DEFAULT_PER_PROBLEM = 2
DEFAULT_SEED = 3407
MAX_PER_PROBLEM = 20
# The metrics every generated candidate gets, as the contract and the pages name them.
METRIC_KEYS = ("S", "D", "N", "PQI", "bleu_div", "wpd")
# Score columns behind those names.
SCORE_COLUMNS = {"S": "similarity", "D": "diversity", "N": "numeracy", "PQI": "pqi",
                 "bleu_div": "bleu_diversity", "wpd": "wpd", "paraqd": "paraqd"}


class GenerationError(ValueError):
    """A request the user can fix (unknown generator or selector, empty text, bad count...)."""


# --- resources and names ------------------------------------------------------------------------


def generation_resources() -> GenerationResources:
    """The generators' resources from the settings (spaCy pipeline, synonym source, WordNet data,
    encoder for the embedding-neighbour synonyms, masked LM, optional instruct LLM)."""
    from ml.generation import GenerationResources

    from modelhub.kinds.paraqd import base_encoder_path

    return GenerationResources(
        spacy_model=settings.PARALAB_SPACY_MODEL,
        synonym_source=settings.PARALAB_SYNONYM_SOURCE,
        wordnet_dir=settings.PARALAB_WORDNET_DIR or None,
        embedding_model=base_encoder_path(),
        masked_lm=settings.PARALAB_MASKED_LM or None,
        llm_dir=settings.PARALAB_LLM_DIR or None,
        llm_file=settings.PARALAB_LLM_FILE or None,
        device=_neural_device(),
        stead_model=_active_path("stead"),
        pap_model=_active_path("pap"),
        scanning_preset=settings.PARALAB_SCANNING_PRESET,
        fluency_lm=settings.PARALAB_FLUENCY_LM,
    )


def _neural_device() -> str:
    if settings.PARALAB_DEVICE != "auto":
        return settings.PARALAB_DEVICE
    from .scanning import scanning_device

    return scanning_device()


def _active_path(kind: str) -> str | None:
    """The model folder of the active STEAD/PAP version (None: none is active)."""
    from modelhub.selectors import modelversion_active

    version = modelversion_active(kind=kind)
    return version.artifact_path if version is not None and version.artifact_path else None


def generator_catalog(resources: GenerationResources | None = None) -> list[dict[str, Any]]:
    """Every registered generator: ``{"name", "kind", "description", "available", "reason",
    "default", "not_default_reason"}`` (``default``: run when no generator is named; a trained
    generator only once its version passed the handout gate, ``paraphrases.neural_gate``)."""
    from ml.generation import GENERATORS, is_default

    from .neural_gate import neural_default_reason

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
    from .neural_gate import neural_default_reason

    return neural_default_reason(name) is None


def generator_names(requested: Sequence[str] | str | None, resources: GenerationResources) -> list[str]:
    """The generators to run: the requested ones (each must exist and be able to run here), or by
    default the default set (``ml.generation.registry``: no baseline, none of the optional ones)
    that can run here."""
    from ml.generation import GENERATORS, available_generators

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
    from ml.selection import SELECTORS

    name = (name or DEFAULT_SELECTOR).strip()
    if name not in SELECTORS:
        raise GenerationError(f"unknown selector {name!r} (known: {', '.join(SELECTORS)})")
    return name


def _check_per_problem(per_problem: int) -> int:
    if not isinstance(per_problem, int) or isinstance(per_problem, bool) or not 1 <= per_problem <= MAX_PER_PROBLEM:
        raise GenerationError(f"per_problem must be an integer from 1 to {MAX_PER_PROBLEM}, not {per_problem!r}")
    return per_problem


def _checked(generators: Sequence[str] | str | None, select: str | None, per_problem: int
             ) -> tuple[GenerationResources, list[str], str]:
    """(resources, generator names, selector) of a request, each checked (GenerationError)."""
    resources = generation_resources()
    names = generator_names(generators, resources)
    selector = selector_name(select)
    _check_per_problem(per_problem)
    return resources, names, selector


def _problem_seed(seed: int, text: str) -> int:
    """One seed per (run seed, problem text): the same problem gets the same candidates, whatever
    its id or the dataset it is in."""
    return (seed * 1_000_003 + zlib.crc32(text.encode("utf-8"))) % (2**31)


# --- scoring and selection (shared by the job and the paraphrase endpoint) ----------------------


@dataclass
class _Scored:
    text: str
    generator: str
    prompt: str
    meta: dict[str, Any]
    scores: dict[str, float]


def _score(original: str, generated: Sequence[GeneratedCandidate], model: ScoringModel) -> list[_Scored]:
    from ml.metrics import paraphrase_scores_many

    from modelhub.kinds.paraqd import paraqd_cosines

    texts = [g.text for g in generated]
    cosines = paraqd_cosines(model=model, questions=[original] * len(texts), paraphrases=texts)
    scores = paraphrase_scores_many(original, texts, cosines, spacy_model=settings.PARALAB_SPACY_MODEL)
    return [_Scored(g.text, g.generator, g.prompt, dict(g.meta), s) for g, s in zip(generated, scores)]


def _select(selector: str, original: str, scored: Sequence[_Scored], k: int, *, equation: str = "",
            model: ScoringModel | None = None) -> list[int]:
    """Indices of the selected candidates, in selection order. The ``mwp`` selector's validity
    test reads ``model``'s calibrated cosine threshold (``modelhub.judging``), 0.5 without one."""
    from ml.selection import SelectionCandidate, select

    if not scored or selector == "none":
        return []
    pool = [SelectionCandidate(text=s.text, scores=s.scores, prompt=s.prompt, generator=s.generator) for s in scored]
    options: dict[str, Any] = {}
    if selector == "mwp" and equation.strip():
        from ml.text.number_mentions import number_signature

        options["equation_numbers"] = set(number_signature(equation))
    if selector == "mwp" and model is not None and model.version is not None:
        from modelhub.judging import version_threshold

        options["threshold"] = version_threshold(model.version)
    return list(select(selector, original, pool, k=k, **options))


@dataclass
class _Judged:
    """What the deciding judge made of a problem's candidates: the picks (indices into the scored
    list, selection order), the judge's per-candidate results (None when ParaQD decides), which
    passed the handout floor, and why the others were rejected (the check that counts most against
    each, counted)."""

    picks: list[int]
    results: list[dict[str, Any]] | None
    passed: list[int]
    rejected_reasons: dict[str, int]
    version: Any = None
    floor: float | None = None


def _judged_select(selector: str, original: str, scored: list[_Scored], k: int, *, equation: str = "",
                   model: ScoringModel | None = None, limit: int = 0) -> _Judged:
    """Generate → judge → keep what passes the floor → diversify among the survivors.

    With a numeracy-aware judge deciding, each candidate's ``scores["valid_probability"]`` is set,
    only candidates above the version's handout floor stay in the pool (a rejected one is counted
    under the check that counts most against it), and the selector sees σ
    replaced by that probability (PQI recomputed with it). With ParaQD deciding, every candidate
    is in the pool and the selector sees the paper's scores. ``limit``: see :func:`_judge_verdicts`."""
    verdicts = _judge_verdicts(original, scored, limit)
    if verdicts is None:
        picks = _select(selector, original, scored, k, equation=equation, model=model)
        return _Judged(picks=picks, results=None, passed=list(range(len(scored))), rejected_reasons={})
    version, floor, results = verdicts
    passed, reasons = [], {}
    for i, result in enumerate(results):
        if result is None:  # over the judge's per-problem limit
            reasons["not checked"] = reasons.get("not checked", 0) + 1
            continue
        scored[i].scores["valid_probability"] = result["probability"]
        if result["probability"] > floor:
            passed.append(i)
            continue
        reason = result.get("objection") or "low probability"
        reasons[reason] = reasons.get(reason, 0) + 1
    survivors = [_with_probability_as_sigma(scored[i]) for i in passed]
    picks = [passed[j] for j in _select(selector, original, survivors, k, equation=equation, model=model)]
    return _Judged(picks=picks, results=results, passed=passed, rejected_reasons=reasons, version=version,
                   floor=floor)


def _score_row(candidate_id: int, model: ScoringModel, scores: dict[str, float]) -> Score:
    return Score(
        candidate_id=candidate_id, scorer_version=model.scorer_version, model_version=model.version,
        **{column: float(scores[key]) for key, column in SCORE_COLUMNS.items()},
    )


def _summary(rows: Sequence[dict[str, float]]) -> dict[str, Any]:
    out: dict[str, Any] = {"n": len(rows)}
    for key in METRIC_KEYS:
        values = [r[key] for r in rows if r.get(key) is not None]
        out[key] = round(statistics.fmean(values), 4) if values else None
    return out


# --- the generate job ---------------------------------------------------------------------------


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

    _, names, selector = _checked(generators, select, per_problem)
    if not Problem.objects.filter(dataset=dataset).exists():
        raise GenerationError(f"dataset {dataset.name!r} has no problems")
    from ml.generation import get_generator

    neural = any(get_generator(n).kind == "neural" for n in names)
    job = job_create(
        kind=Job.Kind.GENERATE,
        params={"generators": names, "select": selector, "per_problem": per_problem, "queue": bool(queue),
                "seed": int(seed), "max_problems": max_problems},
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
) -> dict[str, Any]:
    """Generate, score, select and (with ``queue``) queue for annotation, for every problem of
    ``dataset``. Returns the ``generate`` command's JSON (less ``job``):
    ``{"problems", "candidates", "selected", "queued", "passed" (candidates above the deciding judge's
    handout floor; all of them when ParaQD decides), "rejected_reasons", "by_generator": {name: {"n", "S", "D", "N",
    "PQI", "bleu_div", "wpd"}}, "refused": {name: count}, "failed": [...], "scorer", "select",
    "generators"}``.
    """
    from ml.generation import generate

    from modelhub.kinds.paraqd import paraqd_default_model

    resources, names, selector = _checked(generators, select, per_problem)
    model = paraqd_default_model()
    problems = list(Problem.objects.filter(dataset=dataset).order_by("id").values_list("id", "text", "equation"))
    if max_problems is not None:
        problems = problems[:max_problems]
    if not problems:
        raise GenerationError(f"dataset {dataset.name!r} has no problems")
    if log:
        log(f"generators: {', '.join(names)}; selector {selector}, {per_problem} per problem; σ from "
            f"{model.scorer_version}")
    by_generator: dict[str, list[dict[str, float]]] = defaultdict(list)
    refused: dict[str, int] = defaultdict(int)
    failed: list[dict[str, Any]] = []
    n_candidates = n_selected = n_queued = n_passed = 0
    rejected: dict[str, int] = defaultdict(int)
    last_note = 0.0
    for done, (problem_id, text, equation) in enumerate(problems, start=1):
        try:
            generated, refusals = generate(names, text, _problem_seed(seed, text), resources)
            for name in refusals:
                refused[name] += 1
            scored = _score(text, generated, model) if generated else []
            judged = _judged_select(selector, text, scored, per_problem, equation=equation or "", model=model)
            picks = judged.picks
        except Exception as exc:  # one problem's failure must not stop the dataset
            logger.exception("generation failed on problem %s", problem_id)
            failed.append({"problem": problem_id, "error": f"{type(exc).__name__}: {exc}"})
            if log:
                log(f"problem {problem_id}: {type(exc).__name__}: {exc}")
            continue
        with transaction.atomic():
            ids = _store(problem_id, scored, model, judged=judged)
            picked_ids = [ids[i] for i in picks]
            if picked_ids:
                Candidate.objects.filter(pk__in=picked_ids).exclude(selected_by=selector).update(selected_by=selector)
                if queue:
                    n_queued += _queue(dataset, picked_ids)
        n_candidates += len(scored)
        n_selected += len(picks)
        n_passed += len(judged.passed)
        for reason, count in judged.rejected_reasons.items():
            rejected[reason] += count
        for item in scored:
            by_generator[item.generator].append(item.scores)
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
        "by_generator": {name: _summary(rows) for name, rows in sorted(by_generator.items())},
        "refused": dict(sorted(refused.items())),
        "failed": failed,
        "scorer": model.scorer_version,
        "select": selector,
        "generators": names,
    }


def _store(problem_id: int, scored: Sequence[_Scored], model: ScoringModel, judged: _Judged | None = None) -> list[int]:
    """Candidate ids of ``scored`` (created when new), with their Score rows upserted (the deciding
    judge's too: from ``judged`` when it already read them, else computed now)."""
    ids = []
    for item in scored:
        candidate, _ = Candidate.objects.get_or_create(
            problem_id=problem_id, generator=item.generator, text_hash=text_hash(item.text),
            defaults={"text": item.text, "prompt": item.prompt[:128],
                      "metadata": {"generation": True, **_json_meta(item.meta)}},
        )
        ids.append(candidate.pk)
    neural = {item.generator for item in scored} & {"stead", "pap"}
    if neural:
        from modelhub.selectors import modelversion_active

        for kind in neural:
            version = modelversion_active(kind=kind)
            if version is not None:
                Candidate.objects.filter(pk__in=[pk for pk, item in zip(ids, scored) if item.generator == kind],
                                         model_version__isnull=True).update(model_version=version)
    if scored:
        from modelhub.calibration import calibrated_probabilities

        rows = [_score_row(pk, model, item.scores) for pk, item in zip(ids, scored)]
        # The calibrated probability of the scoring version (modelhub.calibration), beside σ.
        for row, probability in zip(rows, calibrated_probabilities(version=model.version,
                                                                   scores=[r.paraqd for r in rows])):
            row.probability = probability
        Score.objects.bulk_create(
            rows, update_conflicts=True, unique_fields=["candidate", "scorer_version"],
            update_fields=["model_version", "probability", *SCORE_COLUMNS.values()],
        )
        if judged is not None and judged.results is not None:
            from modelhub.kinds.judge.service import judge_store_scores

            read = [(pk, r) for pk, r in zip(ids, judged.results) if r is not None]
            judge_store_scores(candidate_ids=[pk for pk, _ in read], version=judged.version,
                               results=[r for _, r in read])
        else:
            _judge_if_deciding(ids)
    return ids


def _judge_if_deciding(candidate_ids: Sequence[int]) -> None:
    """When the numeracy-aware judge makes the decisions (``modelhub.judging``), it scores new
    candidates too, so the queue and the variants export can read its probability."""
    from modelhub.judging import decision_version

    judge = decision_version()
    if judge is not None and judge.kind == "judge":
        from modelhub.kinds.judge.service import judge_score_candidates

        judge_score_candidates(candidate_ids=candidate_ids, version=judge)


def _json_meta(meta: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in meta.items() if isinstance(v, (str, int, float, bool)) or v is None}


def _queue(dataset: Dataset, candidate_ids: Sequence[int], batch_size: int = 2000) -> int:
    """Queue the candidates that have no annotation item yet; returns how many were queued.

    In batches (two statements per batch, not two per candidate: a generation run over a large
    bank queues hundreds of thousands). ``ignore_conflicts`` keeps a candidate another job queued
    in between from failing the batch; the count is of rows the batch really inserted."""
    created = 0
    ids = list(dict.fromkeys(candidate_ids))
    for start in range(0, len(ids), batch_size):
        batch = ids[start:start + batch_size]
        queued = set(AnnotationItem.objects.filter(candidate_id__in=batch).values_list("candidate_id", flat=True))
        fresh = [pk for pk in batch if pk not in queued]
        if not fresh:
            continue
        AnnotationItem.objects.bulk_create(
            [AnnotationItem(dataset=dataset, candidate_id=pk, purpose=GENERATED_PURPOSE,
                            required_labels=dataset.labels_per_item) for pk in fresh],
            ignore_conflicts=True,
        )
        created += AnnotationItem.objects.filter(candidate_id__in=fresh, dataset=dataset).count()
    if created:
        from annotation.selectors import dataset_sizes_forget

        dataset_sizes_forget(dataset.pk)  # bulk_create sends no post_save
    return created


# --- one pasted problem -------------------------------------------------------------------------


def paraphrase_text_checked(text: str | None) -> str:
    """The pasted problem, stripped, or ``GenerationError`` saying why it is refused (empty, over
    ``PARALAB_PARAPHRASE_MAX_CHARS``, not English, not a word problem)."""
    from ml.input_checks import refusal_reason

    text = (text or "").strip()
    if not text:
        raise GenerationError("text: paste a word problem (it is empty)")
    limit = settings.PARALAB_PARAPHRASE_MAX_CHARS
    if len(text) > limit:
        raise GenerationError(f"text: {len(text)} characters is over the limit of {limit}")
    refusal = refusal_reason(text)
    if refusal is not None:
        raise GenerationError(f"text: {refusal}")
    return text


def paraphrase_start(*, text: str, k: int = 3, generators: Sequence[str] | str | None = None,
                     select: str | None = None, user: AbstractBaseUser | None = None) -> Job:
    """Check the request now (a bad one is refused at once) and queue a ``paraphrase`` job whose
    result is :func:`paraphrase_variants`' answer: the page polls it instead of waiting on one
    request (a neural or LLM generator takes minutes on a CPU)."""
    from ml.generation import get_generator

    text = paraphrase_text_checked(text)
    _, names, selector = _checked(generators, select, k)
    neural = any(get_generator(n).kind == "neural" for n in names)
    job = job_create(kind=Job.Kind.PARAPHRASE, params={"text": text, "k": k, "generators": names, "select": selector},
                     created_by=user, queue="gpu" if neural else "cpu")
    job_enqueue(job=job, task=tasks.PARAPHRASE)
    return job


def paraphrase_variants(
    *,
    text: str,
    k: int = 3,
    generators: Sequence[str] | str | None = None,
    select: str | None = None,
    seed: int = DEFAULT_SEED,
) -> dict[str, Any]:
    """Variants of one problem, best first (nothing is stored):
    ``{"variants": [{"text", "generator", "prompt", "valid_probability", "reasons", "S", "D", "N",
    "PQI", "bleu_div", "wpd", "paraqd", "numbers_kept", "spans"}], "problem": {"text", "spans"},
    "candidates", "passed", "rejected", "rejected_reasons", "message", "judge", "floor", "refused",
    "scorer", "select", "seconds"}``.

    With a judge deciding (``modelhub.judging``; the shipped judge on a fresh installation), every
    candidate gets the judge's calibrated probability of being a valid variant; only those above the
    version's handout floor are handed out, and the selector (PAMMR by default) picks ``k`` of them
    with σ replaced by that probability (``S`` stays the paper's σ). When fewer than ``k`` pass, the
    answer says so (``message``, ``rejected_reasons``) instead of filling up with doubtful ones.
    With ParaQD deciding, the selector picks among every candidate as the paper does.
    """
    from ml.generation import generate
    from ml.text.highlight import highlight_spans

    from modelhub.kinds.paraqd import paraqd_default_model

    started = time.perf_counter()
    text = paraphrase_text_checked(text)
    resources, names, selector = _checked(generators, select, k)
    model = paraqd_default_model()
    generated, refusals = generate(names, text, _problem_seed(seed, text), resources)
    scored = _score(text, generated, model) if generated else []
    judged = _judged_select(selector, text, scored, k, model=model, limit=settings.PARALAB_JUDGE_MAX_CANDIDATES)
    pool = judged.passed
    # PQI as selection saw it (σ = the judge's probability when a judge decides), computed once.
    judged_pqi = {i: (_with_probability_as_sigma(scored[i]) if judged.results is not None else scored[i]).scores["PQI"]
                  for i in pool}
    picks = judged.picks or sorted(pool, key=lambda i: -judged_pqi[i])[:k]
    chosen = sorted(picks, key=lambda i: -judged_pqi[i])
    spacy_model = settings.PARALAB_SPACY_MODEL
    variants = []
    problem_spans = highlight_spans(text, spacy_model=spacy_model)
    for i in chosen:
        s = scored[i]
        spans = highlight_spans(s.text, spacy_model=spacy_model)
        variants.append({
            "text": s.text, "generator": s.generator, "prompt": s.prompt,
            "valid_probability": round(float(s.scores["valid_probability"]), 4) if judged.results is not None else None,
            "reasons": judged.results[i]["checks"] if judged.results is not None else [],
            # The paper's metrics as reported (σ = encoder cosine), not the judged ones used to select.
            **{key: round(float(s.scores[key]), 4) for key in (*METRIC_KEYS, "paraqd")},
            "numbers_kept": s.scores["N"] >= 1.0,
            "spans": spans,
            "checks": pair_checks(text, s.text, {"problem": problem_spans, "paraphrase": spans})})
    rejected_reasons = judged.rejected_reasons
    judge_info = None if judged.version is None else {"version": judged.version.pk, "name": judged.version.name,
                                                      "floor": round(judged.floor, 4)}
    rejected = len(scored) - len(pool)
    message = ""
    if judged.results is not None and len(variants) < k:
        why = ", ".join(f"{name} {count}" for name, count in sorted(rejected_reasons.items(), key=lambda t: -t[1]))
        message = (f"{len(variants)} variant{'s' if len(variants) != 1 else ''} passed the check; "
                   f"{rejected} candidate{'s were' if rejected != 1 else ' was'} rejected" + (f": {why}" if why else ""))
    return {
        "variants": variants,
        "problem": {"text": text, "spans": problem_spans},
        "candidates": len(scored),
        "passed": len(pool),
        "rejected": rejected,
        "rejected_reasons": rejected_reasons,
        "message": message,
        "judge": judge_info,
        "refused": refusals,
        "scorer": model.scorer_version,
        "select": selector,
        "seconds": round(time.perf_counter() - started, 3),
    }


def _judge_verdicts(text: str, scored: Sequence[_Scored], limit: int = 0):
    """(deciding judge version, its handout floor, its per-candidate results) when a numeracy-aware
    judge decides (``modelhub.judging``), else None (ParaQD decides: no probability to gate on).

    With ``limit``, the judge reads at most that many candidates (its fluency LM is most of the
    cost; ``paraphrase`` answers while someone waits), taken round-robin over the generators so that
    every generator is represented; the others get None and are not handed out ("not checked")."""
    from modelhub.judging import decision_version, handout_floor

    version = decision_version()
    if version is None or version.kind != "judge" or not scored:
        return None
    from modelhub.kinds.judge.service import judge_evaluate_pairs

    chosen = _round_robin(scored, limit)
    judged = judge_evaluate_pairs(version=version, questions=[text] * len(chosen),
                                  paraphrases=[scored[i].text for i in chosen])
    results: list[dict[str, Any] | None] = [None] * len(scored)
    for i, result in zip(chosen, judged):
        results[i] = result
    return version, handout_floor(version), results


def _round_robin(scored: Sequence[_Scored], limit: int) -> list[int]:
    """Indices of up to ``limit`` candidates, one generator after another in turn (each generator's
    candidates in the order it made them); all of them when ``limit`` is 0 or not exceeded."""
    if not limit or len(scored) <= limit:
        return list(range(len(scored)))
    queues: dict[str, list[int]] = {}
    for i, item in enumerate(scored):
        queues.setdefault(item.generator, []).append(i)
    picked: list[int] = []
    while len(picked) < limit:
        for queue in queues.values():
            if queue and len(picked) < limit:
                picked.append(queue.pop(0))
    return sorted(picked)


def _with_probability_as_sigma(item: _Scored) -> _Scored:
    """A copy whose σ (``S``) is the judge's probability, with PQI recomputed (paper weights:
    σ^0.5 · δ^0.25 · ν^0.25), so that selection prefers what the judge believes valid."""
    from ml.metrics.pqi import pqi

    scores = dict(item.scores)
    scores["S"] = min(1.0, max(0.0, float(scores["valid_probability"])))
    scores["PQI"] = pqi(scores["S"], min(1.0, max(0.0, scores["D"])), min(1.0, max(0.0, scores["N"])))
    return _Scored(item.text, item.generator, item.prompt, item.meta, scores)


# --- reading scores back ------------------------------------------------------------------------


def latest_scores(*, dataset: Dataset, generator: str | None = None) -> dict[int, dict[str, Any]]:
    """Per generated candidate of ``dataset``: its newest complete score row (PQI set) as
    ``{"generator", "S", "D", "N", "PQI", "bleu_div", "wpd", "paraqd", "scorer"}``."""
    qs = Score.objects.filter(candidate__problem__dataset=dataset, pqi__isnull=False)
    if generator:
        qs = qs.filter(candidate__generator=generator)
    out: dict[int, dict[str, Any]] = {}
    columns = list(SCORE_COLUMNS.items())
    for row in qs.order_by("candidate_id", "-id").values(
        "candidate_id", "candidate__generator", "scorer_version", *[c for _, c in columns]
    ).iterator(chunk_size=2000):
        if row["candidate_id"] in out:
            continue
        out[row["candidate_id"]] = {"generator": row["candidate__generator"], "scorer": row["scorer_version"],
                                    **{key: row[column] for key, column in columns}}
    return out


def pqi_by_generator(*, dataset: Dataset, generator: str | None = None) -> dict[str, Any]:
    """The ``pqi`` command's JSON: per generator, the mean S, D, N, PQI, 1 − BLEU and WPD of its
    stored candidates (``n`` of them), their PQI spread (standard deviation), and — once humans
    labelled some — how many have a gold label and the share of those that are valid.

    Aggregated in the database over each candidate's newest complete score (the rows of
    ``latest_scores``), so a dataset of 500,000 candidates is not read into Python: one grouped
    statement per (generator, scorer) of sums, counts and sums of squares, combined here."""
    import math

    from django.db.models import Count, Exists, F, FloatField, OuterRef, Q, Sum
    from django.db.models.functions import Cast

    complete = Score.objects.filter(candidate__problem__dataset=dataset, pqi__isnull=False)
    if generator:
        complete = complete.filter(candidate__generator=generator)
    # The newest complete row of each candidate: no newer complete row of the same candidate. (An
    # anti-join: 0.7 s at 500,000 candidates, where ``id IN (MAX(id) GROUP BY candidate)`` took 6 s.)
    newer = Score.objects.filter(candidate_id=OuterRef("candidate_id"), pqi__isnull=False, id__gt=OuterRef("id"))
    newest = complete.exclude(Exists(newer))
    columns = {key: SCORE_COLUMNS[key] for key in METRIC_KEYS}
    sums = {}
    for key, column in columns.items():
        sums[f"sum_{key}"] = Sum(Cast(column, FloatField()))
        sums[f"count_{key}"] = Count(column)
    groups = (
        newest.order_by().values("candidate__generator", "scorer_version")
        .annotate(n=Count("pk"), pqi_squares=Sum(F("pqi") * F("pqi"), output_field=FloatField()),
                  labelled=Count("candidate__gold"), valid=Count("candidate__gold", filter=Q(candidate__gold__valid=True)),
                  **sums)
    )
    totals: dict[str, dict[str, float]] = {}
    scorers = set()
    for row in groups:
        scorers.add(row["scorer_version"])
        total = totals.setdefault(row["candidate__generator"], defaultdict(float))
        for name in ("n", "pqi_squares", "labelled", "valid", *sums):
            total[name] += row[name] or 0
    out: dict[str, Any] = {}
    for name in sorted(totals):
        total = totals[name]
        summary: dict[str, Any] = {"n": int(total["n"])}
        for key in METRIC_KEYS:
            count = total[f"count_{key}"]
            summary[key] = round(total[f"sum_{key}"] / count, 4) if count else None
        mean_pqi = total["sum_PQI"] / total["count_PQI"] if total["count_PQI"] else 0.0
        variance = max(0.0, total["pqi_squares"] / total["n"] - mean_pqi ** 2) if total["n"] else 0.0
        summary["PQI_sd"] = round(math.sqrt(variance), 4) if total["n"] > 1 else 0.0
        labelled, valid = int(total["labelled"]), int(total["valid"])
        summary["labelled"] = labelled
        summary["human_valid_share"] = round(valid / labelled, 4) if labelled else None
        out[name] = summary
    return {"dataset": dataset.name, "by_generator": out, "scorers": sorted(scorers)}
