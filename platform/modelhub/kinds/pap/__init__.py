"""PAP, SCANNING's paraphraser (paper 000), as a retrainable model kind.

A retrain: the gold split's held-out labels name the held-out *problems*; PAP is retrained from
the active version's weights (or the base) on the stored parallel corpus minus those problems,
with gold-invalid STEAD/PAP candidates removed and gold-valid ones added (weighted up where the
deciding judge disagreed with the annotators; the gold-invalid ones stay in the database as the
judge's negatives). The gate generates with the candidate and with the active version on the
held-out problems and compares mean PQI and mean N (σ from the active ParaQD): neither may
regress. The human-valid rate of each model's outputs that annotators already labelled is
reported beside them.
"""
from __future__ import annotations

from datetime import datetime
from typing import Any

from django.conf import settings
from django.db.models import QuerySet

from modelhub.selectors import human_gold_labels, modelversion_active
from modelhub.services import RetrainRequest
from paraphrases.models import Candidate

from ..base import GateMetric, KindDefaults, TrainRequest
from ..seq2seq import NEURAL_GENERATORS, PAP, ScanningError
from .corpus import pap_corpus_build, pap_corpus_pairs, stored_corpus
from .evaluation import pap_heldout_metrics
from .training import GoldEdit, pap_gold_edits, pap_train, pap_train_from_corpus

__all__ = ["GoldEdit", "PapKind", "pap_corpus_build", "pap_corpus_pairs", "pap_gold_edits", "pap_heldout_metrics",
           "pap_train", "pap_train_from_corpus", "stored_corpus"]


def _heldout_problems(split) -> list[tuple[int, str]]:
    ids = split.heldout_ids
    rows = Candidate.objects.filter(pk__in=list(ids)).values_list("problem_id", "problem__text").distinct()
    return sorted(set(rows))


class PapKind(KindDefaults):
    name = PAP
    label = "PAP paraphraser"
    queue = "gpu"
    has_reference = False  # no reference to gate against when no version is active
    retrainable = True
    gate_metrics: tuple[GateMetric, ...] = (
        ("mean_pqi", ("PQI",), "mean PQI of its outputs on the held-out problems"),
        ("mean_n", ("N",), "mean numeracy N of its outputs on the held-out problems"),
    )

    def train(self, request: TrainRequest):
        return pap_train_from_corpus(dataset_names=request.dataset_names, preset=request.preset, base=request.base,
                                     max_problems=request.max_problems, activate=request.activate,
                                     user=request.user, job=request.job, progress=request.progress, **request.options)

    def retrain_candidate(self, *, split, job, progress):
        held = _heldout_problems(split)
        held_texts = {text for _, text in held}
        pairs = [p for p in pap_corpus_pairs() if p.problem not in held_texts]
        # nothing of a held-out problem is trained on: neither its corpus pairs nor its gold labels
        gold = [g for g in pap_gold_edits(exclude_candidate_ids=split.heldout_ids) if g.problem not in held_texts]
        active = modelversion_active(kind=self.name)
        if not pairs and not any(g.valid for g in gold):
            raise ScanningError("nothing to retrain PAP on: no stored parallel corpus and no gold-valid "
                                "STEAD/PAP candidate outside the held-out problems")
        return pap_train(
            pairs=pairs, preset=RetrainRequest.from_params(job.params).preset or settings.PARALAB_RETRAIN_PRESET, job=job,
            user=job.created_by, progress=progress, init_from=active, gold=gold,
            training_data={"heldout_problems": [pk for pk, _ in held], "retrain": True},
        )

    def heldout_metrics(self, *, version, split) -> dict[str, Any]:
        return pap_heldout_metrics(version=version, problems=_heldout_problems(split))

    def reference_label(self, version) -> str:
        return f"v{version.pk}" if version is not None else "no active PAP"

    def learns_from(self, labels: QuerySet) -> QuerySet:
        return labels.filter(candidate__generator__in=NEURAL_GENERATORS)

    def new_evidence(self, *, since: datetime | None) -> dict[str, int]:
        gold = self.learns_from(human_gold_labels(since=since)).count()
        return {"new_gold_labels": gold, "human_model_disagreements": 0}
