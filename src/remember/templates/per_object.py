"""Values worked out once per object, kept for as long as the object lives.

Keyed by the object's identity, not its value: the built-in templates are the same objects in
every call, and hashing or comparing a definition by value would cost about what the work saves
(a user's own templates, read anew for each call, are new objects and are worked out again).
"""

from __future__ import annotations

import weakref
from functools import partial
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class PerObject(Generic[K, V]):
    """A value per live object; an object's value is dropped when the object is."""

    def __init__(self) -> None:
        self._known: dict[int, tuple[weakref.ref[K], V]] = {}

    def get(self, obj: K) -> V | None:
        known = self._known.get(id(obj))
        return known[1] if known is not None and known[0]() is obj else None

    def put(self, obj: K, value: V) -> V:
        key = id(obj)
        self._known[key] = (weakref.ref(obj, partial(self._forget, key)), value)
        return value

    def __len__(self) -> int:
        return len(self._known)

    def _forget(self, key: int, gone: weakref.ref[K]) -> None:
        known = self._known.get(key)
        if known is not None and known[0] is gone:
            del self._known[key]
