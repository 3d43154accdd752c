"""Retraining from the annotators' labels: the held-out gold split, a candidate version, the
promotion gate and the re-scoring that follows a promotion.

One retrain of ParaQD (the job body :func:`model_retrain_run`, queued by
``modelhub.services.model_retrain_start``):

1. The annotators' gold labels (agreement or adjudication; imported gold labels are evaluation
   data of their own) are split deterministically by a hash of the candidate id: about
   ``PARALAB_RETRAIN_HOLDOUT_PERCENT`` % are held out, at least one, and at least one valid and
   one invalid label when a class has two or more. Gold labels of synthesized test pairs are
   never trained on, so they are always held out too.
2. A candidate version is trained by the kind (ParaQD: ``modelhub.kinds.paraqd.paraqd_train``, preset
   ``PARALAB_RETRAIN_PRESET``) on the problems of the datasets those labels belong to, with the
   training gold labels as extra positives/negatives (the ones the active model gets wrong are
   weighted up as hard examples) and without the held-out ones.
3. The candidate and the reference (the active version, or the pretrained base encoder when none
   is active) are scored on the held-out split; :func:`promotion_gate` decides. The decision,
   the rule and both sides' numbers go to ``ModelVersion.metrics["gate"]``.
4. Promoted: the candidate becomes the active version and the candidates without a gold label
   are re-scored with it (scoring jobs). Not promoted: it stays a candidate with its report.

Any failure fails the job and leaves the active version as it was: the candidate is activated
only as the very last step.
"""
from __future__ import annotations

import hashlib
import logging
import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.utils import timezone

from jobs.progress import Progress
from paraphrases.models import IMPORTED_PAIR_PREFIX, TEST_GENERATOR_PREFIX

from .gold import GoldPair, GoldSplit
from .kinds.base import GateMetric
from .kinds.registry import get_kind
from .selectors import human_gold_labels, modelversion_active
from .services import RetrainError, RetrainRequest, modelversion_activate, modelversion_set_metrics

if TYPE_CHECKING:
    from jobs.models import Job

logger = logging.getLogger("paralab.retrain")


HOLDOUT_SALT = "paralab-heldout-v1"
def heldout_bucket(candidate_id: int) -> int:
    """The candidate's bucket in 0..99, fixed by its id: the same pairs are held out on every retrain.

    >>> heldout_bucket(1) == heldout_bucket(1)
    True
    """
    digest = hashlib.sha256(f"{HOLDOUT_SALT}:{int(candidate_id)}".encode()).hexdigest()
    return int(digest[:8], 16) % 100


def retrain_gold_split() -> GoldSplit:
    """The annotators' gold labels split into held-out pairs and trainable candidate ids."""
    rows = list(
        human_gold_labels()
        .exclude(candidate__generator__startswith=IMPORTED_PAIR_PREFIX)
        .order_by("candidate_id")
        .values_list(
            "candidate_id", "candidate__problem__text", "candidate__text", "valid", "candidate__generator",
            "candidate__problem__dataset__name",
        )
    )
    split = GoldSplit(dataset_names=sorted({r[5] for r in rows}))
    percent = settings.PARALAB_RETRAIN_HOLDOUT_PERCENT
    trainable: list[GoldPair] = []
    for cid, question, paraphrase, valid, generator, _ in rows:
        pair = GoldPair(cid, question, paraphrase, bool(valid), generator.startswith(TEST_GENERATOR_PREFIX))
        if pair.synthesized_test or heldout_bucket(cid) < percent:
            split.heldout.append(pair)
        else:
            trainable.append(pair)
    def lowest(pairs: list[GoldPair]) -> GoldPair:
        return min(pairs, key=lambda p: (heldout_bucket(p.candidate_id), p.candidate_id))

    # Separation needs both classes: a class the hash left out of the split, with two or more
    # labels to train on, gives its lowest-bucket label. And the split is never empty.
    for valid in (True, False):
        same = [p for p in trainable if p.valid == valid]
        if len(same) >= 2 and not any(p.valid == valid for p in split.heldout):
            trainable.remove(pick := lowest(same))
            split.heldout.append(pick)
    if not split.heldout and trainable:
        trainable.remove(pick := lowest(trainable))
        split.heldout.append(pick)
    split.heldout.sort(key=lambda p: p.candidate_id)
    split.train_ids = [p.candidate_id for p in trainable]
    return split


