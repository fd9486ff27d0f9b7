"""Counted nouns: singular for exactly one."""

from __future__ import annotations

import pytest

from remember.nouns import counted, plural


@pytest.mark.parametrize(
    ("noun", "many"),
    [("memory", "memories"), ("day", "days"), ("key", "keys"), ("match", "matches"), ("field", "fields"),
     ("template", "templates"), ("box", "boxes"), ("category", "categories")],
)  # fmt: skip
def test_plural(noun: str, many: str) -> None:
    assert plural(noun) == many


@pytest.mark.parametrize(("n", "said"), [(0, "0 memories"), (1, "1 memory"), (2, "2 memories"), (-1, "-1 memories")])
def test_counted(n: int, said: str) -> None:
    assert counted(n, "memory") == said


def test_an_irregular_plural_is_given() -> None:
    assert counted(2, "person", "people") == "2 people"
    assert counted(1, "person", "people") == "1 person"
