"""ParaQD on the platform: training data, training, scoring, evaluation and synthesized test pairs.

The model itself lives in ``ml.paraqd`` (pure ML, no Django); this module turns database rows
into the plain strings and dataclasses it takes, and its results back into rows:

- :func:`paraqd_training_triplets` builds (anchor, positive, negative) triplets from a dataset's
  problems with the training operators f1-f10 (+ the offline extras), and adds the platform's own
  human gold labels (agreement, adjudication). It never uses a test-split problem, a problem whose
  text is a test-split problem anywhere in the database, or a question of imported labelled pairs
  (the ParaQD AQUA_test set is one): those are evaluation data (shared/data/README.md).
- :func:`paraqd_train` trains into a fresh directory and registers a ``ModelVersion`` only after
  training succeeded; the active model is untouched by a failure.
- :func:`paraqd_score_candidates` writes one ``Score`` per (candidate, scorer version), upserted,
  so a redelivered scoring task updates instead of duplicating.
- :func:`paraqd_evaluate` scores a dataset's gold-labelled pairs and returns CONTRACT.md's JSON.
- :func:`paraqd_synthesize_tests` applies the test operators fa-fe (paper 4.2) and queues the
  outputs for double annotation.

The ``*_start`` functions create a ``jobs.Job`` and queue its task once the transaction commits.
"""
from __future__ import annotations

import hashlib
import json
import logging
import math
import random
import shutil
import time
import uuid
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.db import transaction
from django.db.models import Q, QuerySet
from django.utils import timezone

from annotation.models import AnnotationItem, GoldLabel
from corpus.models import Dataset, Problem
from corpus.text import text_hash
from jobs.models import Job
from jobs.services import job_create, job_enqueue
from modelhub.models import ModelVersion
from modelhub.selectors import modelversion_active, modelversion_get
from ml.serialization import json_safe
from ml.similarity import SentenceSimilarity
from modelhub.services import modelversion_activate, modelversion_create, modelversion_set_metrics

from .models import Candidate, Score

if TYPE_CHECKING:
    from django.contrib.auth.models import AbstractBaseUser

    from ml.paraqd import Triplet

logger = logging.getLogger("paralab.paraqd")

Progress = Callable[..., None]

KIND = ModelVersion.Kind.PARAQD
PRETRAINED_SCORER = "paraqd:pretrained"
# Candidates of labelled pairs imported from files (corpus.services.PAIR_GENERATOR_PREFIX).
IMPORTED_PAIR_PREFIX = "import:"
TEST_GENERATOR_PREFIX = "test:"
SYNTHESIZED_TEST_PURPOSE = "synthesized_test"
# Gold labels that come from the platform's own annotators (imported ones are evaluation data).
HUMAN_GOLD_SOURCES = (GoldLabel.Source.AGREEMENT, GoldLabel.Source.ADJUDICATION)
PRESETS = ("tiny", "paper")
DEFAULT_THRESHOLD = 0.5
SCORE_BATCH = 512


class ParaQDError(ValueError):
    """A request the user can fix (unknown dataset, no active model, no gold labels...)."""


# A job's log is rewritten whole on every note: long runs note at most this often.
NOTE_INTERVAL_S = 20.0


def _scaled(progress: Progress | None, start: float, end: float) -> Progress | None:
    """``progress`` remapped so that 0..1 of a phase lands on start..end of the whole; notes are
    passed on at most every ``NOTE_INTERVAL_S`` seconds (the first and the last always)."""
    if progress is None:
        return None
    last_note = [float("-inf")]

    def report(fraction: float, note: str | None = None) -> None:
        fraction = min(1.0, max(0.0, fraction))
        now = time.monotonic()
        if note and (fraction >= 1.0 or now - last_note[0] >= NOTE_INTERVAL_S):
            last_note[0] = now
        else:
            note = None
        progress(start + (end - start) * fraction, note)

    return report


def _device() -> str:
    return settings.PARALAB_DEVICE


def _generation_device() -> str:
    """``PARALAB_DEVICE`` resolved (``auto`` -> cuda when a GPU is visible) for the seq2seq models."""
    from ml.paraqd.model import select_device

    return select_device(_device())


def datasets_by_name(names: Iterable[str]) -> list[Dataset]:
    """The datasets called ``names`` (in that order, without repeats); ParaQDError naming any missing."""
    wanted = list(dict.fromkeys(n.strip() for n in names if n and n.strip()))
    if not wanted:
        raise ParaQDError("--dataset: name at least one dataset")
    found = {d.name: d for d in Dataset.objects.filter(name__in=wanted)}
    missing = [n for n in wanted if n not in found]
    if missing:
        raise ParaQDError(f"--dataset: no dataset named {', '.join(repr(n) for n in missing)}")
    return [found[n] for n in wanted]


# --- operator resources ---------------------------------------------------------------------------


def base_encoder_path(encoder: str | None = None) -> str:
    """The configured base sentence encoder (``PARALAB_SENTENCE_ENCODER``) as a loadable path or
    hub id; ParaQDError when it names a directory that does not exist."""
    from ml.paraqd.model import resolve_encoder_path

    name = encoder or settings.PARALAB_SENTENCE_ENCODER
    try:
        return resolve_encoder_path(name)
    except (FileNotFoundError, ValueError) as exc:
        raise ParaQDError(f"sentence encoder {name!r}: {exc}") from exc


class _OnceUnavailable:
    """Wraps a text generator: after its model failed to load once, fail fast for the rest of the run."""

    def __init__(self, generator: Callable[[list[str]], list[str]]) -> None:
        self.generator = generator
        self.error: Exception | None = None

    def __call__(self, texts: list[str]) -> list[str]:
        from ml.seq2seq import ModelUnavailable

        if self.error is not None:
            raise ModelUnavailable(str(self.error))
        try:
            return self.generator(texts)
        except ModelUnavailable as exc:
            self.error = exc
            raise

    def __repr__(self) -> str:
        return repr(self.generator)


