"""What the import commands share: the dataset name check, and a bad file written nowhere."""
from __future__ import annotations

from typing import Any, Callable

from django.core.management.base import CommandError
from django.db import transaction

from corpus.importers import ImportFormatError
from corpus.services import dataset_get_or_create


def import_into(*, dataset_name: str, importer: Callable[..., dict[str, Any]], **kwargs: Any) -> dict[str, Any]:
    """Run ``importer(dataset=..., **kwargs)`` into the named dataset, creating it if missing.

    The dataset is created in the import's own transaction, so a bad file leaves no empty
    dataset behind; the importer's error becomes the command's one clear message.
    """
    if not dataset_name.strip():
        raise CommandError("--dataset: the name is empty")
    try:
        with transaction.atomic():
            target, _ = dataset_get_or_create(name=dataset_name)
            return importer(dataset=target, **kwargs)
    except ImportFormatError as exc:
        raise CommandError(str(exc)) from exc
