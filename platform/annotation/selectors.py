"""Reads of the annotation loop: the queue, progress, agreement and disagreements.

Slots. An item needs ``required_labels`` (k) distinct annotators. A slot is *taken* by a label or
by a lease still running (``Assignment.status == leased`` and ``leased_until`` in the future); a
lease that ran out, or a skip, frees it. An annotator is never offered an item they labelled,
skipped or hold, so no one labels an item twice.

Balance. Each annotator's share of a dataset is ``ceil(Σ k / members)`` items (capped at the
number of items): with two annotators and k = 2 both label everything; with four, each labels
half. The share follows the member list, so removing an absent annotator hands their part to the
others. Within the share, items with the fewest taken slots come first (every item gets its
first label before any gets its last), then the dataset's ``queue_order``.

Annotator-facing reads take the user and only ever return their own labels; the agreement and
disagreement reads are for staff (the API checks the role).
"""
from __future__ import annotations

import math
from collections import defaultdict
from datetime import datetime
from itertools import combinations
from typing import Any

from django.contrib.auth import get_user_model
from django.db.models import (
    Case,
    Count,
    Exists,
    ExpressionWrapper,
    F,
    IntegerField,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
    Sum,
    Value,
    When,
)
from django.db.models.query_utils import FilteredRelation
from django.db.models.functions import Abs, Coalesce, Mod
from django.utils import timezone

from corpus.models import Dataset
from ml.agreement import cohen_kappa, fleiss_kappa, observed_agreement, weighted_kappa

from .models import AnnotationItem, Assignment, GoldLabel, Label, LabelHistory

RATINGS = ("solvability", "diversity", "fluency")


def paraqd_threshold() -> float:
    """The threshold the deciding judge reads its score at (``modelhub.judging``)."""
    return current_decision().threshold


def current_decision():
    """The judge that decides and its calibrated threshold (``modelhub.judging.decision``)."""
    from modelhub.judging import decision

    return decision()


def active_paraqd_version_id() -> int | None:
    """The deciding judge's version id (the active ParaQD or numeracy-aware judge version)."""
    return current_decision().version_id


def disagreeing_gold(qs: QuerySet[GoldLabel], *, version_id: int, threshold: float, column: str = "paraqd"):
    from modelhub.disagreements import disagreeing_gold as rule

    return rule(qs, version_id=version_id, threshold=threshold, column=column)


# --- slots ----------------------------------------------------------------------------------------


def _count(qs: QuerySet, group: str):
    """A correlated COUNT subquery, 0 when nothing matches."""
    counted = qs.order_by().values(group).annotate(n=Count("pk")).values("n")
    return Coalesce(Subquery(counted, output_field=IntegerField()), Value(0))


def _active_lease(now: datetime) -> Q:
    return Q(status=Assignment.Status.LEASED, leased_until__gt=now)


def taken_slots(now: datetime):
    """Expression: labels plus running leases of an item (``OuterRef('pk')`` is the item)."""
    labels = _count(Label.objects.filter(item=OuterRef("pk")), "item")
    leases = _count(Assignment.objects.filter(_active_lease(now), item=OuterRef("pk")), "item")
    return labels + leases


def _held_by(user, now: datetime) -> Q:
    """Items ``user`` already labelled, skipped or holds a running lease on."""
    mine = Assignment.objects.filter(item=OuterRef("pk"), annotator=user).filter(
        Q(status__in=[Assignment.Status.DONE, Assignment.Status.SKIPPED]) | _active_lease(now)
    )
    return Q(Exists(Label.objects.filter(item=OuterRef("pk"), annotator=user))) | Q(Exists(mine))


def _taken_aggregate(now: datetime):
    """Aggregate over an item's labels and running leases (LEFT JOINs + GROUP BY, no per-row subplans)."""
    leases = Count("assignments", filter=Q(assignments__status=Assignment.Status.LEASED,
                                           assignments__leased_until__gt=now), distinct=True)
    return Count("labels", distinct=True) + leases


