"""The annotator's endpoints: the next item, one item, label, skip, undo, and their own labels.

Annotators work on the datasets they are members of (``Dataset.annotators``; staff too, when
they are members). A dataset outside that scope is not found (404), like a missing one. An item
they hold no assignment on cannot be labelled or skipped (403) and is not shown (404). They never
see a model score or another annotator's label.
"""
from __future__ import annotations

import logging

from django.http import Http404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import generics, serializers, status
from rest_framework.exceptions import PermissionDenied, ValidationError
from rest_framework.response import Response
from rest_framework.views import APIView

from core.fields import StrictBooleanField
from core.schema import CHECKS_SCHEMA, ErrorSerializer
from core.serializers import BlankFormFieldsRefused
from corpus.text import pair_checks
from modelhub.kinds.judge.service import judge_explanation

from .. import filters, review_selectors, selectors, services
from ..models import AnnotationItem, Label
from .common import DETAIL_SCHEMA, GENERATOR_PARAMETER, LABEL_PARAMETER, list_filters, member_dataset_or_404

logger = logging.getLogger("paralab.annotation")


def _page_checked(query) -> None:
    """``?page=`` must be a page number (or "last"); one past the end is DRF's 404."""
    try:
        filters.page_number(query, allow_last=True)
    except filters.FilterError as exc:
        raise ValidationError({exc.parameter: [exc.message]}) from None


def label_out(label: Label | None) -> dict | None:
    return None if label is None else services.label_data(label)


def _member_item_or_403(user, item_id: int) -> AnnotationItem:
    """The item (404 when missing), if ``user`` is a member of its dataset (else 403): one query."""
    item, member = selectors.annotator_item_get(user=user, item_id=item_id)
    if item is None:
        raise Http404("No such item.")
    if not member:
        raise PermissionDenied("this item is not assigned to you")
    return item


def item_out(*, user, item: AnnotationItem, label: Label | None = None, with_label: bool = True,
             progress: dict | None = None) -> dict:
    """ITEM: the pair, the caller's own label (or null) and their progress on the dataset
    (``progress`` when the caller already has it)."""
    candidate = item.candidate
    problem = candidate.problem
    if with_label and label is None:
        label = selectors.own_label(user=user, item=item)
    spans = services.item_spans(item=item)
    return {
        "item": item.pk,
        "dataset": item.dataset_id,
        "problem": {"id": problem.pk, "text": problem.text, "spans": spans["problem"],
                    "answer": problem.answer, "equation": problem.equation},
        "paraphrase": {"id": candidate.pk, "text": candidate.text, "spans": spans["paraphrase"]},
        "checks": pair_checks(problem.text, candidate.text, spans),
        "label": label_out(label) if with_label else None,
        "progress": progress or selectors.annotation_progress(user=user, dataset=item.dataset),
        **({"judge": _judge_out(candidate)} if getattr(user, "is_staff", False) else {}),
    }


def _judge_out(candidate) -> dict | None:
    """Staff only: the numeracy-aware judge's decision on the pair and the checks behind it
    (``modelhub.kinds.judge.service.judge_explanation``); None when no judge version exists."""
    try:
        return judge_explanation(candidate=candidate)
    except Exception:  # noqa: BLE001 - an explanation must never stop labelling
        logger.exception("judge explanation of candidate %s failed", candidate.pk)
        return None


# --- serializers ----------------------------------------------------------------------------------


def _rating(name: str) -> serializers.IntegerField:
    return serializers.IntegerField(min_value=0, max_value=5, required=False, allow_null=True,
                                    help_text=f"{name}, 0–5 (paper 000 section 5.3)")


class LabelInputSerializer(BlankFormFieldsRefused):
    valid = StrictBooleanField()  # required in form data too
    solvability = _rating("solvability")
    diversity = _rating("diversity")
    fluency = _rating("fluency")
    comment = serializers.CharField(required=False, allow_blank=True, default="", max_length=5000)
    time_spent_ms = serializers.IntegerField(required=False, allow_null=True, min_value=0, max_value=86_400_000)


class UndoInputSerializer(BlankFormFieldsRefused):
    dataset = serializers.IntegerField()


_spans_schema = serializers.ListField(child=serializers.DictField())
_text_schema = inline_serializer("ItemText", {"id": serializers.IntegerField(), "text": serializers.CharField(),
                                               "spans": _spans_schema})
