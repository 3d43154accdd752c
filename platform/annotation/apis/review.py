"""Staff endpoints (403 to annotators): a dataset's agreement and progress, the disagreements
list, and adjudication."""
from __future__ import annotations

from django.http import Http404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response
from rest_framework.views import APIView

from core.fields import StrictBooleanField
from core.permissions import IsStaff
from core.schema import ErrorSerializer
from core.serializers import BlankFormFieldsRefused

from .. import filters, review_selectors, selectors, services
from ..models import AnnotationItem
from .common import (
    DETAIL_SCHEMA,
    GENERATOR_PARAMETER,
    LABEL_PARAMETER,
    dataset_id_checked,
    list_filters,
    staff_dataset_or_404,
)


def _item_or_404(item_id: int) -> AnnotationItem:
    item = AnnotationItem.objects.select_related("dataset").filter(pk=item_id).first()
    if item is None:
        raise Http404("No such item.")
    return item


class AdjudicateInputSerializer(BlankFormFieldsRefused):
    valid = StrictBooleanField()  # required in form data too
    note = serializers.CharField(required=False, allow_blank=True, default="", max_length=5000)


class DatasetAgreementApi(APIView):
    """``GET datasets/{id}/agreement/`` (staff): Cohen's kappa per annotator pair, Fleiss' kappa,
    quadratic-weighted kappa per 0–5 rating, with counts."""

    permission_classes = [IsStaff]

    @extend_schema(responses={200: OpenApiTypes.OBJECT, 404: DETAIL_SCHEMA})
    def get(self, request, dataset_id: int):
        return Response(selectors.dataset_agreement(dataset=staff_dataset_or_404(request.user, dataset_id)))


class DatasetProgressApi(APIView):
    """``GET annotation/datasets/{id}/progress/`` (staff): ``[{"annotator", "done", "total"}]``."""

    permission_classes = [IsStaff]

    @extend_schema(responses={200: inline_serializer("AnnotatorProgress", {
        "annotator": serializers.CharField(), "done": serializers.IntegerField(), "total": serializers.IntegerField(),
    }, many=True), 404: DETAIL_SCHEMA})
    def get(self, request, dataset_id: int):
        return Response(selectors.dataset_progress(dataset=staff_dataset_or_404(request.user, dataset_id)))


class DisagreementQuerySerializer(serializers.Serializer):
    kind = serializers.ChoiceField(choices=selectors.DISAGREEMENT_KINDS, default="human_human")


class DisagreementListApi(APIView):
    """``GET disagreements/?dataset={id}&kind=human_human|human_model`` (staff), narrowed like the
    adjudication screen by ``annotator`` (a user id: items they labelled), ``label`` (a label saying
    valid or invalid; that annotator's with ``annotator``) and ``generator``. A value a parameter
    does not take, or an annotator who did not label the dataset, is a 400 naming the parameter."""

    permission_classes = [IsStaff]

    @extend_schema(
        parameters=[
            OpenApiParameter("dataset", OpenApiTypes.INT, required=True),
            OpenApiParameter("kind", str, enum=list(selectors.DISAGREEMENT_KINDS), default="human_human"),
            OpenApiParameter("annotator", OpenApiTypes.INT, required=False,
                             description="Items this user (id) labelled; someone who did not label the dataset: 400."),
            LABEL_PARAMETER, GENERATOR_PARAMETER,
        ],
        responses={200: OpenApiTypes.OBJECT, 400: ErrorSerializer, 404: DETAIL_SCHEMA},
    )
    def get(self, request):
        dataset_id = dataset_id_checked(request.query_params.get("dataset"))
        query = DisagreementQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        chosen = list_filters(request.query_params, parameters=("label", "annotator", "generator"))
        dataset = staff_dataset_or_404(request.user, dataset_id)
        if chosen.annotator is not None:
            try:
                filters.annotator_check(chosen, review_selectors.dataset_labellers(dataset=dataset))
            except filters.FilterError as exc:
                raise ValidationError({exc.parameter: [exc.message]}) from None
        kind = query.validated_data["kind"]
        rows = review_selectors.disagreement_list(dataset=dataset, kind=kind, filters=chosen)
        return Response({"dataset": dataset.pk, "kind": kind, "count": len(rows), "results": rows})


class ItemAdjudicateApi(APIView):
    """``POST annotation/items/{item}/adjudicate/ {"valid", "note"?}`` (staff) → ``{"gold"}``."""

    permission_classes = [IsStaff]

    @extend_schema(request=AdjudicateInputSerializer, responses={200: OpenApiTypes.OBJECT, 400: ErrorSerializer, 404: DETAIL_SCHEMA})
    def post(self, request, item_id: int):
        item = _item_or_404(item_id)
        data = AdjudicateInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        gold = services.item_adjudicate(user=request.user, item=item, **data.validated_data)
        return Response({"gold": {
            "item": item.pk, "candidate": gold.candidate_id, "valid": gold.valid, "source": gold.source,
            "decided_by": request.user.username, "note": gold.note, "updated_at": gold.updated_at,
        }})