class _EncoderSimilarity(SentenceSimilarity):
    """``similarity(anchor, candidates)`` over an encoder loaded through the scorer cache, on the
    first call: f5 and f9 share it with scoring, and a run where neither applies loads nothing."""

    def __init__(self, path: str) -> None:
        super().__init__()
        self.path = path

    @property
    def encoder(self) -> Any:
        from ml.paraqd.model import get_scorer

        return get_scorer(self.path, _device()).model


def operator_resources(*, encoder: str | None = None, with_similarity: bool = True) -> dict[str, Any]:
    """The resources the operators take, from the settings: the spaCy pipeline, a similarity over
    the base encoder (f5, f9's offline default), and the backtranslation and paraphrase models when
    configured (f1, f9). Models load lazily, on first use, and stay cached in the process."""
    from ml.seq2seq import BacktranslationConfig, Backtranslator, Seq2SeqConfig, Seq2SeqGenerator

    resources: dict[str, Any] = {"spacy_model": settings.PARALAB_SPACY_MODEL, "offline_fallback": True}
    if with_similarity:
        resources["similarity"] = _EncoderSimilarity(base_encoder_path(encoder))
    device = _generation_device()
    models = settings.PARALAB_BACKTRANSLATION_MODELS
    if len(models) >= 2:
        resources["backtranslator"] = _OnceUnavailable(
            Backtranslator(BacktranslationConfig(forward_model=models[0], backward_model=models[1], device=device))
        )
    if settings.PARALAB_PARAPHRASER_MODEL:
        resources["paraphraser"] = _OnceUnavailable(
            Seq2SeqGenerator(Seq2SeqConfig(model=settings.PARALAB_PARAPHRASER_MODEL, device=device))
        )
    return resources


def _apply(name: str, text: str, rng: random.Random, resources: dict[str, Any]):
    """The operator's result, or None when it does not apply (or its model is unavailable)."""
    from ml.operators import OperatorNotApplicable, apply_operator
    from ml.seq2seq import ModelUnavailable

    try:
        return apply_operator(name, text, rng, **resources)
    except (OperatorNotApplicable, ModelUnavailable):
        return None


# --- training data --------------------------------------------------------------------------------


def default_training_operators() -> list[str]:
    """Every training operator except those that produce what a test operator produces (the
    offline ``passive`` overlaps fa): synthesized test pairs then stay out of the training
    distribution, as in the paper."""
    from ml.operators import TRAINING_OPERATORS

    return [name for name, spec in TRAINING_OPERATORS.items() if not spec.overlaps]


def training_problems(
    *, datasets: Sequence[Dataset], include_imported_pairs: bool = False
) -> tuple[QuerySet[Problem], dict[str, int]]:
    """The problems of ``datasets`` that may be trained on, and how many were left out and why.

    Left out: problems of split ``test``; problems whose text is that of a test-split problem in
    any dataset (a copy imported without its split); unless ``include_imported_pairs``, the
    questions of imported labelled pairs (problems with ``import:`` candidates, or whose source is
    ``paraqd``) and any copy of them elsewhere: the ParaQD AQUA_test pairs are built from AQuA test
    questions and must never be trained on. With ``include_imported_pairs``, the questions of pairs
    imported with split ``train`` or ``dev`` (e.g. the paper's ``aqua_val.csv``) may be trained on,
    and their gold labels join the triplets; any other imported pair still stays out.
    """
    scope = Problem.objects.filter(dataset__in=datasets)
    test_hashes = Problem.objects.filter(split=Problem.Split.TEST).values("text_hash")
    held_out = Q(text_hash__in=test_hashes)
    imported = Problem.objects.filter(
        Q(candidates__generator__startswith=IMPORTED_PAIR_PREFIX) | Q(source__startswith="paraqd")
    )
    if include_imported_pairs:
        # Only pairs imported as train or dev data: an evaluation set imported without its split
        # (AQUA_test without --split test) stays out all the same.
        imported = imported.exclude(split__in=[Problem.Split.TRAIN, Problem.Split.DEV])
    held_out |= Q(text_hash__in=imported.values("text_hash"))
    excluded = {
        "test_split": scope.filter(split=Problem.Split.TEST).count(),
        "held_out_copies": scope.exclude(split=Problem.Split.TEST).filter(held_out).count(),
    }
    allowed = scope.exclude(split=Problem.Split.TEST).exclude(held_out).order_by("id")
    return allowed, excluded


@dataclass(frozen=True)
class _Example:
    text: str
    source: str  # operator name or "gold:<id>"
    hard: bool = False


def gold_is_hard(*, gold_valid: bool, model_score: float | None, threshold: float = DEFAULT_THRESHOLD) -> bool:
    """Whether a human gold label disagrees with the model's score (a hard example, weighted up).

    >>> gold_is_hard(gold_valid=True, model_score=0.2), gold_is_hard(gold_valid=False, model_score=0.2)
    (True, False)
    """
    if model_score is None:
        return False
    return (model_score > threshold) != bool(gold_valid)


def _anchor_triplets(
    anchor: str, positives: list[_Example], negatives: list[_Example], rng: random.Random, pairing: str = "cycle"
) -> list:
    """One question's triplets. ``pairing="cycle"``: max(#positives, #negatives) triplets, both
    lists shuffled and the shorter one cycled, so every positive and every negative appears at least
    once (the authors' recipe, METHODS.md). ``pairing="all"``: every positive with every negative
    (#positives x #negatives). A triplet is a disagreement (hard) one when either side is."""
    from ml.paraqd import DISAGREEMENT_SOURCE, Triplet

    if not positives or not negatives:
        return []
    positives, negatives = positives[:], negatives[:]
    rng.shuffle(positives)
    rng.shuffle(negatives)
    if pairing == "all":
        combos = [(pos, neg) for pos in positives for neg in negatives]
    else:
        combos = [(positives[i % len(positives)], negatives[i % len(negatives)])
                  for i in range(max(len(positives), len(negatives)))]
    triplets = []
    for pos, neg in combos:
        hard = pos.hard or neg.hard
        source = f"{pos.source}/{neg.source}"
        triplets.append(Triplet(
            anchor=anchor,
            positive=pos.text,
            negative=neg.text,
            # The trainer multiplies the weight of "disagreement" triplets by hard_example_weight.
            source=f"{DISAGREEMENT_SOURCE}:{source}" if hard else source,
        ))
    return triplets


