"""Writes of generated candidates: the ``Candidate`` rows (unique per problem, generator and text)
with their ``Score`` rows upserted (and the deciding judge's probability), and the annotation
queue. A rerun rewrites the same rows."""
from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from annotation.models import AnnotationItem
from annotation.selectors import dataset_sizes_forget
from corpus.models import Dataset
from corpus.text import text_hash
from modelhub.calibration import calibrated_probabilities
from modelhub.judging import deciding_judge
from modelhub.selectors import modelversion_active

from .models import SCORE_COLUMNS, Candidate, Score
from .selection import Judged, ScoredCandidate

if TYPE_CHECKING:
    from modelhub.judging import Verdict
    from modelhub.scorer import ScoringModel

GENERATED_PURPOSE = "generated"
NEURAL_KINDS = ("stead", "pap")  # trained generators: their candidates point at the version that wrote them


def _score_row(candidate_id: int, model: ScoringModel, scores: dict[str, float]) -> Score:
    return Score(
        candidate_id=candidate_id, scorer_version=model.scorer_version, model_version=model.version,
        **{column: float(scores[key]) for key, column in SCORE_COLUMNS.items()},
    )


def candidates_store(problem_id: int, scored: Sequence[ScoredCandidate], model: ScoringModel,
                     judged: Judged | None = None) -> list[int]:
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
    neural = {item.generator for item in scored} & set(NEURAL_KINDS)
    if neural:
        for kind in neural:
            version = modelversion_active(kind=kind)
            if version is not None:
                Candidate.objects.filter(pk__in=[pk for pk, item in zip(ids, scored) if item.generator == kind],
                                         model_version__isnull=True).update(model_version=version)
    if scored:
        # A generator may write one text twice (STEAD's prompts and noise draws do): one candidate,
        # so one Score row each; PostgreSQL refuses an upsert that touches a row twice.
        once: dict[int, ScoredCandidate] = {}
        for pk, item in zip(ids, scored):
            once.setdefault(pk, item)
        rows = [_score_row(pk, model, item.scores) for pk, item in once.items()]
        # The calibrated probability of the scoring version (modelhub.calibration), beside σ.
        for row, probability in zip(rows, calibrated_probabilities(version=model.version,
                                                                   scores=[r.paraqd for r in rows])):
            row.probability = probability
        Score.objects.bulk_create(
            rows, update_conflicts=True, unique_fields=["candidate", "scorer_version"],
            update_fields=["model_version", "probability", *SCORE_COLUMNS.values()],
        )
        if judged is not None and judged.gated:
            read: dict[int, Verdict] = {}
            for pk, verdict in zip(ids, judged.verdicts):
                if verdict is not None:
                    read.setdefault(pk, verdict)
            judged.judge.store(candidate_ids=list(read), verdicts=list(read.values()))
        else:
            _judge_if_deciding(list(once))
    return ids


def _judge_if_deciding(candidate_ids: Sequence[int]) -> None:
    """When the numeracy-aware judge makes the decisions (``modelhub.judging``), it scores new
    candidates too, so the queue and the variants export can read its probability."""
    judge = deciding_judge()
    if judge.gates:
        judge.score_candidates(candidate_ids=candidate_ids)


def _json_meta(meta: dict[str, Any]) -> dict[str, Any]:
    """What of a generator's details can be stored: scalars, and JSON-safe records such as an LLM
    rewrite's verification (both answers, the signals)."""
    kept = {}
    for k, v in meta.items():
        if isinstance(v, (str, int, float, bool)) or v is None:
            kept[k] = v
        elif isinstance(v, (dict, list)):
            try:
                json.dumps(v, allow_nan=False)
            except (TypeError, ValueError):
                continue
            kept[k] = v
    return kept


def candidates_queue(dataset: Dataset, candidate_ids: Sequence[int], batch_size: int = 2000) -> int:
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
        dataset_sizes_forget(dataset.pk)  # bulk_create sends no post_save
    return created
