"""Dataset endpoints of the REST API (CONTRACT.md): list/create, detail, problems, import, export.

Views validate their input, call one selector or service, and serialize. Every dataset lookup goes
through ``selectors.dataset_get``, scoped by the caller's role, so an annotator asking for a
dataset they do not annotate gets 404, exactly as for one that does not exist. Staff-only
endpoints check the role first (403 for annotators, whatever the id).
"""
from __future__ import annotations

import os
import tempfile
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError as DjangoValidationError
from django.core.files.uploadhandler import FileUploadHandler
from django.db import transaction
from django.http import FileResponse, Http404, StreamingHttpResponse
from django.utils.http import content_disposition_header
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_field,
    inline_serializer,
)
from rest_framework import generics, serializers, status
from rest_framework.exceptions import APIException
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response
from rest_framework.validators import UniqueValidator
from rest_framework.views import APIView

from jobs.models import Job
from paralab.fields import async_requested
from paralab.permissions import IsStaff, IsStaffOrReadOnlyForMembers
from paralab.schema import ErrorSerializer
from paralab.serializers import BlankFormFieldsRefused

from . import dataset_services, exporters
from .importers import PAIR_FORMATS, PROBLEM_FORMATS
from .models import Dataset, Problem
from .selectors import dataset_get, dataset_list, problem_list

_detail = inline_serializer("Detail", {"detail": serializers.CharField()})


def _dataset_or_404(request, dataset_id: int) -> Dataset:
    dataset = dataset_get(user=request.user, dataset_id=dataset_id)
    if dataset is None:
        raise Http404("No such dataset.")
    return dataset


# --- serializers -------------------------------------------------------------------------------


class DatasetMemberSerializer(serializers.ModelSerializer):
    """What an annotator sees of a dataset they annotate."""

    problem_count = serializers.IntegerField(read_only=True)

    class Meta:
        model = Dataset
        fields = ["id", "name", "description", "problem_count"]
        read_only_fields = fields


class DatasetStaffSerializer(serializers.ModelSerializer):
    problem_count = serializers.IntegerField(read_only=True)
    annotators = serializers.SlugRelatedField(slug_field="username", many=True, read_only=True)
    created_by = serializers.SlugRelatedField(slug_field="username", read_only=True, allow_null=True)

    class Meta:
        model = Dataset
        fields = ["id", "name", "description", "guidelines", "annotators", "labels_per_item", "lease_seconds",
                  "queue_order", "fill_order", "problem_count", "created_by", "created_at"]
        read_only_fields = fields


class DatasetOutSerializer(serializers.Serializer):
    """The schema of a dataset in ``GET`` answers (documentation only; ``_dataset_out`` picks the
    serializer): annotators get the first four fields, staff every field."""

    id = serializers.IntegerField()
    name = serializers.CharField()
    description = serializers.CharField(allow_blank=True)
    problem_count = serializers.IntegerField()
    guidelines = serializers.CharField(required=False, allow_blank=True, help_text="staff only")
    annotators = serializers.ListField(child=serializers.CharField(), required=False, help_text="staff only")
    labels_per_item = serializers.IntegerField(required=False, help_text="staff only")
    lease_seconds = serializers.IntegerField(required=False, help_text="staff only")
    queue_order = serializers.ChoiceField(choices=Dataset.QueueOrder.choices, required=False, help_text="staff only")
    fill_order = serializers.ChoiceField(choices=Dataset.FillOrder.choices, required=False, help_text="staff only")
    created_by = serializers.CharField(required=False, allow_null=True, help_text="staff only")
    created_at = serializers.DateTimeField(required=False, help_text="staff only")

    class Meta:
        ref_name = "DatasetOut"


def _dataset_out(request, dataset: Dataset) -> dict:
    serializer = DatasetStaffSerializer if request.user.is_staff else DatasetMemberSerializer
    return serializer(dataset).data


