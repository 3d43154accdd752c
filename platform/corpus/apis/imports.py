"""The import endpoint: a corpus file uploaded into a dataset, in the request or as a job."""
from __future__ import annotations

import os
import tempfile
from pathlib import Path

from django.conf import settings
from django.core.files.uploadhandler import FileUploadHandler
from django.db import transaction
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_field, inline_serializer
from rest_framework import serializers, status
from rest_framework.exceptions import APIException
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.response import Response
from rest_framework.views import APIView

from core.fields import async_requested
from core.permissions import IsStaff
from core.schema import ErrorSerializer
from core.serializers import BlankFormFieldsRefused
from jobs.models import Job

from .. import services
from ..exporters import safe_filename
from ..importers import PAIR_FORMATS, PROBLEM_FORMATS, ImportFormatError
from ..models import Problem
from .common import dataset_or_404, detail_schema


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
    stem, ext = os.path.splitext(safe_filename(os.path.basename(upload.name or ""), "upload"))
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
            413: detail_schema,
        },
    )
    def post(self, request, dataset_id: int):
        dataset = dataset_or_404(request, dataset_id)
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