def open_items(*, user, dataset: Dataset, now: datetime | None = None) -> QuerySet[AnnotationItem]:
    """Items of ``dataset`` with a free slot that ``user`` may still take, annotated ``taken``.

    Grouped (one row per item): fine to order and slice, not to lock — ``annotation_next`` locks
    the chosen rows in a second query.
    """
    now = now or timezone.now()
    return (
        AnnotationItem.objects.filter(dataset=dataset)
        .exclude(_held_by(user, now))
        .annotate(taken=_taken_aggregate(now))
        .filter(taken__lt=F("required_labels"))
    )


def queue_order(*, qs: QuerySet[AnnotationItem], user, dataset: Dataset) -> QuerySet[AnnotationItem]:
    """``qs`` (annotated ``taken``) in the order ``user`` is offered it: fewest taken slots first,
    then the dataset's ``queue_order``, then id."""
    order = dataset.queue_order
    if order == Dataset.QueueOrder.DISAGREEMENT:
        said_valid = Count("labels", filter=Q(labels__valid=True), distinct=True)
        said_invalid = Count("labels", filter=Q(labels__valid=False), distinct=True)
        conflict = Case(When(Q(said_valid__gt=0) & Q(said_invalid__gt=0), then=Value(1)), default=Value(0),
                        output_field=IntegerField())
        # A third opinion on a split item is worth more than a first one on a fresh item.
        return (
            qs.annotate(said_valid=said_valid, said_invalid=said_invalid)
            .annotate(conflict=conflict)
            .order_by(F("conflict").desc(), "taken", "id")
        )
    if order == Dataset.QueueOrder.RANDOM:
        # A fixed shuffle per annotator: a Weyl sequence (golden-ratio multiplier modulo a prime)
        # spreads consecutive ids evenly; the user's seed shifts it. Portable SQL (no RANDOM(seed)).
        seed = (int(user.pk) * 7919) % 1_000_003
        key = Mod((F("id") + Value(seed)) * Value(2_654_435_761), Value(4_294_967_291))
        return qs.annotate(shuffle=ExpressionWrapper(key, output_field=IntegerField())).order_by("taken", "shuffle", "id")
    judge = current_decision()
    if judge.version_id is None:
        return qs.order_by("taken", "id")
    # The deciding judge's score, joined (LEFT JOIN … ON model_version) rather than looked up per row.
    scored = qs.annotate(
        active_score=FilteredRelation("candidate__scores", condition=Q(candidate__scores__model_version_id=judge.version_id))
    )
    distance = Abs(F(f"active_score__{judge.column}") - Value(judge.threshold))
    # Prodigy's prefer_uncertain: the score nearest the threshold first; unscored items after.
    return scored.annotate(uncertainty=distance).order_by("taken", F("uncertainty").asc(nulls_last=True), "id")


# --- progress -------------------------------------------------------------------------------------


def annotator_share(*, n_items: int, slots: int, members: int) -> int:
    """Items one annotator is asked to label: ``ceil(slots / members)``, at most every item.

    >>> annotator_share(n_items=10, slots=20, members=4)
    5
    """
    if members <= 0:
        return n_items
    return min(n_items, math.ceil(slots / members))


def _share(dataset: Dataset) -> int:
    stats = AnnotationItem.objects.filter(dataset=dataset).aggregate(
        n=Count("id"), slots=Coalesce(Sum("required_labels"), 0)
    )
    return annotator_share(n_items=stats["n"], slots=stats["slots"], members=dataset.annotators.count())


def _done(user, dataset: Dataset) -> int:
    return Label.objects.filter(annotator=user, item__dataset=dataset).count()


def _held(user, dataset_ref, now: datetime) -> QuerySet[Assignment]:
    """The caller's running leases on items of the dataset that they have not labelled."""
    return Assignment.objects.filter(_active_lease(now), annotator=user, item__dataset=dataset_ref).exclude(
        Exists(Label.objects.filter(item=OuterRef("item"), annotator=user))
    )


def open_item_count(*, user, dataset: Dataset, now: datetime, limit: int) -> int:
    """How many items ``open_items`` holds for ``user``, counting no further than ``limit``.

    Unordered, with a per-item index probe for the taken slots, so PostgreSQL stops at the
    ``limit``-th open item instead of grouping every label and lease of the table.
    """
    if limit <= 0:
        return 0
    return (
        AnnotationItem.objects.filter(dataset=dataset)
        .exclude(_held_by(user, now))
        .annotate(taken=taken_slots(now))
        .filter(taken__lt=F("required_labels"))
        .order_by()[:limit]
        .count()
    )


