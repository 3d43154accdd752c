"""Generation over REST (CONTRACT.md): ``POST datasets/{id}/generate/``, ``GET datasets/{id}/candidates/``,
``POST paraphrase/`` and ``GET generators/``; staff only (session or token)."""
from __future__ import annotations

from django.http import Http404
from django.urls import reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.pagination import PageNumberPagination
from rest_framework.response import Response
from rest_framework.views import APIView

from core.fields import StrictBooleanField, async_requested
from core.permissions import IsStaff
from core.schema import ErrorSerializer
from core.serializers import BlankFormFieldsRefused
from corpus.models import Dataset
from corpus.selectors import dataset_get

from .generation import DEFAULT_PER_PROBLEM, MAX_PER_PROBLEM, generation_start, generator_catalog
from .handout import paraphrase_start, paraphrase_variants
from .selectors import LABEL_FILTERS, candidate_pages, candidate_row, scores_by_id


def _dataset_or_404(request, dataset_id: int) -> Dataset:
    dataset = dataset_get(user=request.user, dataset_id=dataset_id)
    if dataset is None:
        raise Http404("No such dataset.")
    return dataset


NO_GENERATOR = "Name at least one generator, or leave the field out for the default set."


def _names(value):
    if value in (None, "", []):
        return None
    if isinstance(value, str):
        return [v for v in value.split(",") if v.strip()]
    return value


class GenerateInputSerializer(BlankFormFieldsRefused):
    generators = serializers.ListField(
        child=serializers.CharField(max_length=64), required=False, allow_empty=False,
        error_messages={"empty": NO_GENERATOR},
        help_text="Generator names (left out: the default set; an empty list is refused).")
    select = serializers.CharField(required=False, default="pammr", help_text="pammr, dips, tree, mwp, qf_pcf or none")
    per_problem = serializers.IntegerField(required=False, default=DEFAULT_PER_PROBLEM, min_value=1,
                                           max_value=MAX_PER_PROBLEM)
    queue = StrictBooleanField(required=False, default=True, help_text="Queue the selected for annotation.")


class DatasetGenerateApi(APIView):
    """Starts the ``generate`` job for the dataset → 202 ``{"job"}``."""

    permission_classes = [IsStaff]

    @extend_schema(request=GenerateInputSerializer,
                   responses={202: inline_serializer("GenerateStarted", {"job": serializers.IntegerField()}),
                              400: ErrorSerializer})
    def post(self, request, dataset_id: int):
        dataset = _dataset_or_404(request, dataset_id)
        data = GenerateInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        v = data.validated_data
        # A GenerationError (any core.errors.UserError) is answered 400 {"detail"} by the API's handler.
        job = generation_start(dataset=dataset, generators=_names(v.get("generators")), select=v["select"],
                               per_problem=v["per_problem"], queue=v["queue"], user=request.user)
        return Response({"job": job.pk}, status=status.HTTP_202_ACCEPTED)


class CandidateQuerySerializer(serializers.Serializer):
    generator = serializers.CharField(required=False, allow_blank=True, max_length=64)
    min_pqi = serializers.FloatField(required=False, min_value=0.0, max_value=1.0)
    selected = StrictBooleanField(required=False, default=None)  # absent or empty: either
    label = serializers.ChoiceField(choices=LABEL_FILTERS, required=False)


class CandidateListApi(APIView):
    """Paginated candidates with their problem, generator, prompt, scores (S, D, N, PQI, 1−BLEU,
    WPD, ParaQD), selected flag and gold label."""

    permission_classes = [IsStaff]

    @extend_schema(parameters=[
        OpenApiParameter("generator", str, required=False),
        OpenApiParameter("min_pqi", float, required=False),
        OpenApiParameter("selected", bool, required=False),
        OpenApiParameter("label", str, enum=list(LABEL_FILTERS), required=False),
        OpenApiParameter("page", int, required=False),
    ], responses=inline_serializer("CandidatePage", {
        "count": serializers.IntegerField(),
        "next": serializers.URLField(allow_null=True),
        "previous": serializers.URLField(allow_null=True),
        "results": serializers.ListField(child=serializers.DictField()),
    }))
    def get(self, request, dataset_id: int):
        dataset = _dataset_or_404(request, dataset_id)
        query = CandidateQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        q = query.validated_data
        qs = candidate_pages(dataset=dataset, generator=q.get("generator") or None, min_pqi=q.get("min_pqi"),
                            selected=q.get("selected"), label=q.get("label"))
        paginator = PageNumberPagination()
        page = paginator.paginate_queryset(qs, request, view=self)
        scores = scores_by_id([c.score_id for c in page])
        return paginator.get_paginated_response([candidate_row(c, scores.get(c.score_id)) for c in page])


