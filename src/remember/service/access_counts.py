"""Access bookkeeping that never makes a read fail.

Counting reads (``access_count``, ``last_accessed_at``) is a write. On a full
disk, a read-only copy or a damaged file that write fails, and the read it
belongs to must still answer: the count is skipped and the reason logged.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import datetime

from remember.errors import StoreError
from remember.store import Store

_log = logging.getLogger("remember")


def note_access(store: Store, user_id: str, memory_ids: Sequence[str], at: datetime) -> bool:
    """Record that these memories were read; False (and a warning) when the database cannot record it."""
    try:
        store.memories.record_access(user_id, memory_ids, at)
    except StoreError as exc:
        _log.warning("Reads are not counted: %s", exc.message)
        return False
    return True
