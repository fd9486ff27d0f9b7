"""The normalised content hash that finds a memory stored twice.

Two texts have the same hash when they differ only in case, Unicode form,
spacing, or punctuation around words: "Alice likes tea." and "alice  likes
tea" are the same memory. Stored per memory (``memories.content_hash``, step
``0009_content_hash``) so that a create looks its twin up by index, inside the
transaction that writes it. Changing this function changes every stored hash:
a new migration step must recompute them.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata

from remember.store.sql.session import Session

_WORD = re.compile(r"[^\W_]+", re.UNICODE)


def normalised(text: str) -> str:
    """The words of ``text``, case-folded in NFKC form, one space apart."""
    return " ".join(_WORD.findall(unicodedata.normalize("NFKC", text).casefold()))


def content_hash(text: str) -> str:
    """32 hex digits of the SHA-256 of the normalised text."""
    key = normalised(text) or text  # a text of punctuation only is its own key
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:32]


def backfill(s: Session) -> None:
    """Hash every stored memory's text (the migration step that adds the column)."""
    rows = s.all("SELECT user_id, id, content FROM memories")
    s.many(
        "UPDATE memories SET content_hash = ? WHERE user_id = ? AND id = ?",
        [(content_hash(content), user, memory) for user, memory, content in rows],
    )
