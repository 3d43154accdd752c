"""Variants of one pasted problem for a teacher (``POST paraphrase/``, ``/paraphrase/``, the
``paraphrase`` command): the same pipeline as the ``generate`` job on one text, nothing stored;
the page runs it as a ``paraphrase`` job and polls it."""
from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from django.conf import settings

from corpus.text import pair_checks
from jobs import tasks
from jobs.models import Job
from jobs.requests import JobRequest
from jobs.services import job_create, job_enqueue
from ml.generation import generate, get_generator
from ml.input_checks import refusal_reason
from ml.text.highlight import highlight_spans
from modelhub.judging import decision_version
from modelhub.kinds.judge.service import KIND as JUDGE_KIND
from modelhub.kinds.paraqd import paraqd_default_model

from .generation import DEFAULT_SEED, GenerationError, Progress, problem_seed, request_checked
from .models import METRIC_KEYS
from .selection import candidates_score, judged_select, probability_as_sigma

if TYPE_CHECKING:
    from django.contrib.auth.models import AbstractBaseUser


@dataclass(frozen=True)
class ParaphraseRequest(JobRequest):
    """One pasted problem and how many variants of it, from which generators and selector."""

    text: str = ""
    k: int = 3
    generators: list[str] = field(default_factory=list)
    select: str | None = None


def paraphrase_text_checked(text: str | None) -> str:
    """The pasted problem, stripped, or ``GenerationError`` saying why it is refused (empty, over
    ``PARALAB_PARAPHRASE_MAX_CHARS``, not English, not a word problem)."""
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
    text = paraphrase_text_checked(text)
    _, names, selector = request_checked(generators, select, k)
    neural = any(get_generator(n).kind == "neural" for n in names)
    request = ParaphraseRequest(text=text, k=k, generators=names, select=selector)
    job = job_create(kind=Job.Kind.PARAPHRASE, params=request.to_params(), created_by=user,
                     queue="gpu" if neural else "cpu")
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
    ``{"variants": [{"text", "generator", "prompt", "valid_probability", "useful_probability", "reasons", "S",
    "D", "N", "PQI", "bleu_div", "wpd", "paraqd", "numbers_kept", "spans"}], "problem": {"text", "spans"},
    "candidates", "passed", "rejected", "rejected_reasons", "message", "judge", "floor", "refused",
    "llm_asked", "scorer", "select", "seconds"}``.

    With a judge deciding (``modelhub.judging``; the shipped judge on a fresh installation), every
    candidate gets the judge's calibrated probability of being a valid variant; only those above the
    version's handout floor are handed out, and the selector (PAMMR by default) picks ``k`` of them
    with σ replaced by that probability times the probability that the variant is reworded enough to
    be worth handing out (``useful_probability``; ``S`` stays the paper's σ). When fewer than ``k`` pass, the
    answer says so (``message``, ``rejected_reasons``) instead of filling up with doubtful ones.
    With ParaQD deciding, the selector picks among every candidate as the paper does.

    Without named generators, when the instruct LLM is configured and fewer than ``k`` picks are
    likely useful, its rewrites join the candidates and everything is judged and selected again
    (:func:`llm_fallback_wanted`; ``llm_asked`` says whether it ran).
    """
    started = time.perf_counter()
    text = paraphrase_text_checked(text)
    resources, names, selector = request_checked(generators, select, k)
    model = paraqd_default_model()
    generated, refusals = generate(names, text, problem_seed(seed, text), resources)
    scored = candidates_score(text, generated, model) if generated else []
    judged = judged_select(selector, text, scored, k, model=model, limit=settings.PARALAB_JUDGE_MAX_CANDIDATES,
                           rounds=settings.PARALAB_JUDGE_ROUNDS)
    llm_asked = not generators and llm_fallback_wanted(judged, scored, k, resources)
    if llm_asked:
        # The rules gave fewer than k judged-valid variants worth handing out: ask the LLM too, and
        # judge and select over everything (the rules' pairs come from the judge's feature cache).
        extra, llm_refusals = generate([LLM_GENERATOR], text, problem_seed(seed, text), resources)
        refusals.update(llm_refusals)
        if extra:
            scored = scored + candidates_score(text, extra, model)
            judged = judged_select(selector, text, scored, k, model=model,
                                   limit=settings.PARALAB_JUDGE_MAX_CANDIDATES + len(extra),
                                   rounds=settings.PARALAB_JUDGE_ROUNDS)
    pool = judged.passed
    # PQI as selection saw it (σ = the judge's probability when a judge decides), computed once.
    judged_pqi = {i: (probability_as_sigma(scored[i]) if judged.results is not None else scored[i]).scores["PQI"]
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
            "useful_probability": (round(float(s.scores["useful_probability"]), 4)
                                   if "useful_probability" in s.scores else None),
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
    if not scored:
        # Nothing to judge: say so rather than answer with an empty list (each reason is in "refused").
        tried = len({name.split("+")[0] for name in refusals}) or len(names)
        message = (f"No generator could rewrite this problem: none of the {tried} generators found a part it can "
                   "change safely (each one's reason is under refused)")
    elif judged.results is not None and len(variants) < k:
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
        "llm_asked": llm_asked,
        "scorer": model.scorer_version,
        "select": selector,
        "seconds": round(time.perf_counter() - started, 3),
    }


LLM_GENERATOR = "instruct_llm"
# A handed-out variant counts as worth handing out for the fallback when its useful probability
# (ml.selection.usefulness) is at least this.
USEFUL_ENOUGH = 0.5


def llm_fallback_wanted(judged: Any, scored: list, k: int, resources: Any) -> bool:
    """Whether the default rules' answer should be topped up with the instruct LLM's rewrites:
    ``PARALAB_LLM_FALLBACK`` is on, the LLM is configured and can run, a judge decides, and fewer
    than ``k`` of the picks are likely useful (useful probability >= :data:`USEFUL_ENOUGH`)."""
    if not settings.PARALAB_LLM_FALLBACK:
        return False
    if judged.results is None:  # ParaQD decides, or the rules gave nothing to judge
        version = decision_version()
        if scored or version is None or version.kind != JUDGE_KIND:
            return False
    if get_generator(LLM_GENERATOR).unavailable_reason(resources) is not None:
        return False
    useful = sum(float(scored[i].scores.get("useful_probability", 0.0)) >= USEFUL_ENOUGH for i in judged.picks)
    return useful < k


def paraphrase_run(*, job: Job, progress: Progress | None = None) -> dict[str, Any]:
    """The ``paraphrase`` job's body: :func:`paraphrase_variants`' answer."""
    request = ParaphraseRequest.from_params(job.params)
    if progress:
        progress(0.05, "generating, scoring and judging the candidates")
    return paraphrase_variants(text=request.text, k=int(request.k), generators=request.generators or None,
                               select=request.select)
