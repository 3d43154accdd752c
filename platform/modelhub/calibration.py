"""Calibrating a judge version: a decision threshold and a probability calibration fitted on
validation pairs, stored with the version (``metrics["calibration"]``) and used by every decision
(``modelhub.judging``).

Validation pairs are gold-labelled pairs that are neither test data nor the platform's own test
set: imported pairs of problems with split ``train`` or ``dev`` (e.g. the paper's ``aqua_val``),
and the annotators' gold labels (agreement, adjudication) on problems that are not test problems
or copies of one. Never AQUA_test or another test split; never synthesized test pairs (``test:``).

Recalibrating is seconds of work (one scoring pass over the pairs, a one-feature fit), so staff
trigger it from ``/models/`` or ``calibrate``, and beat runs it when new gold labels arrived.
"""
from __future__ import annotations

import logging
import math
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

from django.db.models import Q
from django.utils import timezone

from annotation.models import GoldLabel
from core.errors import UserError
from corpus.models import Dataset, Problem
from corpus.selectors import datasets_by_name
from ml.judge.calibration import Calibration, fit_calibration, fit_threshold, reliability_curve
from ml.metrics import nest_paraqd_metrics, paraqd_eval
from ml.metrics.classification import pr_auc, roc_auc
from ml.serialization import json_safe
from paraphrases.models import TEST_GENERATOR_PREFIX, Score

from .judging import calibration_of
from .kinds.registry import get_kind
from .models import ModelVersion
from .selectors import HUMAN_GOLD_SOURCES

logger = logging.getLogger("paralab.calibration")

METHODS = ("platt", "isotonic")
MIN_PAIRS = 10


class CalibrationError(UserError):
    """Nothing (or too little, or one class only) to calibrate on; the message is for the user."""


@dataclass(frozen=True)
class ValidationPair:
    candidate_id: int
    question: str
    paraphrase: str
    valid: bool
    source: str  # "import" or "human"


def validation_pairs(
    *, datasets: Sequence[Dataset] | None = None, exclude_candidate_ids: Collection[int] = ()
) -> list[ValidationPair]:
    """The gold-labelled pairs a judge may be calibrated on (of ``datasets``, else of every dataset).

    A "paraphrase" that is the problem itself (same words, whitespace aside; ParaQD's f2 "same
    sentence" positives) is left out: nothing the platform decides on is a copy, and copies at
    cosine 1 would pull a fitted threshold up to 1."""
    test_hashes = Problem.objects.filter(split=Problem.Split.TEST).values("text_hash")
    golds = GoldLabel.objects.exclude(candidate__problem__split=Problem.Split.TEST).exclude(
        candidate__problem__text_hash__in=test_hashes
    ).exclude(candidate__generator__startswith=TEST_GENERATOR_PREFIX)
    if datasets is not None:
        golds = golds.filter(candidate__problem__dataset__in=list(datasets))
    imported_ok = Q(source=GoldLabel.Source.IMPORT,
                    candidate__problem__split__in=[Problem.Split.TRAIN, Problem.Split.DEV])
    golds = golds.filter(imported_ok | Q(source__in=HUMAN_GOLD_SOURCES))
    if exclude_candidate_ids:
        golds = golds.exclude(candidate_id__in=list(exclude_candidate_ids))
    return [
        ValidationPair(cid, question, paraphrase, bool(valid), "import" if source == GoldLabel.Source.IMPORT else "human")
        for cid, question, paraphrase, valid, source in golds.order_by("candidate_id").values_list(
            "candidate_id", "candidate__problem__text", "candidate__text", "valid", "source")
        if paraphrase.split() != question.split()
    ]


def raw_scores(*, version: ModelVersion, questions: Sequence[str], paraphrases: Sequence[str]) -> list[float]:
    """The version's uncalibrated score per pair: a ParaQD cosine, a judge's classifier output."""
    kind = get_kind(version.kind)
    if not kind.is_judge:
        raise CalibrationError(f"{version.kind} versions are not judges; only judges are calibrated")
    return [float(s) for s in kind.raw_scores(version=version, questions=list(questions), paraphrases=list(paraphrases))]