def annotator_standing(*, user, dataset: Dataset, now: datetime | None = None) -> dict[str, int]:
    """``{"done", "share", "held"}`` of ``user`` on ``dataset`` in one query: labels given, the
    share they are asked for (``annotator_share``) and running leases on items they have not
    labelled yet."""
    now = now or timezone.now()
    items = AnnotationItem.objects.filter(dataset=OuterRef("pk")).order_by().values("dataset")
    members = Dataset.annotators.through.objects.filter(dataset=OuterRef("pk"))
    row = (
        Dataset.objects.filter(pk=dataset.pk)
        .annotate(
            n_items=_count(AnnotationItem.objects.filter(dataset=OuterRef("pk")), "dataset"),
            slots=Coalesce(Subquery(items.annotate(s=Sum("required_labels")).values("s"),
                                    output_field=IntegerField()), Value(0)),
            members=_count(members, "dataset"),
            done=_count(Label.objects.filter(annotator=user, item__dataset=OuterRef("pk")), "item__dataset"),
            held=_count(_held(user, OuterRef("pk"), now), "item__dataset"),
        )
        .values_list("n_items", "slots", "members", "done", "held")
        .first()
    )
    n_items, slots, members, done, held = row or (0, 0, 0, 0, 0)
    return {"done": done, "share": annotator_share(n_items=n_items, slots=slots, members=members), "held": held}


def progress_from(*, user, dataset: Dataset, done: int, share: int, held: int, now: datetime,
                  open_seen: int = 0, open_all_seen: bool = False) -> dict[str, int]:
    """``{"done", "total"}`` from numbers the caller already has: ``done + min(share − done,
    held + open items)``. ``open_seen``: open items the caller already knows of (say, the queue it
    just read); with ``open_all_seen`` they are all there are. The open items are counted in the
    database only when they matter and are not known."""
    if done >= share:
        return {"done": done, "total": done}
    still = share - done
    have = held + open_seen
    if have < still and not open_all_seen:
        have = held + open_item_count(user=user, dataset=dataset, now=now, limit=still - held)
    return {"done": done, "total": done + min(still, have)}


def _progress(*, user, dataset: Dataset, share: int, now: datetime) -> dict[str, int]:
    done = _done(user, dataset)
    if done >= share:
        return {"done": done, "total": done}
    held = _held(user, dataset, now).count()
    return progress_from(user=user, dataset=dataset, done=done, share=share, held=held, now=now)


def annotation_progress(*, user, dataset: Dataset, now: datetime | None = None) -> dict[str, int]:
    """``{"done", "total"}`` for ``user`` on ``dataset``: labels given, and labels given plus the
    items still waiting for them within their share (``done == total`` when nothing is left).
    One query, two when the open items have to be counted."""
    now = now or timezone.now()
    return progress_from(user=user, dataset=dataset, now=now, **annotator_standing(user=user, dataset=dataset, now=now))


def dataset_progress(*, dataset: Dataset) -> list[dict[str, Any]]:
    """Progress of every member of ``dataset`` and of anyone else who labelled it, by username."""
    now = timezone.now()
    share = _share(dataset)
    User = get_user_model()
    users = User.objects.filter(
        Q(pk__in=dataset.annotators.values("pk")) | Q(pk__in=Label.objects.filter(item__dataset=dataset).values("annotator"))
    ).order_by("username")
    return [{"annotator": u.username, **_progress(user=u, dataset=dataset, share=share, now=now)} for u in users]


def annotator_share_reached(*, user, dataset: Dataset) -> bool:
    """Whether ``user`` already labelled their share of ``dataset`` (one query)."""
    standing = annotator_standing(user=user, dataset=dataset)
    return standing["done"] >= standing["share"]


# --- the annotator's own items and labels ---------------------------------------------------------


def annotator_dataset_get(*, user, dataset_id: int) -> Dataset | None:
    """A dataset ``user`` labels (a member of ``Dataset.annotators``, staff or not), else None."""
    if not (user and user.is_authenticated):
        return None
    return Dataset.objects.filter(pk=dataset_id, annotators=user).first()