class DatasetInputSerializer(BlankFormFieldsRefused):
    name = serializers.CharField(
        max_length=100, validators=[UniqueValidator(Dataset.objects.all(), message="A dataset with this name exists.")]
    )
    description = serializers.CharField(required=False, allow_blank=True, default="")
    guidelines = serializers.CharField(required=False, allow_blank=True, default="")
    annotators = serializers.SlugRelatedField(
        slug_field="username", many=True, required=False, default=list,
        queryset=get_user_model().objects.filter(is_active=True),
        help_text="Usernames of the annotators who may see and label this dataset.",
    )
    labels_per_item = serializers.IntegerField(
        required=False, min_value=1, max_value=50, help_text="k: distinct annotators per item (default 2)."
    )
    lease_seconds = serializers.IntegerField(
        required=False, min_value=10, max_value=7 * 24 * 3600,
        help_text="How long an item handed to an annotator stays reserved for them (default 600).",
    )
    queue_order = serializers.ChoiceField(
        choices=Dataset.QueueOrder.choices, required=False,
        help_text="uncertainty (ParaQD score nearest the threshold first), disagreement, or random.",
    )
    fill_order = serializers.ChoiceField(
        choices=Dataset.FillOrder.choices, required=False,
        help_text="complete (default: finish items already started, so agreement arrives early) or breadth "
        "(every item gets a first label before any gets its last).",
    )


class DatasetPatchSerializer(DatasetInputSerializer):
    def __init__(self, *args, dataset: Dataset | None = None, **kwargs):
        super().__init__(*args, partial=True, **kwargs)
        if dataset is not None:
            # Swap the uniqueness check for one that skips this dataset; keep the length check.
            name = self.fields["name"]
            name.validators = [v for v in name.validators if not isinstance(v, UniqueValidator)] + [
                UniqueValidator(Dataset.objects.exclude(pk=dataset.pk), message="A dataset with this name exists.")
            ]


class ProblemSerializer(serializers.ModelSerializer):
    # Read-only model fields lose allow_blank: declared, so the schema admits "" (no split).
    split = serializers.ChoiceField(choices=Problem.Split.choices, read_only=True, allow_blank=True)

    class Meta:
        model = Problem
        fields = [
            "id", "text", "source", "source_id", "split", "answer", "equation", "numbers", "metadata", "created_at",
        ]
        read_only_fields = fields


# --- datasets ----------------------------------------------------------------------------------


class DatasetListCreateApi(generics.ListAPIView):
    """``GET datasets/``: staff see all, annotators their own. ``POST datasets/``: staff create."""

    permission_classes = [IsStaffOrReadOnlyForMembers]

    def get_queryset(self):
        return dataset_list(user=self.request.user)

    def get_serializer_class(self):
        return DatasetStaffSerializer if self.request.user.is_staff else DatasetMemberSerializer

    @extend_schema(
        responses=DatasetOutSerializer(many=True),
        description="Staff: every dataset. Annotators: only theirs, with id, name, description, problem_count.",
    )
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)

    @extend_schema(request=DatasetInputSerializer, responses={201: DatasetStaffSerializer, 400: ErrorSerializer})
    def post(self, request):
        data = DatasetInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            dataset = dataset_services.dataset_setup(**data.validated_data, created_by=request.user)
        except DjangoValidationError as exc:  # the name was taken since validation, or is blank
            raise serializers.ValidationError(exc.message_dict if hasattr(exc, "error_dict") else exc.messages) from exc
        return Response(
            _dataset_out(request, dataset_get(user=request.user, dataset_id=dataset.pk)), status=status.HTTP_201_CREATED
        )


