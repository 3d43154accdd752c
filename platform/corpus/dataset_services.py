"""The dataset services' old address: they live in ``corpus.services.datasets`` (importable from
``corpus.services``); this module re-exports them for the callers that still import them here."""
from __future__ import annotations

from .services.datasets import dataset_delete, dataset_setup, dataset_update

__all__ = ["dataset_delete", "dataset_setup", "dataset_update"]
