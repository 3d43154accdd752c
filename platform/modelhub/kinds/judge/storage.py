"""The judge kind's verdicts and their storage: :func:`judge_evaluate_pairs` as the judging port's
:class:`~modelhub.verdicts.Verdict` objects, and the ``Score`` rows (scorer ``judge:v<id>``) that
keep them for the queue, the pages and the exports."""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from modelhub.models import ModelVersion
from modelhub.verdicts import Verdict
from paraphrases.models import Candidate, Score

from .service import SCORE_BATCH, judge_evaluate_pairs

__all__ = ["as_verdict", "judge_score_candidates", "judge_store_scores", "judge_store_verdicts", "judge_verdicts"]


def judge_score_candidates(*, candidate_ids: Iterable[int], version: ModelVersion) -> int:
    """``Score`` rows of ``version`` (scorer ``judge:v<id>``): the probability, the encoder's
    cosine and σ, and the explanation in ``extra["checks"]``; upserted."""

    ids = sorted({int(pk) for pk in candidate_ids})
    scored = 0
    for start in range(0, len(ids), SCORE_BATCH):
        rows = list(Candidate.objects.filter(pk__in=ids[start:start + SCORE_BATCH])
                    .values_list("pk", "problem__text", "text"))
        if not rows:
            continue
        results = judge_evaluate_pairs(version=version, questions=[r[1] for r in rows], paraphrases=[r[2] for r in rows])
        judge_store_scores(candidate_ids=[r[0] for r in rows], version=version, results=results)
        scored += len(rows)
    return scored


def judge_store_scores(*, candidate_ids: Sequence[int], version: ModelVersion, results: Sequence[dict]) -> None:
    """Upsert the ``Score`` rows (scorer ``judge:v<id>``) of results :func:`judge_evaluate_pairs`
    computed for ``candidate_ids`` (same order)."""

    judge_store_verdicts(candidate_ids=candidate_ids, version=version, verdicts=[as_verdict(r) for r in results])


def judge_store_verdicts(*, candidate_ids: Sequence[int], version: ModelVersion, verdicts: Sequence[Verdict]) -> None:
    """Upsert the ``Score`` rows (scorer ``judge:v<id>``) of ``verdicts`` for ``candidate_ids`` (same order)."""

    Score.objects.bulk_create(
        [Score(candidate_id=pk, scorer_version=f"judge:v{version.pk}", model_version=version,
               paraqd=v.cosine, similarity=(v.cosine + 1.0) / 2.0, probability=v.probability,
               extra={"checks": list(v.checks)})
         for pk, v in zip(candidate_ids, verdicts)],
        update_conflicts=True, unique_fields=["candidate", "scorer_version"],
        update_fields=["paraqd", "similarity", "probability", "model_version", "extra"],
    )


def as_verdict(result: dict[str, Any]) -> Verdict:
    """One result of :func:`judge_evaluate_pairs` as the judging port's :class:`Verdict`."""
    return Verdict(probability=float(result["probability"]), valid=bool(result["valid"]),
                   objection=result.get("objection"), checks=tuple(result["checks"]),
                   cosine=float(result["cosine"]), raw=float(result["raw"]), features=result.get("features"))


def judge_verdicts(*, version: ModelVersion, questions: Sequence[str], paraphrases: Sequence[str]) -> list[Verdict]:
    """:func:`judge_evaluate_pairs` as verdicts (the judge kind's answer to the judging port)."""
    return [as_verdict(r) for r in judge_evaluate_pairs(version=version, questions=questions, paraphrases=paraphrases)]
