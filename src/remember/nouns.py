"""Counted nouns in messages: "1 memory", "2 memories", "0 records"."""

from __future__ import annotations

_VOWELS = frozenset("aeiou")


def plural(noun: str) -> str:
    """The plural of a regular English noun: memory -> memories, day -> days, match -> matches, field -> fields."""
    if noun.endswith("y") and noun[-2:-1] not in _VOWELS:
        return noun[:-1] + "ies"
    if noun.endswith(("s", "x", "z", "ch", "sh")):
        return noun + "es"
    return noun + "s"


def counted(n: int, noun: str, plural_form: str | None = None) -> str:
    """``n`` and ``noun``, singular for exactly one: counted(1, "memory") == "1 memory"."""
    return f"{n} {noun if n == 1 else plural_form or plural(noun)}"
