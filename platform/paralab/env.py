"""Typed readers of environment variables for the settings: an unset or blank variable gives the
default; a value that does not parse is refused with ``ImproperlyConfigured`` naming the variable."""
from __future__ import annotations

import os

from django.core.exceptions import ImproperlyConfigured

__all__ = ["env_bool", "env_float", "env_int", "env_list", "env_str"]


def env_str(name: str, default: str = "") -> str:
    return os.environ.get(name, default).strip()


def env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    value = raw.strip().lower()
    if value in {"1", "true", "yes", "on"}:
        return True
    if value in {"0", "false", "no", "off"}:
        return False
    raise ImproperlyConfigured(f"{name} must be a boolean (1/0, true/false), got {raw!r}")


def _env_parsed(name: str, default, parse, what: str):
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        return parse(raw)
    except ValueError as exc:
        raise ImproperlyConfigured(f"{name} must be {what}, got {raw!r}") from exc


def env_int(name: str, default: int) -> int:
    return _env_parsed(name, default, int, "an integer")


def env_float(name: str, default: float) -> float:
    return _env_parsed(name, default, float, "a number")


def env_list(name: str, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    return [item.strip() for item in raw.split(",") if item.strip()]
