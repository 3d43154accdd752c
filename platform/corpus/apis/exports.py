"""Export endpoints: a dataset's export streamed, or written by a job and downloaded when done."""
from __future__ import annotations

from django.db import transaction
from django.http import FileResponse, Http404, StreamingHttpResponse
from django.utils.http import content_disposition_header
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response
from rest_framework.views import APIView

from core.permissions import IsStaff
from core.schema import ErrorSerializer
from core.serializers import BlankFormFieldsRefused
from jobs.models import Job

from .. import exporters
from .common import dataset_or_404, detail_schema


class ExportQuerySerializer(BlankFormFieldsRefused):
    what = serializers.ChoiceField(choices=exporters.WHATS)
    format = serializers.ChoiceField(choices=exporters.FORMATS, default="jsonl")


class DatasetExportApi(APIView):
    """``GET datasets/{id}/export/?what=problems|paraphrases|labels&format=jsonl|csv`` (staff).

    Streams the file: rows are read in chunks, never all at once (see ``corpus.exporters``).
    """

    permission_classes = [IsStaff]
    renderer_classes = [JSONRenderer]

    @extend_schema(
        parameters=[
            OpenApiParameter("what", str, enum=list(exporters.WHATS), required=True),
            OpenApiParameter("format", str, enum=list(exporters.FORMATS), default="jsonl"),
        ],
        responses={
            (200, "application/x-ndjson"): OpenApiResponse(OpenApiTypes.STR, description="JSON lines, one row each"),
            (200, "text/csv"): OpenApiResponse(OpenApiTypes.STR, description="CSV with a header row"),
            400: ErrorSerializer,
            404: detail_schema,
        },
    )
    def get(self, request, dataset_id: int):
        dataset = dataset_or_404(request, dataset_id)
        query = ExportQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        what, fmt = query.validated_data["what"], query.validated_data["format"]
        response = StreamingHttpResponse(
            exporters.export_stream(dataset=dataset, what=what, fmt=fmt), content_type=exporters.CONTENT_TYPES[fmt]
        )
        filename = exporters.export_filename(dataset=dataset, what=what, fmt=fmt)
        response["Content-Disposition"] = content_disposition_header(True, filename)
        response["Cache-Control"] = "no-store"
        return response


class DatasetExportJobApi(APIView):
    """``POST datasets/{id}/exports/`` (staff): run a big export as a job → 202 ``{"job", "status"}``.

    The finished file is fetched from ``GET jobs/{job}/download/``.
    """

    permission_classes = [IsStaff]

    @extend_schema(
        request=ExportQuerySerializer,
        responses={202: inline_serializer("ExportJobStarted", {"job": serializers.IntegerField(), "status": serializers.CharField()}),
                   400: ErrorSerializer, 404: detail_schema},
    )
    def post(self, request, dataset_id: int):
        dataset = dataset_or_404(request, dataset_id)
        data = ExportQuerySerializer(data=request.data)
        data.is_valid(raise_exception=True)
        with transaction.atomic():
            job = exporters.dataset_export_start(
                dataset=dataset, what=data.validated_data["what"], fmt=data.validated_data["format"], user=request.user
            )
        job.refresh_from_db()
        return Response({"job": job.pk, "status": job.status}, status=status.HTTP_202_ACCEPTED)


class ExportJobDownloadApi(APIView):
    """``GET jobs/{id}/download/`` (staff): the file a succeeded export job wrote."""

    permission_classes = [IsStaff]

    @extend_schema(responses={(200, "application/octet-stream"): OpenApiTypes.BINARY, 404: detail_schema, 409: detail_schema})
    def get(self, request, job_id: int):
        job = exporters.export_job_get(job_id=job_id)
        if job is None:
            raise Http404("no export job with that id")
        if job.status != Job.Status.SUCCEEDED:
            return Response({"detail": f"the export job is {job.status}; nothing to download yet"}, status=status.HTTP_409_CONFLICT)
        path = exporters.export_job_file(job=job)
        if path is None:
            raise Http404("the export file is gone")
        response = FileResponse(open(path, "rb"), as_attachment=True, filename=path.name.replace(f"-job{job.pk}", ""),
                                content_type=exporters.CONTENT_TYPES[job.params["format"]])
        response["Cache-Control"] = "no-store"
        return response