def _round_robin_by_dataset(rows: list[tuple[int, str, int]]) -> list[tuple[int, str, int]]:
    """``rows`` (id, text, dataset id) reordered to take the datasets in turn, each keeping its own
    order: [a1, a2, b1, c1, b2] -> [a1, b1, c1, a2, b2]."""
    queues: dict[int, list[tuple[int, str, int]]] = {}
    for row in rows:
        queues.setdefault(row[2], []).append(row)
    ordered = []
    for turn in range(max((len(q) for q in queues.values()), default=0)):
        ordered += [q[turn] for q in queues.values() if turn < len(q)]
    return ordered


def _gold_examples(
    problem_ids: list[int], *, include_imported_pairs: bool, threshold: float,
    exclude_candidate_ids: Collection[int] = (),
) -> tuple[dict[int, list[tuple[bool, _Example]]], list[int]]:
    """Per problem id: (valid, example) for each human gold label (and imported one, with
    ``include_imported_pairs``: the callers only pass problems allowed for training); and the gold
    label ids used."""
    # Synthesized test pairs are the platform's own test set: never trained on, even once labelled.
    sources = [*HUMAN_GOLD_SOURCES, *([GoldLabel.Source.IMPORT] if include_imported_pairs else [])]
    golds = GoldLabel.objects.filter(
        candidate__problem_id__in=problem_ids, source__in=sources
    ).exclude(candidate__generator__startswith=TEST_GENERATOR_PREFIX)
    if exclude_candidate_ids:  # a held-out evaluation split (modelhub.retraining)
        golds = golds.exclude(candidate_id__in=list(exclude_candidate_ids))
    if not include_imported_pairs:
        golds = golds.exclude(candidate__generator__startswith=IMPORTED_PAIR_PREFIX)
    golds = list(golds.select_related("candidate").order_by("id"))
    active = modelversion_active(kind=KIND)
    model_scores: dict[int, float] = {}
    if active is not None and golds:
        model_scores = dict(
            Score.objects.filter(
                model_version=active, candidate_id__in=[g.candidate_id for g in golds], paraqd__isnull=False
            ).values_list("candidate_id", "paraqd")
        )
    by_problem: dict[int, list[tuple[bool, _Example]]] = {}
    for gold in golds:
        hard = gold_is_hard(gold_valid=gold.valid, model_score=model_scores.get(gold.candidate_id), threshold=threshold)
        example = _Example(text=gold.candidate.text, source=f"gold:{gold.pk}", hard=hard)
        by_problem.setdefault(gold.candidate.problem_id, []).append((gold.valid, example))
    return by_problem, [g.pk for g in golds]


