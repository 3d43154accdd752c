"""Scoring and choosing among a problem's candidates, shared by the ``generate`` job, the
``paraphrase`` handout and PAP's parallel corpus: S, D, N, PQI per candidate (σ from the scoring
model's cosine), then generate → judge → keep what passes the deciding judge's handout floor →
diversify among the survivors (PAMMR by default, σ replaced by the judge's probability of validity
times the probability that the variant is reworded enough to be worth handing out)."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django.conf import settings

from ml.generation import GENERATORS
from ml.metrics import paraphrase_scores_many
from ml.metrics.pqi import pqi
from ml.selection import SelectionCandidate, select
from ml.selection.usefulness import useful_probability
from ml.text.number_mentions import number_signature
from modelhub.judging import Judge, Verdict, deciding_judge, version_threshold
from modelhub.scorer import scoring_cosines

if TYPE_CHECKING:
    from ml.generation import GeneratedCandidate
    from modelhub.scorer import ScoringModel


@dataclass
class ScoredCandidate:
    text: str
    generator: str
    prompt: str
    meta: dict[str, Any]
    scores: dict[str, float]


def candidates_score(original: str, generated: Sequence[GeneratedCandidate], model: ScoringModel) -> list[ScoredCandidate]:
    """``generated`` rewrites of ``original`` with S, D, N, PQI (σ from ``model``'s cosine)."""
    texts = [g.text for g in generated]
    cosines = scoring_cosines(model=model, questions=[original] * len(texts), paraphrases=texts)
    scores = paraphrase_scores_many(original, texts, cosines, spacy_model=settings.PARALAB_SPACY_MODEL)
    return [ScoredCandidate(g.text, g.generator, g.prompt, dict(g.meta), s) for g, s in zip(generated, scores)]


def select_indices(selector: str, original: str, scored: Sequence[ScoredCandidate], k: int, *, equation: str = "",
            model: ScoringModel | None = None) -> list[int]:
    """Indices of the selected candidates, in selection order. The ``mwp`` selector's validity
    test reads ``model``'s calibrated cosine threshold (``modelhub.judging``), 0.5 without one."""
    if not scored or selector == "none":
        return []
    pool = [SelectionCandidate(text=s.text, scores=s.scores, prompt=s.prompt, generator=s.generator) for s in scored]
    options: dict[str, Any] = {}
    if selector == "mwp" and equation.strip():
        options["equation_numbers"] = set(number_signature(equation))
    if selector == "mwp" and model is not None and model.version is not None:
        options["threshold"] = version_threshold(model.version)
    return list(select(selector, original, pool, k=k, **options))


@dataclass
class Judged:
    """What the deciding judge made of a problem's candidates: the judge (``modelhub.judging``), the
    picks (indices into the scored list, selection order), its verdict per candidate (None for one it
    did not read), which passed the handout floor, and why the others were rejected (the check that
    counts most against each, counted). With a judge that does not gate (ParaQD's raw cosine),
    ``verdicts`` is empty and every candidate passes to the selector."""

    judge: Judge
    picks: list[int]
    verdicts: list[Verdict | None]
    passed: list[int]
    rejected_reasons: dict[str, int]

    @property
    def gated(self) -> bool:
        """Whether the judge's probability decided what passed (a calibrated judge read them)."""
        return self.judge.gates and bool(self.verdicts)

    @property
    def version(self) -> Any:
        return self.judge.version

    @property
    def floor(self) -> float:
        return self.judge.floor


def judged_select(selector: str, original: str, scored: list[ScoredCandidate], k: int, *, equation: str = "",
                   model: ScoringModel | None = None, limit: int = 0, rounds: int = 1,
                   judge: Judge | None = None) -> Judged:
    """Generate → judge → keep what passes the floor → diversify among the survivors.

    With a gating judge deciding (``Judge.gates``: a calibrated probability), each candidate's
    ``scores["valid_probability"]`` is set, only candidates above the judge's handout floor stay
    in the pool (a rejected one is counted under the check that counts most against it), and the
    selector sees σ replaced by that probability (PQI recomputed with it). With ParaQD deciding,
    every candidate is in the pool and the selector sees the paper's scores. ``limit``, ``rounds``:
    see :func:`judge_verdicts` (it reads more while fewer than ``k`` pass)."""
    judge = judge or deciding_judge()
    for item in scored:  # cheap (no model): it also decides which candidates the judge reads first
        item.scores["useful_probability"] = useful_probability(original, item.text)
    if not judge.gates or not scored:
        picks = select_indices(selector, original, scored, k, equation=equation, model=model)
        return Judged(judge=judge, picks=picks, verdicts=[], passed=list(range(len(scored))), rejected_reasons={})
    verdicts = judge_verdicts(judge, original, scored, limit, want=k, rounds=rounds)
    passed, reasons = [], {}
    for i, verdict in enumerate(verdicts):
        if verdict is None:  # over the judge's per-problem limit
            reasons["not checked"] = reasons.get("not checked", 0) + 1
            continue
        scored[i].scores["valid_probability"] = verdict.probability
        if verdict.probability > candidate_floor(scored[i].generator, judge.floor):
            passed.append(i)
            continue
        reason = verdict.objection or "low probability"
        reasons[reason] = reasons.get(reason, 0) + 1
    survivors = [probability_as_sigma(scored[i]) for i in passed]
    picks = [passed[j] for j in select_indices(selector, original, survivors, k, equation=equation, model=model)]
    return Judged(judge=judge, picks=picks, verdicts=verdicts, passed=passed, rejected_reasons=reasons)


def candidate_floor(generator: str, floor: float) -> float:
    """The judge probability a candidate must exceed to be handed out: the version's handout floor,
    or for a neural generator's candidate (the instruct LLM, STEAD, PAP, a masked LM) the higher of
    it and ``PARALAB_NEURAL_FLOOR``: their failures are dropped facts and changed relations, which
    the judge ranks but its floor, fitted on the rules' candidates, lets through more often."""
    generator_obj = GENERATORS.get(generator)
    if generator_obj is not None and generator_obj.kind == "neural":
        return max(floor, float(settings.PARALAB_NEURAL_FLOOR))
    return floor


def judge_verdicts(judge: Judge, text: str, scored: Sequence[ScoredCandidate], limit: int = 0, *, want: int = 0,
                   rounds: int = 1) -> list[Verdict | None]:
    """The judge's verdict per candidate (None for one it did not read).

    With ``limit``, the judge reads at most that many candidates a round (its fluency LM is most of
    the cost; ``paraphrase`` answers while someone waits), taken round-robin over the generators so
    that every generator is represented, most reworded first; while fewer than ``want`` of those
    read pass the floor it reads the next ``limit`` in the same order, for up to ``rounds`` rounds
    (a problem whose most reworded candidates all fail still gets the plainer ones read)."""
    order = round_robin_order(scored) if limit else list(range(len(scored)))
    verdicts: list[Verdict | None] = [None] * len(scored)
    step = limit or len(order)
    for start in range(0, min(len(order), step * max(1, rounds)), step):
        chosen = sorted(order[start:start + step])
        verifications = [_verification(scored[i]) for i in chosen]
        for i, verdict in zip(chosen, judge.verdicts([text] * len(chosen), [scored[i].text for i in chosen],
                                                     verifications=verifications)):
            verdicts[i] = verdict
        if sum(v is not None and v.probability > judge.floor for v in verdicts) >= want:
            break
    return verdicts


def _verification(item: ScoredCandidate) -> dict[str, Any] | None:
    """An LLM rewrite's re-solving (``meta["verification"]``) with how reworded it is, for the gate."""
    verification = item.meta.get("verification")
    if not isinstance(verification, dict):
        return None
    return {**verification, "reworded": item.meta.get("reworded")}


def round_robin_order(scored: Sequence[ScoredCandidate]) -> list[int]:
    """Every index, one generator after another in turn. Where candidates carry
    ``useful_probability``, each generator's candidates go most reworded first and the generators
    whose best is most reworded take their turn first (what is read first is what is likely worth
    handing out); otherwise in the order made."""
    def useful(i: int) -> float:
        return float(scored[i].scores.get("useful_probability", 0.0))

    queues: dict[str, list[int]] = {}
    for i, item in enumerate(scored):
        queues.setdefault(item.generator, []).append(i)
    for queue in queues.values():
        queue.sort(key=lambda i: -useful(i))
    ordered = sorted(queues.values(), key=lambda queue: -useful(queue[0]))
    order: list[int] = []
    while len(order) < len(scored):
        for queue in ordered:
            if queue:
                order.append(queue.pop(0))
    return order


def round_robin(scored: Sequence[ScoredCandidate], limit: int) -> list[int]:
    """Indices of up to ``limit`` candidates in :func:`round_robin_order`'s turn, sorted; all of
    them when ``limit`` is 0 or not exceeded."""
    if not limit or len(scored) <= limit:
        return list(range(len(scored)))
    return sorted(round_robin_order(scored)[:limit])


def probability_as_sigma(item: ScoredCandidate) -> ScoredCandidate:
    """A copy whose σ (``S``) is the expected share of a valid and useful variant: the judge's
    probability of validity times the probability that a valid variant this reworded is worth
    handing out (``useful_probability``, 1 where not computed), with PQI recomputed (paper weights:
    σ^0.5 · δ^0.25 · ν^0.25), so that selection prefers what is both valid and a real rewording."""
    scores = dict(item.scores)
    expected = float(scores["valid_probability"]) * float(scores.get("useful_probability", 1.0))
    scores["S"] = min(1.0, max(0.0, expected))
    scores["PQI"] = pqi(scores["S"], min(1.0, max(0.0, scores["D"])), min(1.0, max(0.0, scores["N"])))
    return ScoredCandidate(item.text, item.generator, item.prompt, item.meta, scores)
