"""Vectors on the wire: float32 bytes to pgvector's binary form and back."""

from __future__ import annotations

import struct

from psycopg.adapt import Dumper
from psycopg.pq import Format


class VectorParam:
    """A float32 little-endian vector, sent to PostgreSQL in pgvector's binary form."""

    __slots__ = ("data",)

    def __init__(self, data: bytes) -> None:
        self.data = data


class VectorDumper(Dumper):
    """pgvector's binary input: dimension (int16), an unused int16, then big-endian float32s."""

    format = Format.BINARY

    def dump(self, obj: VectorParam) -> bytes:
        n = len(obj.data) // 4
        values = struct.unpack(f"<{n}f", obj.data[: 4 * n])
        return struct.pack(f">HH{n}f", n, 0, *values)


def vector_from_binary(data: bytes) -> bytes:
    """pgvector's binary output back to float32 little-endian bytes."""
    (n,) = struct.unpack_from(">H", data)
    return struct.pack(f"<{n}f", *struct.unpack_from(f">{n}f", data, 4))