_problem_schema = inline_serializer("ItemProblem", {
    "id": serializers.IntegerField(), "text": serializers.CharField(), "spans": _spans_schema,
    "answer": serializers.CharField(allow_blank=True, help_text="the imported answer ('' when none)"),
    "equation": serializers.CharField(allow_blank=True, help_text="the imported equation ('' when none)"),
})
_progress_schema = inline_serializer("Progress", {"done": serializers.IntegerField(), "total": serializers.IntegerField()})
_label_fields = {
    "valid": serializers.BooleanField(), "solvability": serializers.IntegerField(allow_null=True),
    "diversity": serializers.IntegerField(allow_null=True), "fluency": serializers.IntegerField(allow_null=True),
    "comment": serializers.CharField(allow_blank=True),
}
_label_schema = inline_serializer("LabelValues", _label_fields)
_item_schema = inline_serializer("AnnotationItemOut", {
    "item": serializers.IntegerField(), "dataset": serializers.IntegerField(), "problem": _problem_schema,
    "paraphrase": _text_schema, "progress": _progress_schema, "checks": CHECKS_SCHEMA,
    "label": inline_serializer("LabelValues", _label_fields, allow_null=True, help_text="the caller's label, if any"),
    "judge": inline_serializer("JudgeExplanation", {
        "version": serializers.IntegerField(), "kind": serializers.CharField(), "deciding": serializers.BooleanField(),
        "probability": serializers.FloatField(allow_null=True), "threshold": serializers.FloatField(),
        "valid": serializers.BooleanField(allow_null=True), "checks": serializers.ListField(child=serializers.DictField()),
    }, required=False, allow_null=True, help_text="staff only: the numeracy-aware judge's decision and its checks"),
})


class HistorySerializer(serializers.Serializer):
    action = serializers.CharField()
    data = serializers.JSONField()
    at = serializers.DateTimeField()


class OwnLabelSerializer(serializers.ModelSerializer):
    problem = serializers.CharField(source="item.candidate.problem.text", read_only=True)
    paraphrase = serializers.CharField(source="item.candidate.text", read_only=True)
    history = HistorySerializer(many=True, read_only=True)

    class Meta:
        model = Label
        fields = ["id", "item", "problem", "paraphrase", "valid", "solvability", "diversity", "fluency", "comment",
                  "created_at", "updated_at", "history"]
        read_only_fields = fields


# --- annotator endpoints --------------------------------------------------------------------------


class AnnotationNextApi(APIView):
    """``GET annotation/next/?dataset={id}``: the caller's next item, leased to them; 204 when none is left."""

    @extend_schema(
        parameters=[OpenApiParameter("dataset", OpenApiTypes.INT, required=True)],
        responses={200: _item_schema, 204: None, 404: DETAIL_SCHEMA},
    )
    def get(self, request):
        dataset = member_dataset_or_404(request.user, request.query_params.get("dataset"))
        item, progress = services.annotation_next_with_progress(user=request.user, dataset=dataset)
        if item is None:
            return Response(status=status.HTTP_204_NO_CONTENT)
        # A leased item carries no label of the caller (labelled items are never handed out).
        return Response(item_out(user=request.user, item=item, with_label=False, progress=progress))


class AnnotationItemApi(APIView):
    """``GET annotation/items/{item}/``: one of the caller's items with their own label (to edit it)."""

    @extend_schema(responses={200: _item_schema, 404: DETAIL_SCHEMA})
    def get(self, request, item_id: int):
        item = selectors.item_for_annotator(user=request.user, item_id=item_id)
        if item is None or selectors.annotator_dataset_get(user=request.user, dataset_id=item.dataset_id) is None:
            raise Http404("No such item.")
        return Response(item_out(user=request.user, item=item))


IDEMPOTENCY_KEY = OpenApiParameter(
    "Idempotency-Key", OpenApiTypes.STR, location=OpenApiParameter.HEADER, required=False,
    description="A key the client makes up per label action (a UUID) and sends again when it retries: "
    "a request the server already applied is not applied twice (at most 64 characters).",
)