def paraqd_training_triplets(
    *,
    datasets: Sequence[Dataset],
    max_problems: int | None = None,
    balance_datasets: bool = False,
    seed: int = 3407,
    operators: Sequence[str] | None = None,
    include_imported_pairs: bool = False,
    threshold: float = DEFAULT_THRESHOLD,
    resources: dict[str, Any] | None = None,
    progress: Progress | None = None,
    exclude_candidate_ids: Collection[int] = (),
    pairing: str = "cycle",
    operator_draws: int = 1,
) -> tuple[list[Triplet], dict[str, Any]]:
    """Triplets for training a ParaQD scorer on ``datasets``, and a snapshot of what went in.

    Each allowed problem (see :func:`training_problems`; problems with human gold labels first,
    the rest in a seeded order, at most ``max_problems``; with ``balance_datasets`` that order takes
    the datasets in turn, so a small in-domain set is not drowned by a large one) gets the outputs of the training
    ``operators`` that apply to it (default :func:`default_training_operators`), seeded per
    problem with ``random.Random(f"{seed}-{problem.id}")``. Its human gold labels join them: valid
    paraphrases as positives, invalid ones as negatives; one that the active model scores on the
    wrong side of ``threshold`` is a hard example (its triplets' source starts with
    ``disagreement``, which the trainer weights by ``hard_example_weight``). Gold labels of
    ``exclude_candidate_ids`` stay out (a held-out evaluation split). ``pairing`` says how a
    question's positives and negatives are combined (see :func:`_anchor_triplets`). With
    ``operator_draws`` N > 1 the stochastic operators run N - 1 more times on each problem, seeded
    ``f"{seed}-{problem.id}-draw{k}"``, and their outputs not seen yet for that problem join its
    examples (the first draw is exactly the N = 1 data).

    The snapshot holds the dataset ids and names, the problem counts (used, left out and why),
    outputs per operator, the gold label ids, the triplet count and a sha256 of the triplets.
    """
    from ml.operators import get_operator
    from ml.paraqd.config import PAIRINGS

    if max_problems is not None and max_problems < 1:
        raise ParaQDError("--max-problems must be at least 1")
    if pairing not in PAIRINGS:
        raise ParaQDError(f"triplet pairing must be one of {', '.join(PAIRINGS)}, not {pairing!r}")
    if isinstance(operator_draws, bool) or not isinstance(operator_draws, int) or operator_draws < 1:
        raise ParaQDError(f"operator draws must be an integer >= 1, not {operator_draws!r}")
    progress = _scaled(progress, 0.0, 1.0)
    names = list(operators) if operators is not None else default_training_operators()
    specs = []
    for name in names:
        try:
            spec = get_operator(name)
        except KeyError as exc:
            raise ParaQDError(str(exc.args[0])) from exc
        if spec.split != "train":
            raise ParaQDError(f"operator {name!r} is a test operator; training uses f1-f10 and the offline extras")
        specs.append(spec)
    if resources is None:
        needs_similarity = any("similarity" in spec.accepts for spec in specs)
        resources = operator_resources(with_similarity=needs_similarity)

    allowed, excluded = training_problems(datasets=datasets, include_imported_pairs=include_imported_pairs)
    rows = list(allowed.values_list("id", "text", "dataset_id"))
    gold_by_problem, _ = _gold_examples(
        [row[0] for row in rows], include_imported_pairs=include_imported_pairs, threshold=threshold,
        exclude_candidate_ids=exclude_candidate_ids,
    )
    with_gold = [row for row in rows if row[0] in gold_by_problem]
    others = [row for row in rows if row[0] not in gold_by_problem]
    random.Random(seed).shuffle(others)
    if balance_datasets:
        others = _round_robin_by_dataset(others)
    chosen = [(pk, text) for pk, text, _ in (with_gold + others)[: max_problems or None]]

    if any("vocabulary" in spec.accepts for spec in specs) and "vocabulary" not in resources:
        # Replacement words come from the corpus being trained on, like the authors' f7 outputs.
        from ml.operators import vocabulary_of

        resources = {**resources, "vocabulary": vocabulary_of([text for _, text in chosen])}
    triplets: list[Triplet] = []
    applied: Counter[str] = Counter()
    not_applicable: Counter[str] = Counter()
    extra_outputs: Counter[str] = Counter()  # distinct outputs of draws 2..N
    stochastic_specs = [spec for spec in specs if spec.stochastic]
    gold_used: list[int] = []
    hard_examples = 0
    without_triplets = 0
    for done, (problem_id, text) in enumerate(chosen, start=1):
        rng = random.Random(f"{seed}-{problem_id}")
        positives: list[_Example] = []
        negatives: list[_Example] = []
        for spec in specs:
            result = _apply(spec.name, text, rng, resources)
            if result is None:
                not_applicable[spec.name] += 1
                continue
            applied[spec.name] += 1
            (positives if spec.valid else negatives).append(_Example(result.text, spec.name))
        if operator_draws > 1:
            seen = {ex.text for ex in positives + negatives} | {text}
            for draw in range(1, operator_draws):
                draw_rng = random.Random(f"{seed}-{problem_id}-draw{draw}")
                for spec in stochastic_specs:
                    result = _apply(spec.name, text, draw_rng, resources)
                    if result is None or result.text in seen:
                        continue
                    seen.add(result.text)
                    extra_outputs[spec.name] += 1
                    (positives if spec.valid else negatives).append(_Example(result.text, spec.name))
        for valid, example in gold_by_problem.get(problem_id, []):
            (positives if valid else negatives).append(example)
        made = _anchor_triplets(text, positives, negatives, rng, pairing)
        if made:
            golds_here = [ex for _, ex in gold_by_problem.get(problem_id, [])]
            gold_used += [int(ex.source.split(":", 1)[1]) for ex in golds_here]
            hard_examples += sum(ex.hard for ex in golds_here)
        else:
            without_triplets += 1
        triplets.extend(made)
        if progress and (done % 10 == 0 or done == len(chosen)):
            progress(done / len(chosen), f"operators applied to {done}/{len(chosen)} problems")

    digest = hashlib.sha256()
    for t in triplets:
        digest.update(json.dumps([t.anchor, t.positive, t.negative, t.weight, t.source]).encode())
        digest.update(b"\n")
    snapshot = {
        "datasets": [{"id": d.pk, "name": d.name} for d in datasets],
        "seed": seed,
        "operators": names,
        "problems_available": len(rows),
        "problems_used": len(chosen),
        "problems_without_triplets": without_triplets,
        "excluded": excluded,
        "include_imported_pairs": include_imported_pairs,
        "max_problems": max_problems,
        "balance_datasets": balance_datasets,
        "pairing": pairing,
        "outputs_per_operator": dict(sorted(applied.items())),
        "not_applicable_per_operator": dict(sorted(not_applicable.items())),
        "operator_draws": operator_draws,
        "extra_draw_outputs_per_operator": dict(sorted(extra_outputs.items())),
        "gold_label_ids": sorted(gold_used),
        "hard_examples": hard_examples,
        "triplets": len(triplets),
        "hash": digest.hexdigest(),
    }
    return triplets, snapshot


# --- training -------------------------------------------------------------------------------------


def _train_config(
    *, preset: str, encoder_path: str, epochs: int | None, time_budget_s: float | None, seed: int = 3407,
    overrides: dict[str, Any] | None = None,
):
    from ml.paraqd import ParaQDTrainConfig

    if preset not in PRESETS:
        raise ParaQDError(f"--preset must be one of {', '.join(PRESETS)}, not {preset!r}")
    if epochs is not None and epochs < 1:
        raise ParaQDError("--epochs must be at least 1")
    requested = {k: v for k, v in (overrides or {}).items() if v is not None}
    overrides = {"encoder": encoder_path, "device": _device(), "seed": seed}
    if settings.PARALAB_TORCH_THREADS:
        overrides["num_threads"] = settings.PARALAB_TORCH_THREADS
    if epochs is not None:
        overrides["epochs"] = epochs
    if time_budget_s is not None:
        overrides["time_budget_s"] = time_budget_s
    if "distance" in requested and "margin" not in requested:
        overrides["margin"] = None  # the distance's own default margin
    if requested.get("triplet_pairing") == "all" and "max_triplets_per_anchor" not in requested:
        # The preset's cap (6 a question) would throw most of the all-pairs triplets away.
        overrides["max_triplets_per_anchor"] = None
    overrides.update(requested)
    factory = ParaQDTrainConfig.paper if preset == "paper" else ParaQDTrainConfig.tiny
    try:
        return factory(**overrides)
    except ValueError as exc:
        raise ParaQDError(str(exc)) from exc


def _model_root() -> Path:
    return Path(settings.MODEL_DIR) / KIND


def _remove_abandoned_partials(root: Path) -> None:
    """Delete partial training folders older than the longest a task may run: their worker was
    killed (a failure inside Python deletes its own folder)."""
    cutoff = time.time() - settings.PARALAB_TASK_HARD_LIMIT_S - 600
    for folder in root.glob(".partial-*"):
        try:
            if folder.stat().st_mtime < cutoff:
                shutil.rmtree(folder, ignore_errors=True)
                logger.info("removed abandoned partial model folder %s", folder)
        except FileNotFoundError:
            pass


