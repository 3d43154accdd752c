"""What the annotation endpoints share: the ``?dataset=`` id, the list filters, the dataset
lookups (404 outside the caller's scope) and the query parameters both lists document."""
from __future__ import annotations

import re

from django.http import Http404
from drf_spectacular.utils import OpenApiParameter, inline_serializer
from rest_framework import serializers
from rest_framework.exceptions import ValidationError

from corpus.models import Dataset
from corpus.selectors import dataset_get

from .. import filters, selectors

DETAIL_SCHEMA = inline_serializer("AnnotationDetail", {"detail": serializers.CharField()})


def dataset_id_checked(value) -> int:
    """``?dataset=``: a dataset's id, a whole number (400 naming the parameter otherwise; an id
    of no dataset is the caller's 404)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    text = "" if value is None else str(value).strip()
    if not re.fullmatch(r"-?[0-9]{1,18}", text):
        refused = f' "{filters.shown(text)}" is not one;' if text else ""
        raise ValidationError({"dataset": [f"a dataset id is required;{refused} allowed: a whole number"]})
    return int(text)


def list_filters(query, *, parameters) -> filters.LabelFilters:
    """The list filters of ``query`` (``filters.label_filters_parse``); 400 naming the parameter."""
    try:
        return filters.label_filters_parse(query, parameters=parameters)
    except filters.FilterError as exc:
        raise ValidationError({exc.parameter: [exc.message]}) from None


def member_dataset_or_404(user, dataset_id) -> Dataset:
    dataset_id = dataset_id_checked(dataset_id)
    dataset = selectors.annotator_dataset_get(user=user, dataset_id=dataset_id)
    if dataset is None:
        raise Http404("No such dataset.")
    return dataset


def staff_dataset_or_404(user, dataset_id) -> Dataset:
    dataset_id = dataset_id_checked(dataset_id)
    dataset = dataset_get(user=user, dataset_id=dataset_id)
    if dataset is None:
        raise Http404("No such dataset.")
    return dataset


LABEL_PARAMETER = OpenApiParameter(
    "label", str, enum=list(filters.LABEL_VALUES), required=False,
    description="Only labels saying valid, or only invalid (empty: both). Any other value: 400.",
)
GENERATOR_PARAMETER = OpenApiParameter(
    "generator", {"type": "string", "pattern": f"^{filters.GENERATOR_NAME.pattern}$", "maxLength": 64}, required=False,
    description=f"Only candidates from this generator: {filters.GENERATOR_RULE}. Another form: 400.",
)
