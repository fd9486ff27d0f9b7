"""Keyset pages of memories: each page starts after the last memory of the one before.

A page is read with the order's index from where the previous page stopped, so the
thousandth page costs what the first does (an offset would walk every memory before
it, and a total would count them all). The cursor is opaque to callers: the order,
the last memory's sort value and its id, as URL-safe base64 of JSON.
"""

from __future__ import annotations

import base64
import binascii
import dataclasses
import json
from dataclasses import dataclass
from typing import Any

from remember.clock import from_text, to_text
from remember.errors import ValidationFailed
from remember.models import Memory, MemoryQuery
from remember.store import Store

MAX_CURSOR = 1_000  # characters


@dataclass(frozen=True)
class Browsed:
    """One keyset page, and the cursor of the next (None on the last page)."""

    items: tuple[Memory, ...]
    limit: int
    next_cursor: str | None


def browse(store: Store, user_id: str, query: MemoryQuery, limit: int, cursor: str | None) -> Browsed:
    after = decode(query, cursor) if cursor else None
    found = store.memories.page_after(user_id, dataclasses.replace(query, limit=limit + 1, after=after))
    items = tuple(found[:limit])
    more = len(found) > limit
    return Browsed(items, limit, encode(query, items[-1]) if more and items else None)


def encode(query: MemoryQuery, last: Memory) -> str:
    return cursor_at(query.sort_by, query.descending, last)


def cursor_at(sort_by: str, descending: bool, last: Memory) -> str:
    """The cursor of the page that starts after ``last`` in the order by ``sort_by`` (any space's: a position)."""
    value = getattr(last, sort_by)
    mark = [sort_by, descending, value if isinstance(value, float) else to_text(value), last.id]
    return base64.urlsafe_b64encode(json.dumps(mark).encode()).decode().rstrip("=")


def decode(query: MemoryQuery, cursor: str) -> tuple[Any, str]:
    """The sort value and id a cursor of ``query``'s order carries."""
    try:
        if len(cursor) > MAX_CURSOR:
            raise ValueError("too long")
        raw = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
        sort_by, descending, value, last_id = raw
        if sort_by != query.sort_by or descending != query.descending or not isinstance(last_id, str):
            raise ValueError("another order")
        bound = float(value) if sort_by == "weight" else from_text(str(value))
    except (ValueError, TypeError, binascii.Error, UnicodeDecodeError) as exc:
        message = "This cursor is not one this listing gave (or its order changed); start again without a cursor."
        raise ValidationFailed.single("cursor", "invalid", message, cursor[:80]) from exc
    return bound, last_id