def paraqd_train(
    *,
    dataset_names: Sequence[str],
    preset: str = "tiny",
    epochs: int | None = None,
    max_problems: int | None = None,
    activate: bool = False,
    user: AbstractBaseUser | None = None,
    job: Job | None = None,
    progress: Progress | None = None,
    encoder: str | None = None,
    operators: Sequence[str] | None = None,
    time_budget_s: float | None = None,
    seed: int = 3407,
    exclude_candidate_ids: Collection[int] = (),
    config_overrides: dict[str, Any] | None = None,
    balance_datasets: bool = False,
    include_imported_pairs: bool = False,
    eval_dataset_name: str | None = None,
) -> ModelVersion:
    """Train a ParaQD scorer on the named datasets and register it as a ``candidate`` version
    (activated too with ``activate``). Writes to ``MODEL_DIR/paraqd/v<id>-<timestamp>/``.

    Training writes into a fresh partial directory that is deleted when anything fails; the
    version row is created, the directory renamed to its final name and (optionally) the version
    activated only after training succeeded, so a failure leaves the active model as it was.
    ``eval_dataset_name``: a dataset whose gold-labelled pairs are scored after every epoch; the
    curve is stored in ``metrics["training"]["eval_history"]`` (a validation set such as the paper's
    aqua_val, never the test set one reports on, if the curve is used to choose settings).
    ``time_budget_s`` is the wall-clock budget of the whole call: building the triplets counts
    against it, and training gets what is left. ``config_overrides`` change fields of the preset's
    :class:`ml.paraqd.ParaQDTrainConfig` (e.g. ``{"distance": "euclidean"}``; None values are ignored).
    Raises ParaQDError for bad input (unknown dataset or encoder, nothing to train on).
    """
    from ml.paraqd import train_paraqd

    started = time.monotonic()

    if job is not None:
        # A rerun of a job whose worker was lost after registering the version: finish, don't retrain.
        done = ModelVersion.objects.filter(job=job, kind=KIND).first()
        if done is not None and done.artifact_path and Path(done.artifact_path).is_dir():
            if progress:
                progress(1.0, f"version {done.pk} was already trained by this job")
            return modelversion_activate(version=done) if activate else done
    datasets = datasets_by_name(dataset_names)
    eval_pairs = None
    if eval_dataset_name:
        pairs = gold_pairs(dataset=datasets_by_name([eval_dataset_name])[0])
        if not pairs:
            raise ParaQDError(f"dataset {eval_dataset_name!r} has no gold-labelled pairs to evaluate on")
        eval_pairs = [(question, paraphrase, valid) for _, question, paraphrase, valid in pairs]
    encoder_name = encoder or settings.PARALAB_SENTENCE_ENCODER
    encoder_path = base_encoder_path(encoder_name)
    config = _train_config(
        preset=preset, encoder_path=encoder_path, epochs=epochs, time_budget_s=time_budget_s, seed=seed,
        overrides=config_overrides,
    )

    triplets, snapshot = paraqd_training_triplets(
        datasets=datasets, max_problems=max_problems, balance_datasets=balance_datasets, seed=seed,
        operators=operators, include_imported_pairs=include_imported_pairs,
        resources=operator_resources(encoder=encoder_name),
        progress=_scaled(progress, 0.0, 0.3),
        exclude_candidate_ids=exclude_candidate_ids,
        pairing=config.triplet_pairing,
        operator_draws=config.operator_draws,
    )
    if not triplets:
        names = ", ".join(d.name for d in datasets)
        excluded = snapshot["excluded"]
        if not snapshot["problems_available"]:
            raise ParaQDError(
                f"no training triplets from {names}: no problem may be trained on ({excluded['test_split']} "
                f"of split test, {excluded['held_out_copies']} held out as test or imported-pair questions)"
            )
        raise ParaQDError(
            f"no training triplets from {names}: no positive and negative operator both applied to any of "
            f"its {snapshot['problems_available']} problems"
        )
    snapshot["seconds"] = round(time.monotonic() - started, 3)
    if progress:
        progress(0.3, f"{len(triplets)} triplets from {snapshot['problems_used']} problems "
                      f"({snapshot['hard_examples']} hard gold examples) in {snapshot['seconds']:.0f} s")
    if time_budget_s is not None:
        left = time_budget_s - (time.monotonic() - started)
        if left <= 0:
            raise ParaQDError(f"the time budget of {time_budget_s:g} s was used up building the triplets")
        config = config.replace(time_budget_s=left)

    root = _model_root()
    root.mkdir(parents=True, exist_ok=True)
    _remove_abandoned_partials(root)
    stamp = timezone.now().strftime("%Y%m%d-%H%M%S")
    partial = root / f".partial-{stamp}-{uuid.uuid4().hex[:8]}"
    final: Path | None = None
    try:
        result = train_paraqd(config, triplets, partial, progress=_scaled(progress, 0.3, 0.95), eval_pairs=eval_pairs)
        summary = result.summary()
        metrics = {
            "training": {
                "seconds": round(result.seconds, 3),
                "device": result.device,
                "steps": result.steps,
                "planned_steps": result.planned_steps,
                "epochs_completed": result.epochs_completed,
                "triplets_seen": result.triplets_seen,
                "triplets_per_second": summary.get("triplets_per_second"),
                "stopped_early": result.stopped_early,
                "stop_reason": result.stop_reason,
                "final_loss": result.loss_history[-1] if result.loss_history else None,
                "loss_curve": summary.get("loss_curve", []),
                "eval_dataset": eval_dataset_name,
                "eval_history": json_safe(result.eval_history),
            },
        }
        params = {**json_safe(config.to_dict()), "preset": preset, "encoder_setting": encoder_name}
        with transaction.atomic():
            version = modelversion_create(
                kind=KIND, base_model=encoder_name, artifact_path="", training_data=snapshot, params=params,
                metrics=metrics, job=job, created_by=user,
                name=f"paraqd {preset} on {', '.join(d.name for d in datasets)}"[:128],
            )
            final = root / f"v{version.pk}-{stamp}"
            partial.rename(final)
            version.artifact_path = str(final)
            version.save(update_fields=["artifact_path"])
            if activate:
                version = modelversion_activate(version=version)
    except BaseException:
        shutil.rmtree(partial, ignore_errors=True)
        if final is not None:  # renamed, then the transaction failed: the row is gone, so is the folder
            shutil.rmtree(final, ignore_errors=True)
        raise
    if progress:
        progress(1.0, f"version {version.pk} ({version.status}) at {version.artifact_path}")
    logger.info("trained ParaQD version %s on %s in %.1f s", version.pk, [d.name for d in datasets], result.seconds)
    return version


