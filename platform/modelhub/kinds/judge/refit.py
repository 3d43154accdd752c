"""The judge learns from people: annotators' gold labels refit the deciding judge in seconds.

:func:`judge_refit` takes the human gold labels (agreement and adjudication, never test data:
``modelhub.calibration.validation_pairs``), holds out a share of their problems (by a hash of the
problem text, so a problem is never on both sides), and refits a copy of the deciding judge on the
rest (``ml.judge.NumeracyJudge.update``: the same features, weights pulled towards the current
ones, signs kept). The copy is registered as a new version, calibrated on the validation pairs, and
promoted only when the held-out gold is large enough to decide (``MIN_HELDOUT`` pairs of both
classes) and the copy ranks it no worse than the active judge (ROC AUC). Otherwise the active judge
stays, and the result says why ("not enough gold to decide: …").

Staff start it from ``/models/`` (``POST models/judge/refit/``) or ``manage.py refit_judge``.
"""
from __future__ import annotations

import logging
import zlib
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from core.errors import UserError
from ml.metrics.classification import roc_auc
from modelhub.calibration import CalibrationError, validation_pairs, version_calibrate
from modelhub.judging import decision_version
from modelhub.models import ModelVersion
from modelhub.services import modelversion_activate

from .service import KIND, encoder_of, judge_save_version, load_judge, pair_features

if TYPE_CHECKING:
    from django.contrib.auth.models import AbstractBaseUser

logger = logging.getLogger("paralab.judge")
MIN_HELDOUT = 20
DEFAULT_HOLDOUT_PERCENT = 25


class RefitError(UserError):
    """Nothing to refit (no deciding judge, no gold of both classes); the message is for the user."""


def heldout(question: str, percent: int) -> bool:
    """Whether a problem's gold is held out for the promotion gate (stable across runs)."""
    return zlib.crc32(question.encode("utf-8")) % 100 < percent


def judge_refit(
    *,
    version: ModelVersion | None = None,
    holdout_percent: int = DEFAULT_HOLDOUT_PERCENT,
    min_heldout: int = MIN_HELDOUT,
    strength: float = 1.0,
    user: AbstractBaseUser | None = None,
    pairs: Sequence[Any] | None = None,
) -> dict[str, Any]:
    """Refit ``version`` (default: the deciding judge) on the human gold labels and promote the
    refit when it ranks the held-out gold no worse. ``pairs``: the gold pairs to use (default:
    every human gold label of a non-test problem). Returns ``{"version", "base", "promoted",
    "reason", "train", "heldout", "auc_refit", "auc_base"}``."""

    base = version or decision_version()
    if base is None or base.kind != KIND:
        raise RefitError("no numeracy-aware judge decides: train one (train_judge) or migrate to install the shipped one")
    gold = [p for p in (validation_pairs() if pairs is None else pairs) if p.source == "human"]
    train = [p for p in gold if not heldout(p.question, holdout_percent)]
    test = [p for p in gold if heldout(p.question, holdout_percent)]
    if len({p.valid for p in train}) < 2:
        raise RefitError(f"{len(train)} gold labels to learn from; refitting needs valid and invalid ones")
    judge = load_judge(base)
    encoder = encoder_of(base)

    def features(rows):
        return pair_features(encoder_path=encoder, questions=[p.question for p in rows],
                             paraphrases=[p.paraphrase for p in rows], fluency_lm=judge.fluency_lm,
                             english=judge.english)

    refit = judge.update(features(train), [int(p.valid) for p in train], strength=strength)
    result: dict[str, Any] = {"base": base.pk, "train": len(train), "heldout": len(test), "promoted": False,
                              "auc_refit": None, "auc_base": None}
    test_labels = [int(p.valid) for p in test]
    if len(test) >= min_heldout and len(set(test_labels)) == 2:
        test_features = features(test)
        result["auc_refit"] = float(roc_auc(refit.raw(test_features), test_labels))
        result["auc_base"] = float(roc_auc(judge.raw(test_features), test_labels))
        better = result["auc_refit"] >= result["auc_base"]
        result["reason"] = (f"held-out gold AUC {result['auc_refit']:.3f} vs the active judge's {result['auc_base']:.3f}"
                            + ("" if better else ": ranks the held-out gold worse, not promoted"))
    else:
        better = False
        result["reason"] = (f"not enough gold to decide: {len(test)} held-out pairs "
                            f"({sum(test_labels)} valid), at least {min_heldout} of both classes needed; "
                            "the active judge stays")
    version = _register(refit, base=base, result=result, user=user)
    try:
        version_calibrate(version=version)
    except CalibrationError as exc:
        logger.info("refit judge v%s keeps its base's calibration: %s", version.pk, exc)
    if better:
        version = modelversion_activate(version=version)
        result["promoted"] = True
    result["version"] = version.pk
    return result


def _register(judge, *, base: ModelVersion, result: dict[str, Any], user) -> ModelVersion:
    """Save ``judge`` as a new version (a candidate), carrying the base's parameters and calibration
    (with its handout floor) until it is recalibrated."""

    params = {k: v for k, v in (base.params or {}).items() if k != "shipped"}
    return judge_save_version(
        judge, base_model=base.base_model,
        training_data={**(base.training_data or {}), "gold_refit": result["train"]},
        params={**params, "refit_of": base.pk},
        metrics={"calibration": (base.metrics or {}).get("calibration"), "gate": dict(result)},
        user=user, name=f"judge v{base.pk} refit on {result['train']} gold labels",
    )
