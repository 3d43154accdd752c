"""Datasets with items, annotators and model scores for the annotation tests (plain ORM rows)."""
from __future__ import annotations

from datetime import timedelta

from django.utils import timezone
from rest_framework.test import APIClient

from annotation.models import AnnotationItem, Assignment
from corpus.models import Dataset
from modelhub.models import ModelVersion
from paraphrases.models import Score

from ..corpus.factories import make_candidate, make_dataset, make_problems, make_user


def annotation_dataset(name: str = "loop", *, n_items: int = 4, annotators=(), k: int = 2,
                       queue_order: str = Dataset.QueueOrder.UNCERTAINTY, lease_seconds: int = 600,
                       fill_order: str = Dataset.FillOrder.COMPLETE):
    """A dataset with ``n_items`` items (one candidate per problem), k and the given members."""
    dataset = make_dataset(name, annotators=annotators)
    Dataset.objects.filter(pk=dataset.pk).update(labels_per_item=k, queue_order=queue_order, lease_seconds=lease_seconds,
                                                   fill_order=fill_order)
    dataset.refresh_from_db()
    items = []
    for problem in make_problems(dataset, n_items, prefix=name):
        candidate = make_candidate(problem, f"Paraphrase of: {problem.text}")
        items.append(AnnotationItem.objects.create(dataset=dataset, candidate=candidate, required_labels=k))
    return dataset, items


def annotators(*names: str, staff: bool = False):
    return [make_user(name, staff=staff) for name in names]


def active_paraqd(**fields) -> ModelVersion:
    return ModelVersion.objects.create(kind="paraqd", base_model="tiny",
                                       status=ModelVersion.Status.ACTIVE, **fields)


def score(item: AnnotationItem, version: ModelVersion | None, value: float) -> Score:
    return Score.objects.create(
        candidate=item.candidate, scorer_version=f"paraqd:v{version.pk}" if version else "paraqd:pretrained",
        model_version=version, paraqd=value, similarity=(value + 1) / 2,
    )


def expire_leases(*users) -> None:
    """Make the running leases of ``users`` (all, when none given) run out."""
    qs = Assignment.objects.filter(status=Assignment.Status.LEASED)
    if users:
        qs = qs.filter(annotator__in=users)
    qs.update(leased_until=timezone.now() - timedelta(seconds=1))


def client_for(user) -> APIClient:
    client = APIClient()
    client.force_login(user)
    return client


def assign(user, item: AnnotationItem) -> Assignment:
    """Lease ``item`` to ``user`` directly (as `next` would), whatever the queue order."""
    assignment, _ = Assignment.objects.update_or_create(
        item=item, annotator=user,
        defaults={"status": Assignment.Status.LEASED, "leased_until": timezone.now() + timedelta(minutes=10)},
    )
    return assignment