def paraqd_train_start(
    *,
    dataset_names: Sequence[str],
    preset: str = "tiny",
    epochs: int | None = None,
    max_problems: int | None = None,
    activate: bool = False,
    user: AbstractBaseUser | None = None,
    encoder: str | None = None,
    time_budget_s: float | None = None,
    config_overrides: dict[str, Any] | None = None,
    balance_datasets: bool = False,
    include_imported_pairs: bool = False,
    eval_dataset_name: str | None = None,
    enqueue: bool = True,
) -> Job:
    """Queue a training job (gpu queue) once the transaction commits; ParaQDError for bad input.

    ``enqueue=False`` only creates the job, for a caller that runs the task itself (the commands).
    """
    from workers.paraqd import train_job

    datasets = datasets_by_name(dataset_names)
    if eval_dataset_name:
        datasets_by_name([eval_dataset_name])
    overrides = {k: v for k, v in (config_overrides or {}).items() if v is not None}
    _train_config(preset=preset, encoder_path=base_encoder_path(encoder), epochs=epochs, time_budget_s=time_budget_s,
                  overrides=overrides)
    if max_problems is not None and max_problems < 1:
        raise ParaQDError("--max-problems must be at least 1")
    job = job_create(
        kind=Job.Kind.TRAIN,
        params={
            "model": KIND, "datasets": [d.name for d in datasets], "preset": preset, "epochs": epochs,
            "max_problems": max_problems, "activate": activate, "encoder": encoder, "time_budget_s": time_budget_s,
            "config_overrides": overrides, "balance_datasets": balance_datasets,
            "include_imported_pairs": include_imported_pairs, "eval_dataset": eval_dataset_name,
        },
        dataset=datasets[0],
        created_by=user,
        queue="gpu",
    )
    if enqueue:
        job_enqueue(job=job, task=train_job)
    return job


# --- models for scoring ---------------------------------------------------------------------------


@dataclass(frozen=True)
class ScoringModel:
    """A model to score with: a version (``version`` set) or an encoder path (pretrained / a path)."""

    path: str
    scorer_version: str
    version: ModelVersion | None = None

    @property
    def label(self) -> str:
        return f"v{self.version.pk}" if self.version else self.scorer_version.removeprefix("paraqd:")


def _version_model(version: ModelVersion) -> ScoringModel:
    if version.kind != KIND:
        raise ParaQDError(f"model version {version.pk} is a {version.kind} model, not a ParaQD scorer")
    if not version.artifact_path or not Path(version.artifact_path).is_dir():
        raise ParaQDError(f"model version {version.pk} has no model directory on disk ({version.artifact_path!r})")
    return ScoringModel(path=version.artifact_path, scorer_version=f"paraqd:v{version.pk}", version=version)


def pretrained_model() -> ScoringModel:
    """The untrained base encoder (``PARALAB_SENTENCE_ENCODER``): the paper's 'Pretrained' row."""
    return ScoringModel(path=base_encoder_path(), scorer_version=PRETRAINED_SCORER)


def paraqd_resolve_model(*, model: str | int | ModelVersion = "active") -> ScoringModel:
    """``active`` (the active version), ``pretrained`` (the base encoder), a version id, a
    ``ModelVersion``, or a model directory. ParaQDError when it does not resolve."""
    if isinstance(model, ModelVersion):
        return _version_model(model)
    name = str(model).strip()
    if name == "active":
        active = modelversion_active(kind=KIND)
        if active is None:
            raise ParaQDError(
                "no active ParaQD model: train one with `train_paraqd --activate`, or pass --model pretrained"
            )
        return _version_model(active)
    if name == "pretrained":
        return pretrained_model()
    if name.isdigit():
        version = modelversion_get(version_id=int(name))
        if version is None:
            raise ParaQDError(f"--model: no model version with id {name}")
        return _version_model(version)
    path = Path(name).expanduser()
    if not path.is_dir():
        raise ParaQDError(f"--model: expected active, pretrained, a version id or a model directory; {name!r} is none")
    return ScoringModel(path=str(path.resolve()), scorer_version=f"paraqd:path:{path.resolve()}"[:128])


def _default_scoring_model(version: ModelVersion | None) -> ScoringModel:
    if version is not None:
        return _version_model(version)
    active = modelversion_active(kind=KIND)
    return _version_model(active) if active is not None else pretrained_model()


def _scorer(model: ScoringModel):
    from ml.paraqd.model import get_scorer

    return get_scorer(model.path, _device())


def paraqd_default_model() -> ScoringModel:
    """What scores new candidates: the active ParaQD version, else the packaged pretrained encoder
    (scorer version ``paraqd:pretrained``), so generation works before any model was trained."""
    return _default_scoring_model(None)


def paraqd_cosines(*, model: ScoringModel, questions: Sequence[str], paraphrases: Sequence[str]) -> list[float]:
    """ParaQD cosines of (question, paraphrase) pairs with ``model`` (the scorer stays cached)."""
    if not questions:
        return []
    return [float(c) for c in _scorer(model).score(list(questions), list(paraphrases))]


# --- scoring --------------------------------------------------------------------------------------


