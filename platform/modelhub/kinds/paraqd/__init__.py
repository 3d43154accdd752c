"""ParaQD, the judge (paper 001), as a model kind.

The kind's modules (the kind registers in ``ModelhubConfig.ready()``, once every model is loaded):

- ``common``: constants other apps import (``DEFAULT_THRESHOLD``, ``PRESETS``...),
  ``ParaQDError``, dataset and encoder lookups;
- ``operators``: the training and test operators' resources;
- ``triplets``: training triplets from operator outputs and human gold labels;
- ``training``: ``paraqd_train`` (a version is registered only after training succeeded);
- ``resolve``: which model scores (a version, the active one, the pretrained encoder, a folder);
- ``scoring``: ``Score`` rows for candidates, upserted;
- ``evaluation``: CONTRACT.md's metrics on a dataset's gold-labelled pairs;
- ``synthesis``: the synthesized test set (test operators fa-fe).

Their public names are importable from this package (``from modelhub.kinds.paraqd import
paraqd_train``). :class:`ParaQDKind` tells the generic retraining what to call and what to gate on
(weighted F1 and separation on the held-out gold pairs; the reference is the pretrained encoder
until a version is active)."""
from __future__ import annotations

from datetime import datetime
from typing import Any

from django.conf import settings

from modelhub.calibration import CalibrationError, calibrated_probabilities, version_calibrate
from modelhub.judging import version_threshold
from modelhub.selectors import human_gold_labels
from modelhub.services import RetrainRequest
from modelhub.verdicts import Verdict

from ..base import GateMetric, KindDefaults, Progress, TrainRequest
from .common import (  # noqa: F401 - the kind's public names
    DEFAULT_PRESET,
    DEFAULT_THRESHOLD,
    KIND,
    NOTE_INTERVAL_S,
    PRESETS,
    PRETRAINED_SCORER,
    SCORE_BATCH,
    SYNTHESIZED_TEST_PURPOSE,
    ParaQDError,
    base_encoder_path,
    datasets_by_name,
)
from .evaluation import (  # noqa: F401 - the kind's public names
    gold_pairs,
    paraqd_evaluate,
    paraqd_evaluate_run,
    paraqd_evaluate_start,
)
from .gate import GATE_METRICS, paraqd_heldout_metrics, paraqd_rescore_pending
from .operators import (  # noqa: F401 - the kind's public names
    default_training_operators,
    operator_resources,
)
from .resolve import (  # noqa: F401 - the kind's public names
    ScoringModel,
    paraqd_cosines,
    paraqd_default_model,
    paraqd_resolve_model,
    paraqd_threshold,
    pretrained_judge,
    pretrained_model,
    retrain_disagreement_count,
)
from .scoring import (  # noqa: F401 - the kind's public names
    paraqd_score_candidates,
    paraqd_score_run,
    paraqd_score_start,
)
from .synthesis import (  # noqa: F401 - the kind's public names
    paraqd_synthesize_run,
    paraqd_synthesize_start,
    paraqd_synthesize_tests,
)
from .training import (  # noqa: F401 - the kind's public names
    paraqd_train,
    paraqd_train_run,
    paraqd_train_start,
)
from .triplets import (  # noqa: F401 - the kind's public names
    gold_is_hard,
    paraqd_training_triplets,
    training_problems,
)

__all__ = [
    "ParaQDKind", "GATE_METRICS", "KIND",
    "PRETRAINED_SCORER", "SYNTHESIZED_TEST_PURPOSE", "PRESETS", "DEFAULT_PRESET", "DEFAULT_THRESHOLD", "SCORE_BATCH",
    "NOTE_INTERVAL_S", "ParaQDError", "datasets_by_name", "base_encoder_path", "operator_resources",
    "default_training_operators", "training_problems", "gold_is_hard", "paraqd_training_triplets",
    "paraqd_train", "paraqd_train_run", "paraqd_train_start", "ScoringModel", "pretrained_judge",
    "pretrained_model", "paraqd_resolve_model", "paraqd_threshold", "retrain_disagreement_count",
    "paraqd_default_model", "paraqd_cosines", "paraqd_score_candidates", "paraqd_score_run",
    "paraqd_score_start", "gold_pairs", "paraqd_evaluate", "paraqd_evaluate_run", "paraqd_evaluate_start",
    "paraqd_synthesize_run", "paraqd_synthesize_start", "paraqd_synthesize_tests",
]