def _get(metrics: Mapping[str, Any], path: tuple[str, ...]) -> float | None:
    node: Any = metrics
    for key in path:
        if not isinstance(node, Mapping):
            return None
        node = node.get(key)
    return float(node) if isinstance(node, (int, float)) and math.isfinite(node) else None


def heldout_too_small(heldout: Mapping[str, Any]) -> str | None:
    """Why the held-out gold cannot decide a promotion (fewer than ``PARALAB_GATE_MIN_HELDOUT``
    pairs, or one class only), or None when it can.

    >>> heldout_too_small({"n": 3, "valid": 2, "invalid": 1})[:25]
    'not enough gold to decide'
    """
    minimum = settings.PARALAB_GATE_MIN_HELDOUT
    n, valid, invalid = heldout.get("n", 0), heldout.get("valid", 0), heldout.get("invalid", 0)
    if n >= minimum and valid and invalid:
        return None
    return (f"not enough gold to decide: {n} held-out pairs ({valid} valid, {invalid} invalid); the gate needs "
            f"at least {minimum} with both classes")


def gate_rule(tolerance: float, metrics: Sequence[GateMetric]) -> str:
    names = " and ".join(label for _, _, label in metrics)
    return (
        f"promote when, on the held-out gold split, the candidate's {names} are each >= the active "
        f"model's minus {tolerance:g}; a metric undefined on the split (one class only) is not compared"
    )


def promotion_gate(*, candidate: Mapping[str, Any], active: Mapping[str, Any], tolerance: float,
                   metrics: Sequence[GateMetric]) -> dict[str, Any]:
    """Whether ``candidate`` may replace ``active`` (nested metrics of both on the same pairs),
    comparing the kind's gate ``metrics`` (higher is better).

    >>> promotion_gate(candidate={"f1": 0.8, "separation": 0.3}, active={"f1": 0.7, "separation": 0.4},
    ...                tolerance=0.0, metrics=[("f1", ("f1",), "F1"), ("separation", ("separation",), "sep")])["promoted"]
    False
    """
    checks = []
    for name, path, label in metrics:
        cand, ref = _get(candidate, path), _get(active, path)
        passed = None if cand is None or ref is None else cand >= ref - tolerance - 1e-12
        checks.append({"metric": name, "label": label, "candidate": cand, "active": ref, "passed": passed})
    compared = [c for c in checks if c["passed"] is not None]
    failed = [c for c in compared if not c["passed"]]

    def says(c: dict, op: str) -> str:
        return f"{c['metric']} {c['candidate']:.4f} {op} {c['active']:.4f} - {tolerance:g}"

    if not compared:
        promoted, reason = False, "no gate metric is defined on the held-out split"
    elif failed:
        promoted, reason = False, "regression: " + "; ".join(says(c, "<") for c in failed)
    else:
        promoted, reason = True, "no regression: " + "; ".join(says(c, ">=") for c in compared)
    return {"rule": gate_rule(tolerance, metrics), "tolerance": tolerance, "checks": checks, "promoted": promoted,
            "reason": reason}


def _side(kind, version, metrics: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "version": version.pk if version is not None else None,
        "model": kind.reference_label(version),
        **{name: _get(metrics, path) for name, path, _ in kind.gate_metrics},
        "metrics": {k: v for k, v in metrics.items() if k != "histogram"},
        "histogram": metrics.get("histogram"),
    }