def paraqd_score_candidates(
    *, candidate_ids: Iterable[int], version: ModelVersion | None = None, progress: Progress | None = None
) -> int:
    """Score candidates against their problem with ``version`` (default: the active version, or
    the pretrained base encoder when there is none, scorer version ``paraqd:pretrained``).

    Writes ``Score(paraqd=cos, similarity=(cos + 1) / 2)`` per (candidate, scorer version),
    inserting or updating in place (one row per pair, whatever the number of runs). Returns the
    number of candidates scored (ids that no longer exist are skipped).
    """
    model = _default_scoring_model(version)
    ids = sorted(set(int(pk) for pk in candidate_ids))
    if not ids:
        return 0
    scorer = _scorer(model)
    scored = 0
    for start in range(0, len(ids), SCORE_BATCH):
        chunk = ids[start:start + SCORE_BATCH]
        rows = list(Candidate.objects.filter(pk__in=chunk).values_list("pk", "problem__text", "text"))
        if not rows:
            continue
        cosines = scorer.score([r[1] for r in rows], [r[2] for r in rows])
        scores = [
            Score(
                candidate_id=pk, scorer_version=model.scorer_version, model_version=model.version,
                paraqd=float(cos), similarity=(float(cos) + 1.0) / 2.0,
            )
            for (pk, _, _), cos in zip(rows, cosines)
        ]
        Score.objects.bulk_create(
            scores, update_conflicts=True, unique_fields=["candidate", "scorer_version"],
            update_fields=["paraqd", "similarity", "model_version"],
        )
        scored += len(rows)
        if progress:
            progress(min(1.0, (start + len(chunk)) / len(ids)), f"scored {scored} candidates")
    return scored


def paraqd_score_start(
    *,
    candidate_ids: Iterable[int] | None = None,
    dataset: Dataset | None = None,
    version: ModelVersion | None = None,
    user: AbstractBaseUser | None = None,
    enqueue: bool = True,
) -> Job:
    """Queue a scoring job (gpu queue) for some candidates, or for every candidate of ``dataset``."""
    from workers.paraqd import score_job

    if (candidate_ids is None) == (dataset is None):
        raise ValueError("pass either candidate_ids or dataset")
    params: dict[str, Any] = {"version": version.pk if version else None}
    if dataset is not None:
        params["dataset"] = dataset.pk
    else:
        params["candidate_ids"] = sorted(set(int(pk) for pk in candidate_ids or ()))
    job = job_create(kind=Job.Kind.SCORE, params=params, dataset=dataset, created_by=user, queue="gpu")
    if enqueue:
        job_enqueue(job=job, task=score_job)
    return job


# --- evaluation -----------------------------------------------------------------------------------


def gold_pairs(*, dataset: Dataset) -> list[tuple[int, str, str, bool]]:
    """(candidate id, question, paraphrase, valid) for every gold-labelled candidate of ``dataset``."""
    return list(
        GoldLabel.objects.filter(candidate__problem__dataset=dataset)
        .order_by("candidate_id")
        .values_list("candidate_id", "candidate__problem__text", "candidate__text", "valid")
    )