def annotator_item_get(*, user, item_id: int) -> tuple[AnnotationItem | None, bool]:
    """``(item with its dataset, whether user is a member of that dataset)`` in one query;
    ``(None, False)`` when there is no such item."""
    member = Dataset.annotators.through.objects.filter(dataset=OuterRef("dataset_id"), user=user.pk)
    item = (
        AnnotationItem.objects.filter(pk=item_id)
        .select_related("dataset")
        .annotate(is_member=Exists(member))
        .first()
    )
    return item, bool(item is not None and item.is_member)


def item_for_annotator(*, user, item_id: int) -> AnnotationItem | None:
    """The item if ``user`` labelled it or holds an assignment on it (any status), else None."""
    return (
        AnnotationItem.objects.filter(pk=item_id)
        .filter(Q(assignments__annotator=user) | Q(labels__annotator=user))
        .select_related("candidate__problem", "dataset")
        .distinct()
        .first()
    )


def own_label(*, user, item: AnnotationItem) -> Label | None:
    return Label.objects.filter(item=item, annotator=user).first()


def label_list(*, user, dataset: Dataset) -> QuerySet[Label]:
    """``user``'s own labels on ``dataset``, newest change first, with their history."""
    from django.db.models import Prefetch

    return (
        Label.objects.filter(annotator=user, item__dataset=dataset)
        .select_related("item__candidate__problem")
        .prefetch_related(Prefetch("history", queryset=LabelHistory.objects.order_by("id")))
        .order_by("-updated_at", "-id")
    )


# --- agreement ------------------------------------------------------------------------------------


def _pair_stats(per_item: dict[int, dict[str, Any]], a: str, b: str, kappa) -> dict[str, Any] | None:
    shared = [(v[a], v[b]) for v in per_item.values() if v.get(a) is not None and v.get(b) is not None]
    if not shared:
        return None
    xs, ys = [x for x, _ in shared], [y for _, y in shared]
    return {"a": a, "b": b, "n": len(shared), "agreement": observed_agreement(xs, ys), "kappa": kappa(xs, ys)}


def dataset_agreement(*, dataset: Dataset) -> dict[str, Any]:
    """Agreement among the annotators of ``dataset`` (JSON-safe; undefined kappas are None).

    ``binary``: Cohen's kappa per annotator pair on valid/invalid over the items both labelled,
    and Fleiss' kappa over the items with the most common number of labels (at least two).
    ``ratings``: per 0–5 rating, quadratic-weighted Cohen's kappa per pair over the items where
    both gave that rating. Observed agreement (exact match share) and counts come with each.
    """
    rows = list(
        Label.objects.filter(item__dataset=dataset)
        .order_by("item_id", "annotator__username")
        .values_list("item_id", "annotator__username", "valid", *RATINGS)
    )
    valid: dict[int, dict[str, bool]] = defaultdict(dict)
    ratings: dict[str, dict[int, dict[str, int]]] = {r: defaultdict(dict) for r in RATINGS}
    for item_id, username, is_valid, *values in rows:
        valid[item_id][username] = is_valid
        for name, value in zip(RATINGS, values):
            if value is not None:
                ratings[name][item_id][username] = value
    annotators = sorted({username for _, username, *_ in rows})
    pairs = list(combinations(annotators, 2))

    binary_pairs = [p for a, b in pairs if (p := _pair_stats(valid, a, b, cohen_kappa))]
    fleiss = None
    counts = [len(v) for v in valid.values() if len(v) >= 2]
    if counts:
        raters = max(set(counts), key=lambda c: (counts.count(c), c))
        table = [
            [sum(1 for x in v.values() if x), sum(1 for x in v.values() if not x)]
            for v in valid.values() if len(v) == raters
        ]
        fleiss = {"kappa": fleiss_kappa(table), "n_items": len(table), "raters": raters}

    def _weighted(xs, ys):
        return weighted_kappa(xs, ys, weights="quadratic", categories=range(6))

    return {
        "dataset": dataset.pk,
        "n_items": sum(1 for v in valid.values() if len(v) >= 2),
        "n_labelled_items": len(valid),
        "n_labels": len(rows),
        "annotators": annotators,
        "binary": {"method": "Cohen's kappa", "pairs": binary_pairs, "fleiss": fleiss},
        "ratings": {
            name: {
                "method": "quadratic-weighted kappa",
                "pairs": [p for a, b in pairs if (p := _pair_stats(ratings[name], a, b, _weighted))],
            }
            for name in RATINGS
        },
    }


