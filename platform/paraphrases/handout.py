"""Variants of one pasted problem for a teacher (``POST paraphrase/``, ``/paraphrase/``, the
``paraphrase`` command): the same pipeline as the ``generate`` job on one text, nothing stored;
the page runs it as a ``paraphrase`` job and polls it."""
from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import TYPE_CHECKING, Any

from django.conf import settings
from rapidfuzz import fuzz

from corpus.text import pair_checks
from jobs import tasks
from jobs.models import Job
from jobs.requests import JobRequest
from jobs.partial import job_partial
from jobs.services import JobCancelled, job_create, job_enqueue
from ml.generation import GeneratorUnavailable, generate, get_generator
from ml.generation.llm import InstructLLMConfig, InstructLLMGenerator
from ml.input_checks import refusal_reason
from ml.text.highlight import highlight_spans
from ml.selection.usefulness import useful_probability
from modelhub.judging import Judge, Verdict, deciding_judge
from modelhub.scorer import scoring_model

from .answers import HandoutAnswer, LLMStatus, Variant
from .generation import DEFAULT_SEED, GenerationError, Progress, problem_seed, request_checked
from .models import METRIC_KEYS
from .selection import Judged, ScoredCandidate, candidate_floor, candidates_score, judged_select, probability_as_sigma

if TYPE_CHECKING:
    from django.contrib.auth.models import AbstractBaseUser

logger = logging.getLogger(__name__)


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
    # Named generators only when the request named them: the job's defaults (the LLM's stage included)
    # are decided when it runs, as for a direct call.
    request = ParaphraseRequest(text=text, k=k, generators=names if generators else [], select=selector)
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
    on_partial: Callable[[dict[str, Any]], None] | None = None,
) -> dict[str, Any]:
    """Variants of one problem, best first (nothing is stored):
    ``{"variants": [{"text", "generator", "prompt", "valid_probability", "useful_probability", "reasons",
    "reworded", "S", "D", "N", "PQI", "bleu_div", "wpd", "paraqd", "numbers_kept", "spans", "checks"}],
    "problem": {"text", "spans"}, "candidates", "passed", "rejected", "rejected_reasons", "message", "judge",
    "floor", "refused", "llm_asked", "llm", "scorer", "select", "seconds"}``.

    The rules first: with a judge deciding (``modelhub.judging``; the shipped judge on a fresh
    installation), every candidate gets the judge's calibrated probability of being a valid
    variant; only those above its handout floor are handed out, and the selector (PAMMR by default)
    picks ``k`` of them with σ replaced by that probability times the probability that the variant
    is reworded enough to be worth handing out. With ParaQD deciding, the selector picks among every
    candidate as the paper does.

    Then, without named generators and with the instruct LLM on and installed (``PARALAB_LLM``), its
    rewrites: each one reworded, refused with its reason or re-solved to the original's answer
    (``ml.generation.llm``), judged with its ``same answer`` check, and, when it passes the floor,
    published through ``on_partial`` at once (the rule variants are published first). Verified
    rewrites come first in the final answer, no two handed-out variants are near copies, and when
    the model is missing, broken or over its time budget (``PARALAB_LLM_BUDGET_S``) the answer is the
    rule variants with ``llm["message"]`` saying why.
    """
    started = time.perf_counter()
    text = paraphrase_text_checked(text)
    resources, names, selector = request_checked(generators, select, k)
    model = scoring_model()
    judge = deciding_judge()
    generated, refusals = generate(names, text, problem_seed(seed, text), resources)
    scored = candidates_score(text, generated, model) if generated else []
    judged = judged_select(selector, text, scored, k, model=model, limit=settings.PARALAB_JUDGE_MAX_CANDIDATES,
                           rounds=settings.PARALAB_JUDGE_ROUNDS, judge=judge)
    build = _VariantBuilder(text, scored, judged)
    rule_picks = build.rule_picks(k)
    llm = LLMStage.planned(generators, judge, resources)
    if on_partial is not None:
        on_partial(build.partial(build.final(rule_picks, [], k), llm))
    if llm.wanted:
        llm.run(text=text, seed=problem_seed(seed, text), resources=resources, judge=judge, model=model,
                build=build, rule_picks=rule_picks, k=k, on_partial=on_partial)
        refusals.update(llm.refusals_by_generator())
    chosen = build.final(rule_picks, llm.passed, k)
    variants = [build.variant(i) for i in chosen]
    pool = judged.passed + llm.passed
    rejected_reasons = dict(judged.rejected_reasons)
    for reason, count in llm.rejected_reasons.items():
        rejected_reasons[reason] = rejected_reasons.get(reason, 0) + count
    judge_info = None if not judge.gates or judge.version is None else {
        "version": judge.version.pk, "name": judge.version.name, "floor": round(judge.floor, 4)}
    candidates = len(build.scored)
    rejected = candidates - len(pool)
    message = ""
    if not candidates:
        # Nothing to judge: say so rather than answer with an empty list (each reason is in "refused").
        tried = len({name.split("+")[0] for name in refusals}) or len(names)
        message = (f"No generator could rewrite this problem: none of the {tried} generators found a part it can "
                   "change safely (each one's reason is under refused)")
    elif judged.gated and len(variants) < k:
        why = ", ".join(f"{name} {count}" for name, count in sorted(rejected_reasons.items(), key=lambda t: -t[1]))
        message = (f"{len(variants)} variant{'s' if len(variants) != 1 else ''} passed the check; "
                   f"{rejected} candidate{'s were' if rejected != 1 else ' was'} rejected" + (f": {why}" if why else ""))
    return HandoutAnswer(
        variants=variants, problem={"text": text, "spans": build.problem_spans}, candidates=candidates,
        passed=len(pool), rejected=rejected, rejected_reasons=rejected_reasons, message=message, judge=judge_info,
        refused=refusals, llm_asked=llm.asked, llm=llm.status(), scorer=model.scorer_version, select=selector,
        seconds=round(time.perf_counter() - started, 3)).as_dict()


