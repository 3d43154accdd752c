"""Argument types the management commands of every app share (argparse ``type=``)."""
from __future__ import annotations

import argparse


def positive_int(value: str) -> int:
    """An argparse type: a whole number >= 1."""
    if not value.isdigit() or int(value) < 1:
        raise argparse.ArgumentTypeError(f"must be a whole number >= 1, got {value!r}")
    return int(value)
