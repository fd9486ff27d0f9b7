"""Ids that start with a prefix, among one user's rows of a table.

Keys compare byte by byte on both backends (SQLite's BINARY collation, ``COLLATE "C"`` on
PostgreSQL), and UTF-8 keeps the order of code points, so the ids that start with a prefix
are exactly those from the prefix (included) up to the prefix with its last character moved
one on (excluded): a range the primary key ``(user_id, id)`` answers without a scan. LIKE
would take ``_`` and ``%`` in a prefix (``tpl_book_``) as wildcards.
"""

from __future__ import annotations

from collections.abc import Sequence

from remember.store.sql.session import Session

LAST = 0x10FFFF  # the last code point
SURROGATES = (0xD800, 0xDFFF)  # not characters: no UTF-8 text holds them


def ids_with_prefix(
    s: Session, table: str, user_id: str, prefix: str, limit: int, *, where: str = "", params: Sequence[object] = ()
) -> list[str]:
    """Up to ``limit`` ids of ``table`` (aliased ``r``) of the user that start with ``prefix``, in id order;
    ``where`` (with its ``params``) narrows them further, e.g. to the rows a caller may see."""
    bound: list[object] = [user_id, prefix]
    upper = following(prefix)
    below = ""
    if upper is not None:
        below = " AND r.id < ?"
        bound.append(upper)
    condition = f" AND {where}" if where else ""
    rows = s.all(
        f"SELECT r.id FROM {table} r WHERE r.user_id = ? AND r.id >= ?{below}{condition} ORDER BY r.id LIMIT ?",
        [*bound, *params, limit],
    )
    return [str(row[0]) for row in rows]


def following(prefix: str) -> str | None:
    """The first text after every text that starts with ``prefix``; None when there is none."""
    kept = prefix.rstrip(chr(LAST))
    if not kept:
        return None
    point = ord(kept[-1]) + 1
    if SURROGATES[0] <= point <= SURROGATES[1]:
        point = SURROGATES[1] + 1
    return kept[:-1] + chr(point)
