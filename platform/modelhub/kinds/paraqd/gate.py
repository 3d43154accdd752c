"""ParaQD's side of the retrain loop: the metrics its promotion gate compares, a version measured
on the held-out gold pairs, and the re-scoring that follows a promotion."""
from __future__ import annotations

from collections.abc import Sequence

from django.conf import settings

from ml.metrics import nest_paraqd_metrics, paraqd_eval, score_histogram
from ml.metrics.classification import pr_auc, roc_auc
from ml.serialization import json_safe
from modelhub.models import ModelVersion
from paraphrases.models import Candidate

from ..base import GateMetric
from .resolve import ScoringModel, paraqd_threshold
from .scoring import paraqd_score_start

# (name in the gate report, path in the nested metrics, label for people); higher is better
GATE_METRICS: tuple[GateMetric, ...] = (
    ("weighted_f1_hm", ("weighted", "f1_hm"), "weighted F1 (harmonic mean of weighted P and R)"),
    ("separation", ("separation",), "separation (mean score of valid minus invalid pairs)"),
)
# Ids per re-scoring job: keeps a job's params small on a large corpus.
RESCORE_CHUNK = 20000


def paraqd_heldout_metrics(*, model: ScoringModel, pairs: Sequence, threshold: float | None = None) -> dict:
    """CONTRACT.md's evaluation metrics of ``model`` on the held-out gold ``pairs`` (a class missing
    from the pairs makes its mean and the separation None)."""
    from ml.paraqd.model import get_scorer  # torch

    scorer = get_scorer(model.path, settings.PARALAB_DEVICE)
    scores = [float(s) for s in scorer.score([p.question for p in pairs], [p.paraphrase for p in pairs])]
    labels = [int(p.valid) for p in pairs]
    threshold = paraqd_threshold() if threshold is None else threshold
    metrics = json_safe(nest_paraqd_metrics(paraqd_eval(scores, labels, threshold)))
    metrics["auc"] = json_safe(roc_auc(scores, labels))
    metrics["pr_auc"] = json_safe(pr_auc(scores, labels))
    metrics["threshold"] = threshold
    # The two score distributions, which /dashboard/ plots when the model has no other evaluation.
    metrics["histogram"] = score_histogram(scores, labels)
    return metrics


def paraqd_rescore_pending(*, version: ModelVersion, user=None) -> list[int]:
    """Queue scoring jobs for every candidate without a gold label with ``version``; their ids."""
    ids = list(Candidate.objects.filter(gold__isnull=True).order_by("pk").values_list("pk", flat=True))
    return [
        paraqd_score_start(candidate_ids=ids[start:start + RESCORE_CHUNK], version=version, user=user).pk
        for start in range(0, len(ids), RESCORE_CHUNK)
    ]
