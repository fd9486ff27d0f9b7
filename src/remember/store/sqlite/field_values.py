"""An index of structured-content values, so filters on template fields need not parse JSON.

Every scalar reachable from the top of ``structured_content`` through objects is
a row (path ``author.name``, its JSON kind, and its value as a number or a
text); a scalar element of such an array is a row under ``path[]``; arrays and
objects themselves are rows of kind ``array``/``object`` (for ``exists``).
Values inside arrays of objects are not indexed: filters on them (and paths
with an array position) read the JSON instead. See filtersql.py.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Iterator, Mapping
from typing import Any

from remember.models import Memory

FieldRow = tuple[str, str, Any, Any]  # path, kind, num, txt
NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,63}$")  # a path segment of the filter language


def flatten(content: Mapping[str, Any] | None, prefix: str = "") -> Iterator[FieldRow]:
    for key, value in (content or {}).items():
        if not NAME.match(key):
            continue  # no filter can name it ("a.b" would be read as a nested path): not indexed
        path = f"{prefix}{key}"
        if isinstance(value, Mapping):
            yield path, "object", None, None
            yield from flatten(value, path + ".")
        elif isinstance(value, list):
            yield path, "array", None, None
            yield from (_scalar(path + "[]", item) for item in value if not isinstance(item, Mapping | list))
        else:
            yield _scalar(path, value)


def _scalar(path: str, value: Any) -> FieldRow:
    if value is None:
        return path, "null", None, None
    if isinstance(value, bool):
        return path, "true" if value else "false", None, None
    if isinstance(value, int | float):
        return path, "number", value, None
    return path, "text", None, str(value)


def write_fields(conn: sqlite3.Connection, memory: Memory) -> None:
    conn.execute("DELETE FROM memory_fields WHERE user_id = ? AND memory_id = ?", (memory.user_id, memory.id))
    conn.executemany(
        "INSERT INTO memory_fields (user_id, memory_id, path, kind, num, txt) VALUES (?, ?, ?, ?, ?, ?)",
        [(memory.user_id, memory.id, *row) for row in flatten(memory.structured_content)],
    )


def backfill(conn: sqlite3.Connection) -> None:
    """Index the values of memories stored before the index existed."""
    rows = conn.execute(
        "SELECT user_id, id, structured_content FROM memories WHERE structured_content IS NOT NULL"
    ).fetchall()
    conn.executemany(
        "INSERT INTO memory_fields (user_id, memory_id, path, kind, num, txt) VALUES (?, ?, ?, ?, ?, ?)",
        [(user, memory_id, *row) for user, memory_id, content in rows for row in flatten(json.loads(content))],
    )
