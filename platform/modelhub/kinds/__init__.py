"""The registry of model kinds (``paraqd``, ``judge``, ``stead``, ``pap``): adding a kind is a module with
a :class:`~modelhub.kinds.base.ModelKind` and one ``register`` line below; ``ModelVersion.kind``
values are checked against it."""
from __future__ import annotations

from .base import GateMetric, ModelKind, TrainRequest

__all__ = ["GateMetric", "ModelKind", "TrainRequest", "get_kind", "kinds", "register", "retrainable_kinds",
           "unregister"]

_KINDS: dict[str, ModelKind] = {}


def register(kind: ModelKind, *, replace: bool = False) -> ModelKind:
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


def retrainable_kinds() -> tuple[str, ...]:
    return tuple(name for name, kind in _KINDS.items() if kind.retrainable)


def _register_builtins() -> None:
    from .judge import JudgeKind
    from .pap import PapKind
    from .paraqd import ParaQDKind
    from .stead import SteadKind

    for kind in (ParaQDKind(), JudgeKind(), SteadKind(), PapKind()):
        register(kind)


_register_builtins()
