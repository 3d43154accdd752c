"""Evaluating a judge of any kind on a dataset's gold-labelled pairs, as it decides.

A ParaQD version decides on its cosine, a numeracy-aware judge on its calibrated probability,
each at its own threshold (``modelhub.judging.version_threshold``): what :func:`judge_evaluate`
reports is what the platform's decisions would be on the dataset's gold pairs, plus how well the
version's raw score ranks them (ROC AUC, PR AUC) and what passing the judge hands out
(``accepted`` pairs and the share of them that is gold-valid). Nothing is written.
"""
from __future__ import annotations

from typing import Any

from annotation.models import GoldLabel
from core.errors import UserError
from corpus.models import Dataset
from ml.metrics import nest_paraqd_metrics, paraqd_eval
from ml.metrics.classification import pr_auc, roc_auc
from ml.serialization import json_safe

from .judging import calibration_of, decision_column, decision_version, handout_floor, judge_kinds, version_threshold
from .kinds.registry import get_kind
from .models import ModelVersion
from .selectors import modelversion_get


def gold_pairs(*, dataset: Dataset) -> list[tuple[int, str, str, bool]]:
    """(candidate id, question, paraphrase, valid) for every gold-labelled candidate of ``dataset``."""
    return list(
        GoldLabel.objects.filter(candidate__problem__dataset=dataset)
        .order_by("candidate_id")
        .values_list("candidate_id", "candidate__problem__text", "candidate__text", "valid")
    )


class EvaluationError(UserError):
    """No judge to evaluate, or nothing to evaluate it on; the message is for the user."""


def judge_resolve(*, model: str | int = "active") -> ModelVersion:
    """The judge version ``model`` names: ``active`` (the judge that decides,
    :func:`modelhub.judging.decision_version`) or the id of a ``paraqd`` or ``judge`` version.
    EvaluationError when there is none or it is not a judge."""
    name = str(model).strip()
    if name == "active":
        version = decision_version()
        if version is None:
            raise EvaluationError(
                "no judge decides yet: activate a ParaQD or judge version (calibrate --model paraqd registers "
                "the packaged encoder; train_judge --activate trains the numeracy-aware judge), or pass --model ID"
            )
        return version
    if not name.isdigit():
        raise EvaluationError(f"--model: expected active or a model version id, not {name!r}")
    version = modelversion_get(version_id=int(name))
    if version is None:
        raise EvaluationError(f"--model: no model version with id {name}")
    if version.kind not in judge_kinds():
        raise EvaluationError(
            f"--model: version {version.pk} is a {version.kind} model, not a judge ({', '.join(judge_kinds())})"
        )
    return version


def judge_evaluate(*, dataset: Dataset, version: ModelVersion) -> dict[str, Any]:
    """``version`` (a ``paraqd`` or ``judge`` version) on ``dataset``'s gold-labelled pairs,
    deciding as the platform does: a pair is accepted when its decision score (ParaQD: the cosine;
    judge: the calibrated probability) is strictly above ``version_threshold(version)``.

    Returns ``{"dataset", "model": {"id", "kind"}, "column", "n", "auc", "pr_auc", "threshold",
    "threshold_source", "macro": {"p", "r", "f1", "f1_hm"}, "weighted": {...}, "accepted",
    "valid_share_of_accepted"}``: ``auc``/``pr_auc`` of the version's raw score (the cosine, the
    classifier output: what calibration is fitted on; None with one class only), P/R/F1 as
    ``ml.metrics.paraqd_eval`` (``f1`` scikit-learn's, ``f1_hm`` the paper's), ``threshold_source``
    ``calibration`` or ``default``, ``accepted`` the pairs decided valid and
    ``valid_share_of_accepted`` the gold-valid share of them (None when none is accepted);
    ``handout_floor``, ``handed_out`` and ``valid_share_of_handed_out`` the same at the line a
    variant must pass to be handed out (a judge's handout floor; the threshold otherwise).
    EvaluationError when the version is not a judge, cannot be loaded, or there are no gold pairs.
    """
    if version.kind not in judge_kinds():
        raise EvaluationError(f"version {version.pk} is a {version.kind} model, not a judge ({', '.join(judge_kinds())})")
    pairs = gold_pairs(dataset=dataset)
    if not pairs:
        raise EvaluationError(
            f"dataset {dataset.name!r} has no gold-labelled pairs to evaluate on "
            "(import labelled pairs with import_pairs, or have annotators label items)"
        )
    questions, paraphrases = [p[1] for p in pairs], [p[2] for p in pairs]
    labels = [int(bool(p[3])) for p in pairs]
    try:
        raw, decided_on = get_kind(version.kind).decision_scores(version=version, questions=questions,
                                                                 paraphrases=paraphrases)
    except ValueError as exc:  # every kind's user-facing error
        raise EvaluationError(str(exc)) from exc
    threshold = version_threshold(version)
    metrics = nest_paraqd_metrics(paraqd_eval(decided_on, labels, threshold))
    accepted = [y for score, y in zip(decided_on, labels) if score > threshold]
    floor = threshold if get_kind(version.kind).decides_on_raw_score else handout_floor(version)
    handed = [y for score, y in zip(decided_on, labels) if score > floor]
    return json_safe({
        "dataset": dataset.name,
        "model": {"id": version.pk, "kind": version.kind},
        "column": decision_column(version.kind),
        "n": metrics["n"],
        "auc": roc_auc(raw, labels),
        "pr_auc": pr_auc(raw, labels),
        "threshold": threshold,
        "threshold_source": "calibration" if calibration_of(version) is not None else "default",
        "macro": metrics["macro"],
        "weighted": metrics["weighted"],
        "accepted": len(accepted),
        "valid_share_of_accepted": sum(accepted) / len(accepted) if accepted else None,
        # What would be handed out: a judge's handout floor (its threshold when it has none).
        "handout_floor": floor,
        "handed_out": len(handed),
        "valid_share_of_handed_out": sum(handed) / len(handed) if handed else None,
    })