class ParaQDKind(KindDefaults):
    name = "paraqd"
    label = "ParaQD scorer"
    queue = "gpu"
    has_reference = True  # the pretrained encoder is the reference when no version is active
    retrainable = True
    is_judge = True
    decision_column = "paraqd"
    decides_on_raw_score = True  # its cosine, at the calibrated cosine threshold
    gate_metrics: tuple[GateMetric, ...] = GATE_METRICS

    def train(self, request: TrainRequest):
        return paraqd_train(
            dataset_names=request.dataset_names, preset=request.preset or DEFAULT_PRESET, epochs=request.epochs,
            max_problems=request.max_problems, activate=request.activate, user=request.user, job=request.job,
            progress=request.progress, encoder=request.base, exclude_candidate_ids=request.exclude_candidate_ids,
            **request.options,
        )

    def retrain_candidate(self, *, split, job, progress: Progress | None):
        request = RetrainRequest.from_params(job.params)
        version = self.train(TrainRequest(
            dataset_names=split.dataset_names, preset=request.preset or settings.PARALAB_RETRAIN_PRESET,
            max_problems=request.max_problems, user=job.created_by, job=job, progress=progress,
            exclude_candidate_ids=split.heldout_ids,
        ))
        # Its own threshold, from the validation pairs and the gold labels of the training part of
        # the split (never the held-out part the gate measures it on).
        try:
            version_calibrate(version=version, exclude_candidate_ids=split.heldout_ids)
        except CalibrationError:
            pass
        version.refresh_from_db()
        return version

    def _model(self, version):
        return paraqd_resolve_model(model=version) if version is not None else pretrained_model()

    def raw_scores(self, *, version, questions: list[str], paraphrases: list[str]) -> list[float]:
        """The cosines the version's calibration is fitted on (``modelhub.calibration``)."""
        return paraqd_cosines(model=paraqd_resolve_model(model=version), questions=questions, paraphrases=paraphrases)

    def decision_scores(self, *, version, questions: list[str], paraphrases: list[str]):
        """A ParaQD version decides on its raw cosine."""
        raw = self.raw_scores(version=version, questions=questions, paraphrases=paraphrases)
        return raw, raw

    def verdicts(self, *, version, questions: list[str], paraphrases: list[str], threshold: float) -> list[Verdict]:
        """Cosine verdicts: valid when the version's cosine (the packaged encoder's with no version)
        is over ``threshold``; the probability is the version's calibration of it, else σ = (cos + 1) / 2."""
        cosines = paraqd_cosines(model=self._model(version), questions=questions, paraphrases=paraphrases)
        calibrated = calibrated_probabilities(version=version, scores=cosines)
        verdicts = []
        for cos, probability in zip(cosines, calibrated):
            passed = cos > threshold
            check = {"check": "encoder cosine", "passed": passed, "detail": f"{cos:.3f} (line {threshold:.3f})"}
            verdicts.append(Verdict(probability=(cos + 1.0) / 2.0 if probability is None else probability,
                                    valid=passed, objection=None if passed else "encoder cosine", checks=(check,),
                                    cosine=cos, raw=cos))
        return verdicts

    def reference_version(self, *, user, activate: bool = True):
        """The packaged base encoder as a version: the platform's first judge."""
        return pretrained_judge(user=user, activate=activate)

    def promotion_blocker(self, version) -> str | None:
        """Why ``version`` must not be promoted whatever the gold gate says: it ranks its
        validation pairs worse (ROC AUC) than the encoder it started from."""
        training = (version.metrics or {}).get("training") or {}
        if training.get("ranks_worse_than_base"):
            return (f"ranks worse than its base on the validation pairs: ROC AUC {training.get('best_validation_auc'):.4f} "
                    f"< {training.get('base_validation_auc'):.4f}")
        return None

    def heldout_metrics(self, *, version, split) -> dict[str, Any]:
        """Each side at its own calibrated threshold (0.5 for an uncalibrated one)."""
        return paraqd_heldout_metrics(model=self._model(version), pairs=split.heldout,
                                      threshold=version_threshold(version))

    def reference_label(self, version) -> str:
        return self._model(version).label

    def gate_extras(self) -> dict[str, Any]:
        return {"threshold": paraqd_threshold()}

    def after_promotion(self, *, version, user) -> list[int]:
        return paraqd_rescore_pending(version=version, user=user)

    def new_evidence(self, *, since: datetime | None) -> dict[str, int]:
        return {"new_gold_labels": human_gold_labels(since=since).count(),
                "human_model_disagreements": retrain_disagreement_count(since=since)}