LLM_GENERATOR = "instruct_llm"
# Two handed-out variants this similar (rapidfuzz ratio, 0..100) are near copies: the later one goes.
NEAR_COPY = 90.0


class _VariantBuilder:
    """The handout's candidates (the rules' scored ones, then each LLM rewrite as it arrives) and
    how each is shown."""

    def __init__(self, text: str, scored: list[ScoredCandidate], judged: Judged) -> None:
        self.text, self.scored, self.judged = text, scored, judged
        self.verdicts: dict[int, Verdict] = {i: v for i, v in enumerate(judged.verdicts) if v is not None}
        self.spacy_model = settings.PARALAB_SPACY_MODEL
        self.problem_spans = highlight_spans(text, spacy_model=self.spacy_model)

    def judged_pqi(self, i: int) -> float:
        # PQI as selection saw it (σ = the judge's probability when a judge decides).
        item = self.scored[i]
        return (probability_as_sigma(item) if i in self.verdicts else item).scores["PQI"]

    def rule_picks(self, k: int) -> list[int]:
        picks = self.judged.picks or sorted(self.judged.passed, key=lambda i: -self.judged_pqi(i))[:k]
        return sorted(picks, key=lambda i: -self.judged_pqi(i))

    def add(self, item: ScoredCandidate, verdict: Verdict | None) -> int:
        self.scored.append(item)
        i = len(self.scored) - 1
        if verdict is not None:
            self.verdicts[i] = verdict
            item.scores["valid_probability"] = verdict.probability
        return i

    def final(self, rule_picks: list[int], llm_passed: list[int], k: int) -> list[int]:
        """Verified LLM rewrites first (most probably valid first), then the rules' picks; never two
        near copies; at most ``k``."""
        ordered = sorted(llm_passed, key=lambda i: -self.verdicts[i].probability) + list(rule_picks)
        chosen: list[int] = []
        for i in ordered:
            if len(chosen) >= k:
                break
            if any(fuzz.ratio(self.scored[i].text, self.scored[j].text) >= NEAR_COPY for j in chosen):
                continue
            chosen.append(i)
        return chosen

    def variant(self, i: int) -> Variant:
        s = self.scored[i]
        verdict = self.verdicts.get(i)
        spans = highlight_spans(s.text, spacy_model=self.spacy_model)
        return Variant(
            text=s.text, generator=s.generator, prompt=s.prompt,
            valid_probability=round(float(verdict.probability), 4) if verdict is not None else None,
            useful_probability=(round(float(s.scores["useful_probability"]), 4)
                                if "useful_probability" in s.scores else None),
            reasons=list(verdict.checks) if verdict is not None else [],
            reworded=s.meta.get("reworded"),
            # The paper's metrics as reported (σ = encoder cosine), not the judged ones used to select.
            **{key: round(float(s.scores[key]), 4) for key in (*METRIC_KEYS, "paraqd")},
            numbers_kept=s.scores["N"] >= 1.0,
            spans=spans,
            checks=pair_checks(self.text, s.text, {"problem": self.problem_spans, "paraphrase": spans}))

    def partial(self, picks: list[int], llm: "LLMStage") -> dict[str, Any]:
        """What a running job shows: the current selection, the LLM's stage and the problem."""
        return {"variants": [asdict(self.variant(i)) for i in picks], "llm": asdict(llm.status()),
                "problem": {"text": self.text, "spans": self.problem_spans}}