def fit_version_calibration(scores: Sequence[float], labels: Sequence[int], *, kind: str, method: str = "platt") -> dict:
    """The calibration record of a version from its raw ``scores`` on validation pairs.

    Probability: ``method`` (Platt or isotonic) fitted on the raw score. Threshold: the one that
    maximises weighted F1(hm) on the pairs; a ParaQD version decides on its cosine, so its
    ``cosine_threshold`` is fitted on the cosine and ``threshold`` is the probability there; a
    numeracy-aware judge decides on the calibrated probability. AUCs are of the raw score.
    """
    if method not in METHODS:
        raise CalibrationError(f"calibration method must be one of {', '.join(METHODS)}, not {method!r}")
    labels = [int(bool(y)) for y in labels]
    if len(labels) < MIN_PAIRS:
        raise CalibrationError(f"{len(labels)} validation pairs; calibrating needs at least {MIN_PAIRS}")
    if len(set(labels)) < 2:
        raise CalibrationError("the validation pairs are all of one class; calibrating needs valid and invalid pairs")
    calibration = fit_calibration(list(scores), labels, method=method)
    probabilities = [float(p) for p in calibration.probability(list(scores))]
    record: dict[str, Any] = {**calibration.to_dict()}
    if get_kind(kind).decides_on_raw_score:  # ParaQD decides on its cosine
        cosine_threshold = float(fit_threshold(list(scores), labels))
        record["cosine_threshold"] = cosine_threshold
        record["threshold"] = float(calibration.probability([cosine_threshold])[0])
        decided = paraqd_eval(list(scores), labels, cosine_threshold)
        at_default = paraqd_eval(list(scores), labels, 0.5)
    else:
        threshold = float(fit_threshold(probabilities, labels))
        record["threshold"] = threshold
        decided = paraqd_eval(probabilities, labels, threshold)
        at_default = paraqd_eval(probabilities, labels, 0.5)
    record.update({
        "method": method,
        "n": len(labels),
        "n_valid": sum(labels),
        "auc": roc_auc(list(scores), labels),
        "pr_auc": pr_auc(list(scores), labels),
        "at_threshold": nest_paraqd_metrics(decided),
        "at_default": nest_paraqd_metrics(at_default),
        "reliability": reliability_curve(probabilities, labels, bins=10),
        "fitted_at": timezone.now().isoformat(timespec="seconds"),
    })
    return json_safe(record)


def version_calibrate(
    *,
    version: ModelVersion,
    dataset_names: Sequence[str] | None = None,
    method: str = "platt",
    exclude_candidate_ids: Collection[int] = (),
    progress=None,
) -> dict[str, Any]:
    """Fit and store ``version``'s calibration on the validation pairs of ``dataset_names`` (every
    dataset when None), then refresh the calibrated probability of its stored scores. Returns the
    calibration record plus ``version``; CalibrationError when there is not enough to fit on."""
    datasets = datasets_by_name(dataset_names) if dataset_names else None
    pairs = validation_pairs(datasets=datasets, exclude_candidate_ids=exclude_candidate_ids)
    if not pairs:
        where = ", ".join(dataset_names) if dataset_names else "any dataset"
        raise CalibrationError(
            f"no validation pairs in {where}: import labelled train/dev pairs (import_pairs --split dev) "
            "or have annotators label items"
        )
    if progress:
        progress(0.1, f"scoring {len(pairs)} validation pairs with v{version.pk}")
    scores = raw_scores(version=version, questions=[p.question for p in pairs], paraphrases=[p.paraphrase for p in pairs])
    record = fit_version_calibration(scores, [p.valid for p in pairs], kind=version.kind, method=method)
    record["datasets"] = sorted({*(dataset_names or [])}) or None
    record["sources"] = {"import": sum(p.source == "import" for p in pairs), "human": sum(p.source == "human" for p in pairs)}
    # Replace (not merge) the calibration: a stale key of an older fit must not survive. The handout
    # floor is a probability chosen for a target valid share; a recalibrated probability keeps its meaning.
    metrics = dict(version.metrics or {})
    floor = (metrics.get("calibration") or {}).get("handout_floor")
    metrics["calibration"] = record if floor is None else {**record, "handout_floor": floor}
    ModelVersion.objects.filter(pk=version.pk).update(metrics=metrics)
    version.refresh_from_db()
    refreshed = refresh_probabilities(version=version)
    if progress:
        progress(1.0, f"threshold {record['threshold']:.3f}, AUC {record['auc']:.3f} on {record['n']} pairs; "
                      f"{refreshed} stored scores updated")
    logger.info("calibrated %s v%s on %s pairs: threshold %.3f, AUC %.3f", version.kind, version.pk, record["n"],
                record["threshold"], record["auc"])
    return {"version": version.pk, **record}


def refresh_probabilities(*, version: ModelVersion, batch: int = 2000) -> int:
    """Rewrite ``Score.probability`` of ``version``'s ParaQD scores from its calibration (a
    numeracy-aware judge writes its probabilities when it scores). Returns the rows updated."""
    record = calibration_of(version)
    if record is None or not get_kind(version.kind).decides_on_raw_score:
        return 0
    calibration = Calibration.from_dict(record)
    updated, last = 0, 0
    while True:
        rows = list(Score.objects.filter(model_version=version, paraqd__isnull=False, pk__gt=last)
                    .order_by("pk").only("pk", "paraqd")[:batch])
        if not rows:
            return updated
        for row, p in zip(rows, calibration.probability([r.paraqd for r in rows])):
            row.probability = float(p)
        Score.objects.bulk_update(rows, ["probability"])
        updated += len(rows)
        last = rows[-1].pk


def calibrated_probabilities(*, version: ModelVersion | None, scores: Sequence[float]) -> list[float | None]:
    """``version``'s calibrated probability of each raw score (None without a calibration)."""
    record = calibration_of(version)
    if record is None:
        return [None] * len(scores)
    return [float(p) for p in Calibration.from_dict(record).probability(list(scores))]


def _finite(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and math.isfinite(value) else None