class DatasetDetailApi(APIView):
    """``GET`` for staff and the dataset's annotators (404 for anyone else); PATCH/DELETE staff."""

    permission_classes = [IsStaffOrReadOnlyForMembers]

    @extend_schema(responses={200: DatasetOutSerializer, 404: _detail})
    def get(self, request, dataset_id: int):
        return Response(_dataset_out(request, _dataset_or_404(request, dataset_id)))

    @extend_schema(request=DatasetInputSerializer(partial=True), responses={200: DatasetStaffSerializer, 400: ErrorSerializer})
    def patch(self, request, dataset_id: int):
        dataset = _dataset_or_404(request, dataset_id)
        data = DatasetPatchSerializer(data=request.data, dataset=dataset)
        data.is_valid(raise_exception=True)
        dataset_services.dataset_update(dataset=dataset, **data.validated_data)
        return Response(_dataset_out(request, dataset_get(user=request.user, dataset_id=dataset.pk)))

    @extend_schema(responses={204: None})
    def delete(self, request, dataset_id: int):
        dataset_services.dataset_delete(dataset=_dataset_or_404(request, dataset_id))
        return Response(status=status.HTTP_204_NO_CONTENT)


class ProblemListApi(generics.ListAPIView):
    """``GET datasets/{id}/problems/``: the problems, paginated (staff or the dataset's annotators)."""

    serializer_class = ProblemSerializer

    def get_queryset(self):
        return problem_list(dataset=_dataset_or_404(self.request, self.kwargs["dataset_id"]))


# --- import ------------------------------------------------------------------------------------


