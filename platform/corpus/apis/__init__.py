"""Dataset endpoints of the REST API (CONTRACT.md): list/create, detail, problems, import, export.

Views validate their input, call one selector or service, and serialize. Every dataset lookup goes
through ``selectors.dataset_get``, scoped by the caller's role, so an annotator asking for a
dataset they do not annotate gets 404, exactly as for one that does not exist. Staff-only
endpoints check the role first (403 for annotators, whatever the id).

Modules by resource: ``datasets`` (list/create, detail, problems), ``imports`` (the upload) and
``exports`` (the streamed export, the export job and its download); ``common`` holds the scoped
dataset lookup. Every view and serializer is importable from ``corpus.apis``.
"""
from __future__ import annotations

from .datasets import (
    DatasetDetailApi,
    DatasetInputSerializer,
    DatasetListCreateApi,
    DatasetMemberSerializer,
    DatasetOutSerializer,
    DatasetPatchSerializer,
    DatasetStaffSerializer,
    ProblemListApi,
    ProblemSerializer,
)
from .exports import DatasetExportApi, DatasetExportJobApi, ExportJobDownloadApi, ExportQuerySerializer
from .imports import (
    DatasetImportApi,
    ImportInputSerializer,
    ImportRejected,
    MaxSizeUploadHandler,
    UploadField,
    UploadTooLarge,
)

__all__ = [
    "DatasetDetailApi",
    "DatasetExportApi",
    "DatasetExportJobApi",
    "DatasetImportApi",
    "DatasetInputSerializer",
    "DatasetListCreateApi",
    "DatasetMemberSerializer",
    "DatasetOutSerializer",
    "DatasetPatchSerializer",
    "DatasetStaffSerializer",
    "ExportJobDownloadApi",
    "ExportQuerySerializer",
    "ImportInputSerializer",
    "ImportRejected",
    "MaxSizeUploadHandler",
    "ProblemListApi",
    "ProblemSerializer",
    "UploadField",
    "UploadTooLarge",
]
