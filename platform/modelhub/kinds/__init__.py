"""Model kinds: the :class:`~modelhub.kinds.base.ModelKind` protocol and its registry
(``modelhub.kinds.registry``). Importing this package imports no kind; the built-in kinds register
in ``ModelhubConfig.ready()``."""
from __future__ import annotations

from .base import GateMetric, ModelKind, TrainRequest
from .registry import get_kind, kind_names, kinds, register, retrainable_kinds, unregister

__all__ = ["GateMetric", "ModelKind", "TrainRequest", "get_kind", "kind_names", "kinds", "register",
           "retrainable_kinds", "unregister"]