class UploadTooLarge(APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_code = "upload_too_large"


def _too_large(limit: int) -> UploadTooLarge:
    size = f"{limit} bytes" + (f" ({limit / 2**20:g} MiB)" if limit >= 2**20 else "")
    return UploadTooLarge(f"file: the upload is larger than the limit of {size}; split it into smaller files.")


class MaxSizeUploadHandler(FileUploadHandler):
    """Stops reading an uploaded file as soon as it passes the limit, before it fills the disk."""

    def __init__(self, request=None, max_bytes: int = 0):
        super().__init__(request)
        self.max_bytes = max_bytes

    def receive_data_chunk(self, raw_data, start):
        if start + len(raw_data) > self.max_bytes:
            raise _too_large(self.max_bytes)
        return raw_data

    def file_complete(self, file_size):
        return None


@extend_schema_field(OpenApiTypes.BINARY)
class UploadField(serializers.FileField):
    """A file part of a multipart body (drf-spectacular would document a FileField as a URI)."""


class ImportInputSerializer(BlankFormFieldsRefused):
    file = UploadField(help_text="The corpus file (at most PARALAB_MAX_UPLOAD_BYTES).")
    format = serializers.ChoiceField(
        choices=list(dict.fromkeys(PROBLEM_FORMATS + PAIR_FORMATS)), required=False,
        help_text="Default: auto for problems, paraqd for pairs.",
    )
    split = serializers.ChoiceField(choices=[("", "none"), *Problem.Split.choices], required=False, default="")
    kind = serializers.ChoiceField(choices=["problems", "pairs"], default="problems")

    def validate(self, attrs):
        allowed = PROBLEM_FORMATS if attrs["kind"] == "problems" else PAIR_FORMATS
        attrs.setdefault("format", allowed[0])
        if attrs["format"] not in allowed:
            raise serializers.ValidationError(
                {"format": f"{attrs['kind']} can be imported from {', '.join(allowed)}, not {attrs['format']!r}."}
            )
        return attrs


def _save_upload(upload) -> Path:
    """Copy an upload to MEDIA_ROOT/uploads, keeping its extension (format detection reads it)."""
    folder = Path(settings.MEDIA_ROOT) / "uploads"
    folder.mkdir(parents=True, exist_ok=True)
    stem, ext = os.path.splitext(exporters.safe_filename(os.path.basename(upload.name or ""), "upload"))
    fd, tmp = tempfile.mkstemp(prefix=f"{stem[:40]}-", suffix=ext[:16], dir=folder)
    with os.fdopen(fd, "wb") as out:
        for chunk in upload.chunks():
            out.write(chunk)
    return Path(tmp)


class DatasetImportApi(APIView):
    """``POST datasets/{id}/import/`` (staff): a corpus file into the dataset, all or nothing.

    Files up to ``PARALAB_IMPORT_SYNC_MAX_BYTES`` are imported in the request (201 with counts,
    or 400 naming the line and field at fault); bigger ones, or any with ``?async=1``, become a
    job (202 ``{"job", "status"}``; poll ``GET jobs/{id}/``).
    """

    permission_classes = [IsStaff]
    parser_classes = [MultiPartParser, FormParser]

    def initialize_request(self, request, *args, **kwargs):
        # Before anything reads the body (the CSRF check may), so the limit applies while uploading.
        request.upload_handlers.insert(0, MaxSizeUploadHandler(request, settings.PARALAB_MAX_UPLOAD_BYTES))
        return super().initialize_request(request, *args, **kwargs)

    @extend_schema(
        request={"multipart/form-data": ImportInputSerializer},
        parameters=[
            OpenApiParameter("async", OpenApiTypes.BOOL, description="Always run as a job, whatever the size."),
        ],
        responses={
            201: inline_serializer(
                "ImportResult",
                {"dataset": serializers.CharField(), "created": serializers.IntegerField(),
                 "duplicates": serializers.IntegerField()},
            ),
            202: inline_serializer("ImportJob", {"job": serializers.IntegerField(), "status": serializers.CharField()}),
            400: ErrorSerializer,
            413: _detail,
        },
    )
    def post(self, request, dataset_id: int):
        dataset = _dataset_or_404(request, dataset_id)
        data = ImportInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        upload = data.validated_data["file"]
        limit = settings.PARALAB_MAX_UPLOAD_BYTES
        if upload.size > limit:
            raise _too_large(limit)
        asked = async_requested(request.query_params)
        run_async = asked or upload.size > settings.PARALAB_IMPORT_SYNC_MAX_BYTES
        path = _save_upload(upload)
        params = {
            "dataset": dataset, "path": path, "fmt": data.validated_data["format"],
            "split": data.validated_data["split"], "kind": data.validated_data["kind"],
            "user": request.user, "upload_name": upload.name,
        }
        if run_async:
            job = _import_start(**params)
            return Response({"job": job.pk, "status": job.status}, status=status.HTTP_202_ACCEPTED)
        try:
            result = _import_now(**params)
        finally:
            path.unlink(missing_ok=True)
        return Response(result, status=status.HTTP_201_CREATED)


class ImportRejected(APIException):
    status_code = status.HTTP_400_BAD_REQUEST
    default_code = "import_rejected"


def _import_now(*, dataset, path: Path, fmt: str, split: str, kind: str, user, upload_name: str) -> dict:
    """Import in the request; a bad file becomes a 400 naming the uploaded file, line and field."""
    from . import services
    from .importers import ImportFormatError

    try:
        if kind == "pairs":
            result = services.pairs_import(dataset=dataset, path=path, fmt=fmt, split=split)
            result["created"] = result["candidates_created"]
        else:
            result = services.dataset_import(dataset=dataset, path=path, fmt=fmt, split=split)
    except ImportFormatError as exc:
        raise ImportRejected(str(exc).replace(path.name, upload_name)) from exc
    return result


def _import_start(*, dataset, path: Path, fmt: str, split: str, kind: str, user, upload_name: str) -> Job:
    """Queue the import as a job that deletes the uploaded file when it ends."""
    from . import services

    job_kind = Job.Kind.IMPORT_PAIRS if kind == "pairs" else Job.Kind.IMPORT_PROBLEMS
    try:
        # The task is sent when this block commits; in the embedded default it has run by then.
        with transaction.atomic():
            job = services.dataset_import_start(
                dataset=dataset, path=path, fmt=fmt, split=split, user=user, kind=job_kind, uploaded=True
            )
    except Exception:
        path.unlink(missing_ok=True)
        raise
    job.refresh_from_db()
    return job


# --- export ------------------------------------------------------------------------------------


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
            404: _detail,
        },
    )
    def get(self, request, dataset_id: int):
        dataset = _dataset_or_404(request, dataset_id)
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
                   400: ErrorSerializer, 404: _detail},
    )
    def post(self, request, dataset_id: int):
        dataset = _dataset_or_404(request, dataset_id)
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

    @extend_schema(responses={(200, "application/octet-stream"): OpenApiTypes.BINARY, 404: _detail, 409: _detail})
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