def model_retrain_run(*, job: Job, progress: Progress | None = None) -> dict[str, Any]:
    """The retrain job's body (see the module docstring), for any retrainable kind of the
    registry (``modelhub.kinds``): the kind trains the candidate and measures both sides; the gate,
    activation and the report are the same for every kind. Returns the job's result:
    ``{"kind", "version", "status", "promoted", "gate", "heldout", "rescore_jobs", "training_data"}``."""
    def report(fraction: float, note: str | None = None) -> None:
        if progress:
            progress(fraction, note)

    request = RetrainRequest.from_params(job.params)
    name = request.model
    try:
        kind = get_kind(name)
    except ValueError as exc:
        raise RetrainError(str(exc)) from exc
    if not kind.retrainable:
        raise RetrainError(f"{name}: {kind.not_retrained_reason}")
    split = retrain_gold_split()
    if not split.heldout:
        raise RetrainError("nothing to retrain on: annotators have not agreed on (or staff adjudicated) any label yet")
    report(0.0, f"{len(split.train_ids)} gold labels to train on, {len(split.heldout)} held out, "
                f"datasets {', '.join(split.dataset_names)}")

    def training_progress(fraction: float, note: str | None = None) -> None:
        report(0.8 * fraction, note)

    version = kind.retrain_candidate(split=split, job=job, progress=training_progress)
    heldout = split.summary()
    tolerance = float(settings.PARALAB_RETRAIN_TOLERANCE if request.tolerance is None else request.tolerance)
    active = modelversion_active(kind=name)
    try:
        if active is not None and active.pk == version.pk:  # a rerun after the promotion already happened
            gate = dict(version.metrics.get("gate") or {})
        else:
            report(0.85, f"evaluating v{version.pk} on {heldout['n']} held-out gold pairs")
            candidate_metrics = kind.heldout_metrics(version=version, split=split)
            report(0.9, f"evaluating {kind.reference_label(active)} on the same pairs")
            reference_metrics = kind.heldout_metrics(version=active, split=split)
            gate = promotion_gate(candidate=candidate_metrics, active=reference_metrics, tolerance=tolerance,
                                  metrics=kind.gate_metrics)
            first = active is None and not kind.has_reference
            if first:
                gate.update(promoted=True, reason=f"no active {name} version to compare with: the first one is promoted")
            too_few = heldout_too_small(heldout)
            if too_few and not first:
                gate.update(promoted=False, reason=too_few + (
                    f"; v{active.pk} stays active" if active is not None else "; the reference model keeps serving"))
            reason = kind.promotion_blocker(version)
            if reason:
                gate.update(promoted=False, reason=reason)
            gate = {
                **gate,
                **kind.gate_extras(),
                "heldout": heldout,
                "candidate": _side(kind, version, candidate_metrics),
                "active": _side(kind, active, reference_metrics),
                "evaluated_at": timezone.now().isoformat(timespec="seconds"),
                "job": job.pk,
            }
    except (ValueError, OSError) as exc:  # every kind's user-facing error is a ValueError
        modelversion_set_metrics(version=version, metrics={"gate": {
            "rule": gate_rule(tolerance, kind.gate_metrics), "promoted": False, "reason": f"evaluation failed: {exc}",
            "job": job.pk,
        }})
        raise RetrainError(f"version {version.pk} was trained but could not be evaluated: {exc}") from exc
    modelversion_set_metrics(version=version, metrics={"gate": gate})

    rescore_jobs: list[int] = []
    if gate.get("promoted"):
        version = modelversion_activate(version=version)
        rescore_jobs = kind.after_promotion(version=version, user=job.created_by)
        report(1.0, f"v{version.pk} promoted ({gate['reason']}); {len(rescore_jobs)} follow-up job(s) queued")
    else:
        version.refresh_from_db()
        report(1.0, f"v{version.pk} stays a candidate ({gate.get('reason')})")
    logger.info("retrain job %s: %s v%s %s", job.pk, name, version.pk, "promoted" if gate.get("promoted") else "kept")
    return {
        "kind": name,
        "version": version.pk,
        "status": version.status,
        "promoted": bool(gate.get("promoted")),
        "gate": gate,
        "heldout": heldout,
        "rescore_jobs": rescore_jobs,
        "training_data": {k: v for k, v in version.training_data.items() if k != "gold_label_ids"},
    }
