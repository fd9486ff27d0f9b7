"""Dedup on write: is a new memory one the user already has?

Three answers, strongest first:

- a **repeat**: the same normalised text (``store/sql/fingerprint.py``) and the same
  fields (a client retrying a call): the same time it happened when the call gave one,
  else stored within ``RETRY_WINDOW`` of the first (the same note made again the next
  day is another memory). Never stored twice, whatever the preference: the store checks
  it in the transaction that would write the memory.
- the **same** text with other fields (another weight, tags, a later timestamp).
- a **similar** text: the nearest memory by vector cosine is above ``COSINE`` (on the common scale of
  ``search/embedders/scale.py``) and the
  two share at least ``OVERLAP`` of their keywords (Jaccard, stopwords left out).

What happens to the last two is the preference ``memory.on_duplicate``: ``keep``
both (the default: a false match never loses a memory) and say so, ``skip`` the new
one, or ``merge`` it into the existing one (history keeps what it replaced). The
thresholds were chosen on a dev set (``python -m bench --only dedup``; docs/memories.md).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, Literal

from remember.caller import Caller
from remember.models import Memory
from remember.search import text
from remember.service import visibility
from remember.store import Store
from remember.store.sql.fingerprint import normalised

Match = Literal["repeat", "same", "similar"]
Action = Literal["stored", "skipped", "merged"]
MODES = ("keep", "skip", "merge")
COSINE = 0.8
OVERLAP = 0.6
NEAREST = 3  # vector neighbours looked at
RETRY_WINDOW = timedelta(minutes=10)  # how late a retry of a call without a time may come
Repeat = Callable[[Memory, Memory], bool]


@dataclass(frozen=True)
class Duplicate:
    """The memory a create found already stored, how close it is, and what was done."""

    memory_id: str
    match: Match
    similarity: float  # vector cosine; 1.0 for the same text
    action: Action

    def as_dict(self) -> dict[str, Any]:
        return {"memory_id": self.memory_id, "match": self.match, "similarity": self.similarity, "action": self.action}


@dataclass(frozen=True)
class Found:
    memory: Memory
    match: Match
    similarity: float


# What a retried call gives again; the timestamp counts only when the first call gave one.
_SAME_CALL = ("content", "title", "type", "weight", "trust", "tags", "references", "location", "template_id",
              "structured_content")  # fmt: skip


def repeat_rule(stamped: set[str], within: timedelta | None = RETRY_WINDOW) -> Repeat:
    """Whether a new memory is a stored one made again by the same call (a retry); the time it
    happened counts when the call gave one (``stamped``: those new memories' ids), else it is
    "now", which a retry moves, and then the first must have been stored ``within`` that
    long before (None: at any time, as for an export read again)."""

    def is_repeat(stored: Memory, new: Memory) -> bool:
        before, after = stored.as_dict(), new.as_dict()
        if any(before[name] != after[name] for name in _SAME_CALL):
            return False
        if new.id in stamped:
            if stored.occurred_at != new.occurred_at:
                return False
        elif within is not None and new.created_at - stored.created_at > within:
            return False
        return dict(stored.context) == dict(new.context)

    return is_repeat


def keyword_overlap(a: str, b: str) -> float:
    """The share of the two texts' keywords (stopwords left out) that both hold (Jaccard)."""
    left, right = set(text.query_terms(a)), set(text.query_terms(b))
    if not left or not right:
        return 1.0 if normalised(a) == normalised(b) else 0.0
    return len(left & right) / len(left | right)


def find(
    store: Store, caller: Caller, memory: Memory, vector: bytes | None, is_repeat: Repeat, cosine: float = COSINE
) -> Found | None:
    """The live memory of the user (within the caller's reach) that ``memory`` duplicates, if any. ``cosine``:
    ``COSINE`` as the embedder's own cosine (``scale.py``)."""
    same = store.memories.by_text(caller.user, [memory.content], max_trust=caller.trust).get(memory.content)
    if same:
        repeat = next((m for m in same if is_repeat(m, memory)), None)
        return Found(repeat, "repeat", 1.0) if repeat else Found(same[0], "same", 1.0)
    if vector is None:
        return None
    return _similar(store, caller, memory, vector, cosine)


def _similar(store: Store, caller: Caller, memory: Memory, vector: bytes, least: float) -> Found | None:
    near = store.index.vector_candidates(
        caller.user, vector, filter=visibility.within_reach(caller, None), deleted="exclude", limit=NEAREST
    )
    close = [(i, c) for i, c in near if c >= least]
    if not close:
        return None
    by_id = {m.id: m for m in store.memories.get_many(caller.user, [i for i, _ in close])}
    for memory_id, cosine in close:
        other = by_id.get(memory_id)
        if other is not None and keyword_overlap(memory.content, other.content) >= OVERLAP:
            return Found(other, "similar", round(cosine, 4))
    return None


def twins_of(store: Store, caller: Caller, memory: Memory, cosine: float = COSINE) -> list[Found]:
    """The other live memories within the caller's reach that ``memory`` (a stored one) duplicates as a create
    would find them: the same text first, then similar ones (nearest by vector, ``OVERLAP`` of keywords)."""
    same = store.memories.by_text(caller.user, [memory.content], max_trust=caller.trust).get(memory.content) or []
    found = [Found(m, "same", 1.0) for m in same if m.id != memory.id and not m.is_deleted]
    vector = store.index.get_vector(caller.user, memory.id)
    if vector is None:
        return found
    near = store.index.vector_candidates(
        caller.user, vector, filter=visibility.within_reach(caller, None), deleted="exclude", limit=NEAREST + 1
    )
    close = [(i, c) for i, c in near if c >= cosine and i != memory.id and i not in {f.memory.id for f in found}]
    by_id = {m.id: m for m in store.memories.get_many(caller.user, [i for i, _ in close])}
    for memory_id, similarity in close:
        other = by_id.get(memory_id)
        if other is not None and keyword_overlap(memory.content, other.content) >= OVERLAP:
            found.append(Found(other, "similar", round(similarity, 4)))
    return found