def _idempotency_key(request) -> str:
    key = (request.headers.get("Idempotency-Key") or "").strip()
    if len(key) > 64:
        raise ValidationError({"detail": "Idempotency-Key: at most 64 characters"})
    return key


class LabelSubmitApi(APIView):
    """``POST annotation/items/{item}/label/``: 201 for a first label, 200 when the author changes
    it (or sends it again: nothing counts twice); 403 when the item is not assigned to the caller.
    A retry carrying the ``Idempotency-Key`` of a request already applied changes nothing."""

    @extend_schema(
        parameters=[IDEMPOTENCY_KEY],
        request=LabelInputSerializer,
        responses={
            201: inline_serializer("LabelResult", {"label": _label_schema, "progress": _progress_schema}),
            200: inline_serializer("LabelResultChanged", {"label": _label_schema, "progress": _progress_schema}),
            400: ErrorSerializer, 403: DETAIL_SCHEMA, 404: DETAIL_SCHEMA,
        },
    )
    def post(self, request, item_id: int):
        item = _member_item_or_403(request.user, item_id)
        data = LabelInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            label, created = services.label_submit(user=request.user, item=item, **data.validated_data,
                                                   request_id=_idempotency_key(request))
        except services.NotAssigned as exc:
            raise PermissionDenied(str(exc)) from exc
        except services.AnnotationError as exc:
            raise ValidationError({"detail": str(exc)}) from exc
        return Response(
            {"label": label_out(label), "progress": selectors.annotation_progress(user=request.user, dataset=item.dataset)},
            status=status.HTTP_201_CREATED if created else status.HTTP_200_OK,
        )


class ItemSkipApi(APIView):
    """``POST annotation/items/{item}/skip/``: pass on an item (it is not offered to the caller again)."""

    @extend_schema(request=None, responses={200: inline_serializer("SkipResult", {"progress": _progress_schema}),
                                            400: ErrorSerializer, 403: DETAIL_SCHEMA, 404: DETAIL_SCHEMA})
    def post(self, request, item_id: int):
        item = _member_item_or_403(request.user, item_id)
        try:
            services.item_skip(user=request.user, item=item)
        except services.NotAssigned as exc:
            raise PermissionDenied(str(exc)) from exc
        except services.AnnotationError as exc:
            raise ValidationError({"detail": str(exc)}) from exc
        return Response({"progress": selectors.annotation_progress(user=request.user, dataset=item.dataset)})


class LabelUndoApi(APIView):
    """``POST annotation/undo/ {"dataset"}``: remove the caller's latest label there → 200 ITEM
    (the item, leased to them again, label null) or 204 when there is nothing to undo."""

    @extend_schema(parameters=[IDEMPOTENCY_KEY], request=UndoInputSerializer,
                   responses={200: _item_schema, 204: None, 400: ErrorSerializer, 404: DETAIL_SCHEMA})
    def post(self, request):
        data = UndoInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        dataset = member_dataset_or_404(request.user, data.validated_data["dataset"])
        item = services.label_undo(user=request.user, dataset=dataset, request_id=_idempotency_key(request))
        if item is None:
            return Response(status=status.HTTP_204_NO_CONTENT)
        return Response(item_out(user=request.user, item=item, with_label=False))


_PAGE_PARAMETER = OpenApiParameter(
    "page", str, required=False, pattern=r"^([1-9][0-9]{0,17}|last)$",
    description='A page number from 1, or "last"; anything else is a 400, a page past the end a 404.',
)


class OwnLabelListApi(generics.ListAPIView):
    """``GET annotation/labels/?dataset={id}&label=valid|invalid&generator=NAME``: the caller's own
    labels, newest change first, each with its history; ``label`` and ``generator`` narrow it as on
    the "My labels" page (400 for a value they do not take)."""

    serializer_class = OwnLabelSerializer

    @extend_schema(parameters=[OpenApiParameter("dataset", OpenApiTypes.INT, required=True),
                               LABEL_PARAMETER, GENERATOR_PARAMETER, _PAGE_PARAMETER])
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)

    def get_queryset(self):
        query = self.request.query_params
        dataset = member_dataset_or_404(self.request.user, query.get("dataset"))
        chosen = list_filters(query, parameters=("label", "generator"))
        _page_checked(query)
        return review_selectors.own_labels(user=self.request.user, dataset=dataset, filters=chosen)