class ParaphraseInputSerializer(BlankFormFieldsRefused):
    text = serializers.CharField(allow_blank=True, trim_whitespace=True,
                                 help_text="The word problem (its numbers and units must survive).")
    k = serializers.IntegerField(required=False, default=3, min_value=1, max_value=MAX_PER_PROBLEM)
    generators = serializers.ListField(child=serializers.CharField(max_length=64), required=False, allow_empty=False,
                                       error_messages={"empty": NO_GENERATOR})
    select = serializers.CharField(required=False, default="pammr")


class VariantOutputSerializer(serializers.Serializer):
    """One handed-out variant (``paraphrases.answers.Variant``)."""

    text = serializers.CharField()
    generator = serializers.CharField(help_text="registry name of the generator that wrote it")
    prompt = serializers.CharField(allow_blank=True)
    valid_probability = serializers.FloatField(allow_null=True,
                                               help_text="the deciding judge's calibrated P(valid); null with ParaQD")
    useful_probability = serializers.FloatField(allow_null=True)
    reasons = serializers.ListField(child=serializers.DictField(), help_text=(
        "the checks behind the probability, {check, passed, detail, ...}; an LLM rewrite's include "
        "'same answer' with both answers"))
    reworded = serializers.FloatField(allow_null=True, help_text="1 - BLEU against the problem (LLM rewrites)")
    S = serializers.FloatField()
    D = serializers.FloatField()
    N = serializers.FloatField()
    PQI = serializers.FloatField()
    bleu_div = serializers.FloatField()
    wpd = serializers.FloatField()
    paraqd = serializers.FloatField()
    numbers_kept = serializers.BooleanField()
    spans = serializers.ListField(child=serializers.DictField())
    checks = serializers.DictField()


class LLMStatusOutputSerializer(serializers.Serializer):
    state = serializers.ChoiceField(choices=["running", "done", "off"])
    message = serializers.CharField(allow_blank=True, help_text="why there are no (or fewer) reworded variants")
    verified = serializers.IntegerField()
    refused = serializers.IntegerField()
    first_seconds = serializers.FloatField(allow_null=True)
    seconds = serializers.FloatField(allow_null=True)


class HandoutAnswerOutputSerializer(serializers.Serializer):
    """``paraphrase``'s answer (``paraphrases.answers.HandoutAnswer``)."""

    variants = VariantOutputSerializer(many=True)
    problem = serializers.DictField()
    candidates = serializers.IntegerField()
    passed = serializers.IntegerField()
    rejected = serializers.IntegerField()
    rejected_reasons = serializers.DictField(child=serializers.IntegerField())
    message = serializers.CharField(allow_blank=True)
    judge = serializers.DictField(allow_null=True)
    refused = serializers.DictField(child=serializers.CharField())
    llm_asked = serializers.BooleanField()
    llm = LLMStatusOutputSerializer()
    scorer = serializers.CharField()
    select = serializers.CharField()
    seconds = serializers.FloatField()


class ParaphraseApi(APIView):
    """Variants of one pasted problem, best first (nothing is stored) → 200 ``{"variants": [...]}``;
    with ``?async=1`` → 202 ``{"job", "status", "url"}`` at once, the answer becoming the job's
    ``result`` (the page polls ``GET jobs/{id}/``). A refused text is a 400 either way."""

    permission_classes = [IsStaff]

    @extend_schema(request=ParaphraseInputSerializer, parameters=[
        OpenApiParameter("async", OpenApiTypes.BOOL, required=False,
                         description="Answer at once with a job to poll (its result is the same answer)."),
    ], responses={200: HandoutAnswerOutputSerializer,
        202: inline_serializer("ParaphraseJob", {"job": serializers.IntegerField(), "status": serializers.CharField(),
                                                 "url": serializers.CharField()}), 400: ErrorSerializer})
    def post(self, request):
        data = ParaphraseInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        v = data.validated_data
        if async_requested(request.query_params):
            job = paraphrase_start(text=v["text"], k=v["k"], generators=_names(v.get("generators")),
                                   select=v["select"], user=request.user)
            job.refresh_from_db(fields=["status"])
            return Response({"job": job.pk, "status": job.status,
                             "url": reverse("api-job-detail", args=[job.pk])}, status=status.HTTP_202_ACCEPTED)
        result = paraphrase_variants(text=v["text"], k=v["k"], generators=_names(v.get("generators")),
                                     select=v["select"])
        return Response(HandoutAnswerOutputSerializer(result).data)


class GeneratorListApi(APIView):
    """Every registered generator, with whether it can run here and, if not, why."""

    permission_classes = [IsStaff]

    @extend_schema(responses=inline_serializer("Generators", {"generators": serializers.ListField(
        child=serializers.DictField())}))
    def get(self, request):
        return Response({"generators": generator_catalog()})
