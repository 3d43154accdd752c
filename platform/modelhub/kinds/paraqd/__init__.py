"""ParaQD, the judge (paper 001), as a model kind.

The kind's modules, each importing Django models (so loaded on first use, not when the registry
is built):

- ``common``: constants other apps import (``DEFAULT_THRESHOLD``, ``TEST_GENERATOR_PREFIX``...),
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

from ..base import GateMetric, Progress, TrainRequest

_EXPORTS = {
    "common": ("KIND", "PRETRAINED_SCORER", "IMPORTED_PAIR_PREFIX", "TEST_GENERATOR_PREFIX", "SYNTHESIZED_TEST_PURPOSE",
               "HUMAN_GOLD_SOURCES", "PRESETS", "DEFAULT_THRESHOLD", "SCORE_BATCH", "NOTE_INTERVAL_S", "ParaQDError",
               "datasets_by_name", "base_encoder_path"),
    "operators": ("operator_resources", "default_training_operators"),
    "triplets": ("training_problems", "gold_is_hard", "paraqd_training_triplets"),
    "training": ("paraqd_train", "paraqd_train_start"),
    "resolve": ("ScoringModel", "pretrained_model", "paraqd_resolve_model", "paraqd_default_model", "paraqd_cosines"),
    "scoring": ("paraqd_score_candidates", "paraqd_score_start"),
    "evaluation": ("gold_pairs", "paraqd_evaluate", "paraqd_evaluate_start"),
    "synthesis": ("paraqd_synthesize_tests", "paraqd_synthesize_start"),
}
_MODULE_OF = {name: module for module, names in _EXPORTS.items() for name in names}
__all__ = ["ParaQDKind", *_MODULE_OF]


def __getattr__(name: str) -> Any:
    """The kind's public names, imported from their module on first use."""
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


class ParaQDKind:
    name = "paraqd"
    label = "ParaQD scorer"
    queue = "gpu"
    has_reference = True  # a reference to gate against when no version is active
    retrainable = True
    gate_metrics: tuple[GateMetric, ...] = (
        ("weighted_f1_hm", ("weighted", "f1_hm"), "weighted F1 (harmonic mean of weighted P and R)"),
        ("separation", ("separation",), "separation (mean score of valid minus invalid pairs)"),
    )

    def train(self, request: TrainRequest):
        from .training import paraqd_train

        return paraqd_train(
            dataset_names=request.dataset_names, preset=request.preset or "tiny", epochs=request.epochs,
            max_problems=request.max_problems, activate=request.activate, user=request.user, job=request.job,
            progress=request.progress, encoder=request.base, exclude_candidate_ids=request.exclude_candidate_ids,
            **request.options,
        )

    def retrain_candidate(self, *, split, job, progress: Progress | None):
        version = self.train(TrainRequest(
            dataset_names=split.dataset_names, preset=job.params.get("preset") or settings.PARALAB_RETRAIN_PRESET,
            max_problems=job.params.get("max_problems"), user=job.created_by, job=job, progress=progress,
            exclude_candidate_ids=split.heldout_ids,
        ))
        # Its own threshold, from the validation pairs and the gold labels of the training part of
        # the split (never the held-out part the gate measures it on).
        from modelhub.calibration import CalibrationError, version_calibrate

        try:
            version_calibrate(version=version, exclude_candidate_ids=split.heldout_ids)
        except CalibrationError:
            pass
        version.refresh_from_db()
        return version

    def _model(self, version):
        from .resolve import paraqd_resolve_model, pretrained_model

        return paraqd_resolve_model(model=version) if version is not None else pretrained_model()

    def raw_scores(self, *, version, questions: list[str], paraphrases: list[str]) -> list[float]:
        """The cosines the version's calibration is fitted on (``modelhub.calibration``)."""
        from .resolve import paraqd_cosines, paraqd_resolve_model

        return paraqd_cosines(model=paraqd_resolve_model(model=version), questions=questions, paraphrases=paraphrases)

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
        from modelhub.judging import version_threshold
        from modelhub.retraining import heldout_metrics

        return heldout_metrics(model=self._model(version), pairs=split.heldout, threshold=version_threshold(version))

    def reference_label(self, version) -> str:
        return self._model(version).label

    def gate_extras(self) -> dict[str, Any]:
        from modelhub.selectors import paraqd_threshold

        return {"threshold": paraqd_threshold()}

    def after_promotion(self, *, version, user) -> list[int]:
        from modelhub.retraining import retrain_rescore_pending

        return retrain_rescore_pending(version=version, user=user)

    def new_evidence(self, *, since: datetime | None) -> dict[str, int]:
        from modelhub.selectors import human_gold_labels, retrain_disagreement_count

        return {"new_gold_labels": human_gold_labels(since=since).count(),
                "human_model_disagreements": retrain_disagreement_count(since=since)}
