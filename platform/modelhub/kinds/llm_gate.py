"""The gate that turns an LLM rewrite's signals into one P(valid) (``ml.verify.gate``) as a model
kind (``llm_gate``): retrained by the generic loop from the annotators' gold labels on the instruct
LLM's rewrites, gated on the held-out part of the one gold split (ROC AUC; the reference is the
stated prior when no version is active), and read by the judging port (``modelhub.judging.verified``)
once promoted. Not a judge of pairs itself: it re-weighs the deciding judge's probability with the
verifier's signals (same answer, gold match, self-consistency, how reworded).

A gold-labelled rewrite's features are rebuilt from what was stored with it: the verification record
in ``Candidate.metadata`` and the deciding judge's own probability, read again without the gate.
"""
from __future__ import annotations

import json
from datetime import datetime
from functools import lru_cache
from pathlib import Path
from typing import Any

from core.errors import UserError
from ml.metrics.classification import roc_auc
from ml.verify.gate import PRIOR, GateModel, fit_gate, gate_features
from modelhub.artifacts import version_register, work_dir
from modelhub.judging import deciding_judge
from modelhub.models import ModelVersion
from modelhub.selectors import human_gold_labels
from paraphrases.models import Candidate

from .base import GateMetric, KindDefaults, TrainRequest

__all__ = ["KIND", "LLMGateKind", "LLM_GENERATOR", "gate_of"]

KIND = "llm_gate"
LLM_GENERATOR = "instruct_llm"
FILE_NAME = "gate.json"
# Below this many gold labels (both classes) a retrain keeps what decides: a refit on a handful
# of rewrites says nothing.
MIN_GOLD = 8


@lru_cache(maxsize=8)
def _load(path: str, mtime: float) -> GateModel:
    return GateModel.from_dict(json.loads(Path(path).read_text(encoding="utf-8")))


def gate_of(version: ModelVersion | None) -> GateModel:
    """The gate a version holds (the prior for None)."""
    if version is None:
        return PRIOR
    path = Path(version.artifact_path) / FILE_NAME
    return _load(str(path), path.stat().st_mtime)


def _rows(candidate_ids: list[int] | None = None) -> tuple[list[dict[str, float]], list[int], list[int]]:
    """(features, labels, candidate ids) of the gold-labelled LLM rewrites with a verification record."""
    labels = human_gold_labels().filter(candidate__generator=LLM_GENERATOR).select_related("candidate__problem")
    if candidate_ids is not None:
        labels = labels.filter(candidate_id__in=list(candidate_ids))
    golds = [g for g in labels.order_by("candidate_id") if isinstance(g.candidate.metadata.get("verification"), dict)]
    if not golds:
        return [], [], []
    verdicts = deciding_judge().verdicts([g.candidate.problem.text for g in golds], [g.candidate.text for g in golds])
    features = [gate_features(v.probability, g.candidate.metadata["verification"], g.candidate.metadata.get("reworded"))
                for g, v in zip(golds, verdicts)]
    return features, [int(g.valid) for g in golds], [g.candidate_id for g in golds]


class LLMGateError(UserError):
    """Too little gold to fit the gate on."""


class LLMGateKind(KindDefaults):
    name = KIND
    label = "LLM rewrite gate"
    queue = "cpu"
    retrainable = True
    has_reference = True  # the stated prior (ml.verify.gate.PRIOR) until a version is promoted
    gate_metrics: tuple[GateMetric, ...] = (("auc", ("auc",), "ROC AUC on the held-out gold LLM rewrites"),)

    def learns_from(self, labels):
        return labels.filter(candidate__generator=LLM_GENERATOR)

    def train(self, request: TrainRequest) -> ModelVersion:
        ids = request.options.get("candidate_ids")
        features, labels, used = _rows(None if ids is None else list(ids))
        if len(labels) < MIN_GOLD or len(set(labels)) < 2:
            raise LLMGateError(f"the LLM gate needs at least {MIN_GOLD} gold-labelled LLM rewrites of both classes "
                             f"to fit (has {len(labels)})")
        gate = fit_gate(features, labels)
        folder = work_dir(KIND)
        folder.mkdir(parents=True)
        (folder / FILE_NAME).write_text(json.dumps(gate.to_dict()), encoding="utf-8")
        return version_register(kind=KIND, folder=folder, base_model="logistic", name="LLM rewrite gate",
                                training_data={"gold": len(labels), "valid": sum(labels)},
                                params={"features": list(gate.weights)}, metrics={}, activate=request.activate,
                                user=request.user, job=request.job)

    def retrain_candidate(self, *, split, job, progress):
        return self.train(TrainRequest(job=job, user=job.created_by, options={"candidate_ids": split.train_ids}))

    def heldout_metrics(self, *, version, split) -> dict[str, Any]:
        """The gate's ROC AUC on the held-out gold of LLM rewrites (the prior's for None)."""
        llm = set(Candidate.objects.filter(pk__in=split.heldout_ids, generator=LLM_GENERATOR)
                  .values_list("pk", flat=True))
        features, labels, _ = _rows([pk for pk in split.heldout_ids if pk in llm])
        if len(set(labels)) < 2:
            return {"n": len(labels)}
        gate = gate_of(version)
        return {"auc": roc_auc([gate.probability(f) for f in features], labels), "n": len(labels)}

    def reference_label(self, version) -> str:
        return f"v{version.pk}" if version is not None else "the stated prior"

    def new_evidence(self, *, since: datetime | None) -> dict[str, int]:
        """New gold labels on LLM rewrites; none counted before there are enough to fit on at all, so
        beat does not start retrains that can only fail."""
        llm = human_gold_labels().filter(candidate__generator=LLM_GENERATOR)
        new = llm.filter(created_at__gt=since).count() if since is not None else llm.count()
        return {"new_gold_labels": new if llm.count() >= MIN_GOLD else 0, "human_model_disagreements": 0}

    def verification_gate(self, version: ModelVersion | None) -> GateModel:
        """What the judging port combines an LLM rewrite's signals with."""
        return gate_of(version)
