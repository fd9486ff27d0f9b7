"""PerObject: a value per live object, by identity."""

from __future__ import annotations

import gc

from remember.templates.per_object import PerObject


class Thing:
    def __init__(self, name: str) -> None:
        self.name = name

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Thing) and other.name == self.name

    __hash__ = None  # type: ignore[assignment]


def test_a_value_is_found_for_the_same_object_only_and_dropped_with_it() -> None:
    known: PerObject[Thing, str] = PerObject()
    one, equal = Thing("a"), Thing("a")
    assert known.put(one, "worked out") == "worked out"
    assert known.get(one) == "worked out"
    assert known.get(equal) is None  # equal, but another object
    del one
    gc.collect()
    assert len(known) == 0
