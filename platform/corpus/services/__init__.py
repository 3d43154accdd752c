"""Writes to datasets and problems: ``datasets`` (create, change, delete a dataset) and ``imports``
(problem files and labelled pairs into a dataset, in the request or as a job).

Every service is importable from ``corpus.services``.
"""
from __future__ import annotations

from .datasets import dataset_create, dataset_delete, dataset_get_or_create, dataset_setup, dataset_update
from .imports import PAIR_GENERATOR_PREFIX, ImportRequest, dataset_import, dataset_import_start, import_run, pairs_import

__all__ = [
    "PAIR_GENERATOR_PREFIX",
    "ImportRequest",
    "dataset_create",
    "dataset_delete",
    "dataset_get_or_create",
    "dataset_import",
    "dataset_import_start",
    "dataset_setup",
    "dataset_update",
    "import_run",
    "pairs_import",
]
