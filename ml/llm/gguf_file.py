"""What a GGUF file's header says about the file: read without loading a tensor, to explain why
llama.cpp refused a file (llama.cpp itself checks all of this and fails cleanly; its own words go
to stderr, out of Python's reach).

GGUF v2/v3 layout (little-endian): magic ``GGUF``, version u32, tensor count u64, key-value count
u64, the key-values, then per tensor: name, n_dims u32, dims u64 x n_dims, type u32, offset u64;
tensor data starts at the next multiple of ``general.alignment`` (32) and each tensor's offset is
relative to it. https://github.com/ggml-org/ggml/blob/master/docs/gguf.md
"""
from __future__ import annotations

import math
import os
import struct
from dataclasses import dataclass
from typing import BinaryIO

__all__ = ["GGUFSummary", "gguf_problem", "read_gguf_summary"]

# key-value type id -> struct format of a scalar (8: string, 9: array are read apart)
_SCALARS = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?", 10: "<Q", 11: "<q", 12: "<d"}
_STRING, _ARRAY = 8, 9
_MAX_STRING = 1 << 24
_MAX_COUNT = 1 << 26


@dataclass(frozen=True)
class GGUFSummary:
    """version; tensor count; ``general.architecture``; the byte where the last tensor's data ends
    (None when a tensor type's size is unknown to the installed ``gguf`` package)."""

    version: int
    tensors: int
    architecture: str
    data_end: int | None


def read_gguf_summary(path: str) -> GGUFSummary:
    """The header of the GGUF file at ``path``; ValueError when it is not a well-formed one."""
    with open(path, "rb") as handle:
        if handle.read(4) != b"GGUF":
            raise ValueError("it does not start with b'GGUF'")
        version, n_tensors, n_kv = _unpack(handle, "<IQQ")
        if version not in (2, 3):
            raise ValueError(f"GGUF version {version} is not 2 or 3")
        if n_tensors > _MAX_COUNT or n_kv > _MAX_COUNT:
            raise ValueError(f"implausible counts ({n_tensors} tensors, {n_kv} key-values)")
        architecture, alignment = "unknown", 32
        for _ in range(n_kv):
            key = _string(handle)
            value = _value(handle, _unpack(handle, "<I")[0])
            if key == "general.architecture" and isinstance(value, str):
                architecture = value
            elif key == "general.alignment" and isinstance(value, int) and value > 0:
                alignment = value
        tensors = []
        for _ in range(n_tensors):
            _string(handle)
            (n_dims,) = _unpack(handle, "<I")
            if n_dims > 8:
                raise ValueError(f"a tensor with {n_dims} dimensions")
            dims = _unpack(handle, f"<{n_dims}Q")
            kind, offset = _unpack(handle, "<IQ")
            tensors.append((kind, offset, math.prod(dims)))
        data_start = -(-handle.tell() // alignment) * alignment
    return GGUFSummary(version, n_tensors, architecture, _data_end(data_start, tensors))


def gguf_problem(path: str) -> str:
    """A sentence on what is wrong with the GGUF file at ``path`` as far as its header shows."""
    try:
        summary = read_gguf_summary(path)
    except (OSError, ValueError, struct.error, UnicodeDecodeError) as error:
        return f"its GGUF header is damaged ({error})"
    size = os.path.getsize(path)
    if summary.data_end is not None and summary.data_end > size:
        return f"it is truncated (its tensor data ends at byte {summary.data_end}; the file has {size} bytes)"
    return (f"its GGUF header reads as complete (version {summary.version}, {summary.tensors} tensors, architecture "
            f"{summary.architecture!r}): the architecture may be unsupported here, or memory short")


def _data_end(data_start: int, tensors: list[tuple[int, int, int]]) -> int | None:
    from gguf.constants import GGML_QUANT_SIZES, GGMLQuantizationType

    end = data_start
    for kind, offset, elements in tensors:
        try:
            block, size = GGML_QUANT_SIZES[GGMLQuantizationType(kind)]
        except (ValueError, KeyError):
            return None
        end = max(end, data_start + offset + elements // block * size)
    return end


def _unpack(handle: BinaryIO, fmt: str) -> tuple:
    size = struct.calcsize(fmt)
    data = handle.read(size)
    if len(data) < size:
        raise ValueError("the header ends early (truncated)")
    return struct.unpack(fmt, data)


def _string(handle: BinaryIO) -> str:
    (length,) = _unpack(handle, "<Q")
    if length > _MAX_STRING:
        raise ValueError(f"a string of {length} bytes")
    data = handle.read(length)
    if len(data) < length:
        raise ValueError("the header ends early (truncated)")
    return data.decode("utf-8")


def _value(handle: BinaryIO, kind: int) -> object:
    if kind in _SCALARS:
        return _unpack(handle, _SCALARS[kind])[0]
    if kind == _STRING:
        return _string(handle)
    if kind == _ARRAY:
        item_kind, count = _unpack(handle, "<IQ")
        if count > _MAX_COUNT:
            raise ValueError(f"an array of {count} items")
        if item_kind in _SCALARS:  # skip fixed-size items in one seek
            handle.seek(struct.calcsize(_SCALARS[item_kind]) * count, os.SEEK_CUR)
        else:
            for _ in range(count):
                _value(handle, item_kind)
        return None
    raise ValueError(f"unknown key-value type {kind}")
