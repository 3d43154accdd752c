"""The registry of model kinds. It imports no kind: the built-in kinds (``paraqd``, ``judge``,
``stead``, ``pap``) register in ``ModelhubConfig.ready()``, and a new kind is one module or package
under ``modelhub/kinds/`` plus one ``register`` call there. ``ModelVersion.kind`` values are
validated against it (``modelversion_create``)."""
from __future__ import annotations

from .base import ModelKind

__all__ = ["get_kind", "kind_names", "kinds", "register", "retrainable_kinds", "unregister"]

_KINDS: dict[str, ModelKind] = {}


def register(kind: ModelKind, *, replace: bool = False) -> ModelKind:
    """Add ``kind`` under ``kind.name``; a second kind of the same name is refused unless ``replace``."""
    if kind.name in _KINDS and not replace:
        raise ValueError(f"model kind {kind.name!r} is already registered")
    _KINDS[kind.name] = kind
    return kind


def unregister(name: str) -> None:
    _KINDS.pop(name, None)


def get_kind(name: str) -> ModelKind:
    try:
        return _KINDS[name]
    except KeyError:
        raise ValueError(f"unknown model kind {name!r}; expected one of {', '.join(_KINDS)}") from None


def kinds() -> list[ModelKind]:
    return list(_KINDS.values())


def kind_names() -> list[str]:
    return list(_KINDS)


def retrainable_kinds() -> tuple[str, ...]:
    return tuple(name for name, kind in _KINDS.items() if kind.retrainable)
