"""ParaQD's training triplets: operator outputs and human gold labels of the problems that may be
trained on (never a test-split problem, a copy of one, or an imported evaluation pair's question)."""
from __future__ import annotations

import hashlib
import json
import random
from collections import Counter
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

from django.db.models import Q, QuerySet

from annotation.models import GoldLabel
from corpus.models import Dataset, Problem
from ml.operators import get_operator, vocabulary_of
from ml.paraqd import DISAGREEMENT_SOURCE, Triplet
from ml.paraqd.config import PAIRINGS
from modelhub.disagreements import gold_disagrees
from modelhub.judging import version_threshold
from modelhub.selectors import HUMAN_GOLD_SOURCES, modelversion_active
from paraphrases.models import IMPORTED_PAIR_PREFIX, TEST_GENERATOR_PREFIX, Score

from .common import DEFAULT_THRESHOLD, KIND, ParaQDError, Progress, scaled
from .operators import apply_or_none, default_training_operators, operator_resources


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
    """Whether a human gold label disagrees with the model's score (a hard example, weighted up):
    the platform's one rule, :func:`modelhub.disagreements.gold_disagrees`.

    >>> gold_is_hard(gold_valid=True, model_score=0.2), gold_is_hard(gold_valid=False, model_score=0.2)
    (True, False)
    """
    return gold_disagrees(gold_valid=gold_valid, model_score=model_score, threshold=threshold)


def _anchor_triplets(
    anchor: str, positives: list[_Example], negatives: list[_Example], rng: random.Random, pairing: str = "cycle"
) -> list:
    """One question's triplets. ``pairing="cycle"``: max(#positives, #negatives) triplets, both
    lists shuffled and the shorter one cycled, so every positive and every negative appears at least
    once (the authors' recipe, METHODS.md). ``pairing="all"``: every positive with every negative
    (#positives x #negatives). A triplet is a disagreement (hard) one when either side is."""

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
    problem_ids: list[int], *, include_imported_pairs: bool, threshold: float | None,
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
    if threshold is None:  # the active version's calibrated threshold (modelhub.judging)
        threshold = version_threshold(active)
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
    threshold: float | None = None,
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
    wrong side of ``threshold`` (default: the active version's calibrated threshold) is a hard example (its triplets' source starts with
    ``disagreement``, which the trainer weights by ``hard_example_weight``). Gold labels of
    ``exclude_candidate_ids`` stay out (a held-out evaluation split). ``pairing`` says how a
    question's positives and negatives are combined (see :func:`_anchor_triplets`). With
    ``operator_draws`` N > 1 the stochastic operators run N - 1 more times on each problem, seeded
    ``f"{seed}-{problem.id}-draw{k}"``, and their outputs not seen yet for that problem join its
    examples (the first draw is exactly the N = 1 data).

    The snapshot holds the dataset ids and names, the problem counts (used, left out and why),
    outputs per operator, the gold label ids, the triplet count and a sha256 of the triplets.
    """

    if max_problems is not None and max_problems < 1:
        raise ParaQDError("--max-problems must be at least 1")
    if pairing not in PAIRINGS:
        raise ParaQDError(f"triplet pairing must be one of {', '.join(PAIRINGS)}, not {pairing!r}")
    if isinstance(operator_draws, bool) or not isinstance(operator_draws, int) or operator_draws < 1:
        raise ParaQDError(f"operator draws must be an integer >= 1, not {operator_draws!r}")
    progress = scaled(progress, 0.0, 1.0)
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
            result = apply_or_none(spec.name, text, rng, resources)
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
                    result = apply_or_none(spec.name, text, draw_rng, resources)
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