def paraqd_evaluate(
    *,
    dataset: Dataset,
    model: str | int | ModelVersion = "active",
    threshold: float = DEFAULT_THRESHOLD,
    include_scores: bool = False,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """Score ``dataset``'s gold-labelled pairs and return CONTRACT.md's metrics:
    ``{"n", "macro": {"p", "r", "f1", "f1_hm"}, "weighted": {...}, "mu_pos", "mu_neg", "separation"}``
    plus ``model``, ``dataset`` and ``threshold`` (and ``scores``: ``{"valid": [...], "invalid": [...]}``
    with ``include_scores``). A mean over an empty class is ``None``.

    For a model version, the result is also stored in ``version.metrics["eval"][dataset.name]``.
    """
    from ml.metrics import nest_paraqd_metrics, paraqd_eval, score_histogram

    if not math.isfinite(threshold) or not -1.0 <= threshold <= 1.0:
        raise ParaQDError(f"--threshold must be a cosine in [-1, 1], not {threshold}")
    scoring = paraqd_resolve_model(model=model)
    pairs = gold_pairs(dataset=dataset)
    if not pairs:
        raise ParaQDError(
            f"dataset {dataset.name!r} has no gold-labelled pairs to evaluate on "
            "(import labelled pairs with import_pairs, or have annotators label items)"
        )
    if progress:
        progress(0.1, f"scoring {len(pairs)} gold-labelled pairs with {scoring.label}")
    scores = _scorer(scoring).score([p[1] for p in pairs], [p[2] for p in pairs])
    labels = [int(p[3]) for p in pairs]
    metrics = json_safe(nest_paraqd_metrics(paraqd_eval(scores, labels, threshold)))
    result: dict[str, Any] = {
        **metrics,
        "threshold": threshold,
        "model": {"scorer_version": scoring.scorer_version, "version": scoring.version.pk if scoring.version else None,
                  "path": scoring.path},
        "dataset": dataset.name,
    }
    if scoring.version is not None:
        # The histogram is what /dashboard/ plots: the valid and invalid score distributions.
        stored = {**metrics, "threshold": threshold, "evaluated_at": timezone.now().isoformat(timespec="seconds"),
                  "histogram": score_histogram([float(s) for s in scores], labels)}
        modelversion_set_metrics(version=scoring.version, metrics={dataset.name: stored}, path=("eval",))
    if include_scores:
        result["scores"] = {
            "valid": [float(s) for s, y in zip(scores, labels) if y],
            "invalid": [float(s) for s, y in zip(scores, labels) if not y],
        }
    if progress:
        progress(1.0, f"separation {result['separation']}, weighted F1(hm) {result['weighted']['f1_hm']:.3f}")
    return result


def paraqd_evaluate_start(
    *,
    dataset: Dataset,
    model: str | int = "active",
    threshold: float = DEFAULT_THRESHOLD,
    include_scores: bool = False,
    user: AbstractBaseUser | None = None,
    enqueue: bool = True,
) -> Job:
    """Queue an evaluation job (cpu queue); checks the model and the gold labels first."""
    from workers.paraqd import evaluate_job

    paraqd_resolve_model(model=model)
    if not GoldLabel.objects.filter(candidate__problem__dataset=dataset).exists():
        raise ParaQDError(f"dataset {dataset.name!r} has no gold-labelled pairs to evaluate on")
    job = job_create(
        kind=Job.Kind.EVALUATE, params={"model": str(model), "threshold": threshold, "include_scores": include_scores},
        dataset=dataset, created_by=user, queue="cpu",
    )
    if enqueue:
        job_enqueue(job=job, task=evaluate_job)
    return job


# --- synthesized test pairs -----------------------------------------------------------------------


def _test_generators() -> dict[str, Any]:
    """Generators for fb (the platform's denoiser: the active STEAD version) and fe (a general
    seq2seq paraphraser, ``PARALAB_PARAPHRASER_MODEL``), when they exist; fb/fe refuse otherwise."""
    from ml.seq2seq import Seq2SeqConfig, Seq2SeqGenerator

    device = _generation_device()
    generators: dict[str, Any] = {}
    stead = modelversion_active(kind=ModelVersion.Kind.STEAD)
    if stead is not None and stead.artifact_path and Path(stead.artifact_path).is_dir():
        generators["fb"] = _OnceUnavailable(Seq2SeqGenerator(
            Seq2SeqConfig(model=stead.artifact_path, prefix="paraphrase: ", device=device)))
    if settings.PARALAB_PARAPHRASER_MODEL:
        generators["fe"] = _OnceUnavailable(Seq2SeqGenerator(
            Seq2SeqConfig(model=settings.PARALAB_PARAPHRASER_MODEL, device=device)))
    return generators


def _pick(names: list[str], count: int, text: str, rng: random.Random, resources_for: Callable[[str], dict]):
    """Up to ``count`` results of distinct operators among ``names``, tried in a random order."""
    order = names[:]
    rng.shuffle(order)
    picked = []
    for name in order:
        if len(picked) == count:
            break
        result = _apply(name, text, rng, resources_for(name))
        if result is not None:
            picked.append(result)
    return picked


def paraqd_synthesize_tests(
    *,
    dataset: Dataset,
    per_problem: int = 2,
    seed: int = 3407,
    progress: Progress | None = None,
    generators: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """ParaQD's synthesized test set (paper 4.2): per problem, ``per_problem`` pairs, half from a
    positive test operator (fa, or fb when a generator exists) and half from a negative one (fc,
    fd, fe), each chosen at random among those that apply. Each output becomes a Candidate
    (generator ``test:<op>``, ``intended_valid``) and an AnnotationItem (purpose
    ``synthesized_test``, two labels required).

    Idempotent: a problem that already has synthesized test candidates is skipped, so running it
    again creates nothing. fc's TF-IDF is fitted on the dataset's problems.
    Returns ``{"dataset", "problems", "skipped_existing", "no_operator_applied",
    "candidates_created", "items_created", "per_operator"}``.
    """
    from ml.operators import TEST_OPERATORS, fit_tfidf

    if per_problem < 1:
        raise ParaQDError("--per-problem must be at least 1")
    progress = _scaled(progress, 0.0, 1.0)
    problems = list(Problem.objects.filter(dataset=dataset).order_by("id").values_list("id", "text"))
    if not problems:
        raise ParaQDError(f"dataset {dataset.name!r} has no problems")
    done_already = set(
        Candidate.objects.filter(problem__dataset=dataset, generator__startswith=TEST_GENERATOR_PREFIX)
        .values_list("problem_id", flat=True)
    )
    gens = _test_generators() if generators is None else generators
    shared = {"spacy_model": settings.PARALAB_SPACY_MODEL, "tfidf": fit_tfidf(text for _, text in problems)}

    def resources_for(name: str) -> dict[str, Any]:
        return {**shared, "generator": gens.get(name)}

    positive = [n for n, spec in TEST_OPERATORS.items() if spec.valid and (n != "fb" or "fb" in gens)]
    negative = [n for n, spec in TEST_OPERATORS.items() if not spec.valid and (n != "fe" or "fe" in gens)]
    n_pos, n_neg = math.ceil(per_problem / 2), per_problem // 2

    per_operator: Counter[str] = Counter()
    created = items = skipped = none_applied = 0
    todo = [(pk, text) for pk, text in problems if pk not in done_already]
    skipped = len(problems) - len(todo)
    for done, (problem_id, text) in enumerate(todo, start=1):
        rng = random.Random(f"{seed}-{problem_id}")
        results = _pick(positive, n_pos, text, rng, resources_for) + _pick(negative, n_neg, text, rng, resources_for)
        if not results:
            none_applied += 1
        with transaction.atomic():
            for result in results:
                candidate, was_created = Candidate.objects.get_or_create(
                    problem_id=problem_id,
                    generator=f"{TEST_GENERATOR_PREFIX}{result.operator}",
                    text_hash=text_hash(result.text),
                    defaults={
                        "text": result.text,
                        "operator": result.operator,
                        "intended_valid": result.valid,
                        "metadata": {"synthesized_test": True, "seed": seed,
                                     **{k: v for k, v in result.meta.items() if isinstance(v, (str, int, float, bool))}},
                    },
                )
                _, item_created = AnnotationItem.objects.get_or_create(
                    candidate=candidate,
                    defaults={"dataset": dataset, "purpose": SYNTHESIZED_TEST_PURPOSE,
                              "required_labels": dataset.labels_per_item},
                )
                created += was_created
                items += item_created
                per_operator[result.operator] += was_created
        if progress and (done % 10 == 0 or done == len(todo)):
            progress(done / len(todo), f"{done}/{len(todo)} problems, {created} test pairs")
    return {
        "dataset": dataset.name,
        "problems": len(problems),
        "skipped_existing": skipped,
        "no_operator_applied": none_applied,
        "candidates_created": created,
        "items_created": items,
        "per_operator": dict(sorted(per_operator.items())),
    }


def paraqd_synthesize_start(
    *,
    dataset: Dataset,
    per_problem: int = 2,
    seed: int = 3407,
    user: AbstractBaseUser | None = None,
    enqueue: bool = True,
) -> Job:
    """Queue a synthesis job (cpu queue) once the transaction commits."""
    from workers.paraqd import synthesize_job

    if per_problem < 1:
        raise ParaQDError("--per-problem must be at least 1")
    job = job_create(
        kind=Job.Kind.SYNTHESIZE, params={"per_problem": per_problem, "seed": seed}, dataset=dataset,
        created_by=user, queue="cpu",
    )
    if enqueue:
        job_enqueue(job=job, task=synthesize_job)
    return job