# --- disagreements --------------------------------------------------------------------------------

DISAGREEMENT_KINDS = ("human_human", "human_model")


def _model_scores(candidate_ids: list[int], version_id: int | None, column: str = "paraqd") -> dict[int, float]:
    if version_id is None or not candidate_ids:
        return {}
    from paraphrases.models import Score

    return dict(
        Score.objects.filter(candidate_id__in=candidate_ids, model_version_id=version_id, **{f"{column}__isnull": False})
        .order_by("candidate_id", "id")
        .values_list("candidate_id", column)
    )


def disagreements(*, dataset: Dataset, kind: str) -> list[dict[str, Any]]:
    """``human_human``: items of ``dataset`` whose annotators split on valid/invalid (the
    adjudication queue; resolved ones keep their adjudicated gold). ``human_model``: gold-labelled
    candidates of ``dataset`` that the active ParaQD version, at its threshold, judges the other way.
    """
    if kind not in DISAGREEMENT_KINDS:
        raise ValueError(f"kind must be one of {', '.join(DISAGREEMENT_KINDS)}")
    judge = current_decision()
    version_id, threshold = judge.version_id, judge.threshold
    if kind == "human_human":
        candidate_ids = list(
            AnnotationItem.objects.filter(dataset=dataset)
            .filter(Exists(Label.objects.filter(item=OuterRef("pk"), valid=True)))
            .filter(Exists(Label.objects.filter(item=OuterRef("pk"), valid=False)))
            .order_by("id")
            .values_list("candidate_id", flat=True)
        )
    else:
        if version_id is None:
            return []
        golds = GoldLabel.objects.filter(candidate__problem__dataset=dataset)
        candidate_ids = list(
            disagreeing_gold(golds, version_id=version_id, threshold=threshold, column=judge.column).order_by("candidate_id").values_list("candidate_id", flat=True)
        )
    return _disagreement_rows(candidate_ids, version_id=version_id, threshold=threshold, column=judge.column)


def _disagreement_rows(
    candidate_ids: list[int], *, version_id: int | None, threshold: float, column: str = "paraqd"
) -> list[dict[str, Any]]:
    from paraphrases.models import Candidate

    candidates = Candidate.objects.filter(pk__in=candidate_ids).select_related("problem")
    by_id = {c.pk: c for c in candidates}
    items = dict(AnnotationItem.objects.filter(candidate_id__in=candidate_ids).values_list("candidate_id", "pk"))
    labels: dict[int, list[dict]] = defaultdict(list)
    for candidate_id, username, is_valid in (
        Label.objects.filter(item__candidate_id__in=candidate_ids)
        .order_by("annotator__username")
        .values_list("item__candidate_id", "annotator__username", "valid")
    ):
        labels[candidate_id].append({"annotator": username, "valid": is_valid})
    golds = {
        g.candidate_id: {"valid": g.valid, "source": g.source, "decided_by": g.decided_by.username if g.decided_by else None,
                         "note": g.note}
        for g in GoldLabel.objects.filter(candidate_id__in=candidate_ids).select_related("decided_by")
    }
    scores = _model_scores(candidate_ids, version_id, column)
    rows = []
    for candidate_id in candidate_ids:
        candidate = by_id.get(candidate_id)
        if candidate is None:
            continue
        score = scores.get(candidate_id)
        rows.append({
            "item": items.get(candidate_id),
            "candidate": candidate_id,
            "problem": candidate.problem.text,
            "paraphrase": candidate.text,
            "labels": labels.get(candidate_id, []),
            "gold": golds.get(candidate_id),
            "model_score": score,
            "model_valid": None if score is None else score > threshold,
        })
    return rows


def human_model_disagreement_count(*, since: datetime | None = None) -> int:
    """Gold labels (any dataset; set or changed since ``since`` when given) on which the active
    ParaQD version, at its threshold, disagrees. 0 without an active version."""
    judge = current_decision()
    if judge.version_id is None:
        return 0
    golds = GoldLabel.objects.all()
    if since is not None:
        golds = golds.filter(updated_at__gte=since)
    return disagreeing_gold(golds, version_id=judge.version_id, threshold=judge.threshold, column=judge.column).count()