class LLMStage:
    """The instruct LLM's part of one handout: whether it runs, what it gave, and why not."""

    def __init__(self, *, wanted: bool, reason: str = "") -> None:
        self.wanted = wanted
        self.asked = False
        self.message = reason
        self.passed: list[int] = []
        self.rejected_reasons: dict[str, int] = {}
        self.refusals: list[str] = []
        self.first_seconds: float | None = None
        self.seconds: float | None = None

    @classmethod
    def planned(cls, generators: Sequence[str] | str | None, judge: Judge, resources: Any) -> "LLMStage":
        if generators:
            return cls(wanted=False)
        if not settings.PARALAB_LLM:
            return cls(wanted=False, reason="The language model is switched off (PARALAB_LLM=0): rule variants only.")
        reason = get_generator(LLM_GENERATOR).unavailable_reason(resources)
        if reason is not None:
            return cls(wanted=False, reason=f"No reworded variants: the language model cannot run ({reason}).")
        return cls(wanted=True)

    def status(self) -> LLMStatus:
        state = "running" if self.wanted and not self.asked else ("done" if self.asked else "off")
        return LLMStatus(state=state, message=self.message, verified=len(self.passed), refused=len(self.refusals),
                         first_seconds=self.first_seconds, seconds=self.seconds)

    def refusals_by_generator(self) -> dict[str, str]:
        if self.passed or not self.refusals:
            return {}
        return {LLM_GENERATOR: "; ".join(dict.fromkeys(self.refusals))}

    def run(self, *, text: str, seed: int, resources: Any, judge: Judge, model: Any, build: _VariantBuilder,
            rule_picks: list[int], k: int, on_partial: Callable[[dict[str, Any]], None] | None) -> None:
        generator = get_generator(LLM_GENERATOR)
        if isinstance(generator, InstructLLMGenerator):  # the settings' threads and samples
            generator = replace(generator, config=llm_config())
        floor = candidate_floor(LLM_GENERATOR, judge.floor)

        def arrived(candidate: Any) -> None:
            (item,) = candidates_score(text, [candidate], model)
            item.scores["useful_probability"] = useful_probability(text, item.text)
            (verdict,) = (judge.verdicts([text], [item.text], verifications=[{
                **candidate.meta["verification"], "reworded": candidate.meta.get("reworded")}])
                if judge.gates else [None])
            i = build.add(item, verdict)
            if verdict is None or verdict.probability > floor:
                self.passed.append(i)
            else:
                reason = verdict.objection or "low probability"
                self.rejected_reasons[reason] = self.rejected_reasons.get(reason, 0) + 1
            if on_partial is not None:
                on_partial(build.partial(build.final(rule_picks, self.passed, k), self))

        started = time.monotonic()
        try:
            outcome = generator.reword(text, random.Random(seed), resources, on_candidate=arrived,
                                       deadline=started + float(settings.PARALAB_LLM_BUDGET_S))
        except GeneratorUnavailable as exc:
            self.message = f"No reworded variants: the language model cannot run ({exc.reason})."
        except JobCancelled:
            raise
        except MemoryError:
            self.message = "No reworded variants: the language model ran out of memory."
        except Exception as exc:  # the rule variants stand whatever the runtime does
            logger.exception("the instruct LLM failed on a handout")
            self.message = f"No reworded variants: the language model failed ({type(exc).__name__}: {exc})."
        else:
            self.refusals = list(outcome.refusals)
            self.first_seconds = outcome.first_seconds
            if outcome.stopped:
                self.message = f"The language model {outcome.stopped}."
            elif not self.passed:
                self.message = ("The language model's rewrites were all refused: "
                                + "; ".join(dict.fromkeys(outcome.refusals)) + ".") if outcome.refusals else ""
        self.asked = True
        self.seconds = round(time.monotonic() - started, 3)


def llm_warm_up(resources: Any) -> str | None:
    """Load the instruct LLM and its prompts' prefixes once (a worker's or server's start), when it is
    on and installed; what loaded, or None."""
    if not settings.PARALAB_LLM:
        return None
    generator = get_generator(LLM_GENERATOR)
    if not isinstance(generator, InstructLLMGenerator) or generator.unavailable_reason(resources) is not None:
        return None
    seconds = replace(generator, config=llm_config()).warm_up(resources)
    return f"instruct LLM ({seconds:.1f} s)"


def llm_config() -> InstructLLMConfig:
    """The instruct LLM generator's settings (``PARALAB_LLM_*``)."""
    return InstructLLMConfig(samples=settings.PARALAB_LLM_SAMPLES, solve_samples=settings.PARALAB_LLM_SOLVE_SAMPLES,
                             threads=settings.PARALAB_LLM_THREADS)


def paraphrase_run(*, job: Job, progress: Progress | None = None) -> dict[str, Any]:
    """The ``paraphrase`` job's body: :func:`paraphrase_variants`' answer."""
    request = ParaphraseRequest.from_params(job.params)
    if progress:
        progress(0.05, "generating, scoring and judging the candidates")
    publish = None
    if job is not None and job.pk:
        def publish(partial: dict[str, Any]) -> None:
            job_partial(job_id=job.pk, partial=partial)
    return paraphrase_variants(text=request.text, k=int(request.k), generators=request.generators or None,
                               select=request.select, on_partial=publish)
