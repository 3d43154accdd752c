"""What the dataset endpoints share: the scoped dataset lookup and the schema of a ``detail`` answer."""
from __future__ import annotations

from django.http import Http404
from drf_spectacular.utils import inline_serializer
from rest_framework import serializers

from ..models import Dataset
from ..selectors import dataset_get

# The schema of a {"detail": "..."} answer (404, 409, 413), one component shared by every endpoint.
detail_schema = inline_serializer("Detail", {"detail": serializers.CharField()})


def dataset_or_404(request, dataset_id: int) -> Dataset:
    """The dataset, as the caller's role may see it (``selectors.dataset_get``), or 404."""
    dataset = dataset_get(user=request.user, dataset_id=dataset_id)
    if dataset is None:
        raise Http404("No such dataset.")
    return dataset
