"""The trust rule on the services' read and write paths (the caller's level: ``remember.caller``).

A memory whose ``trust`` is above the caller's trust level is, to that caller,
a memory that does not exist: listing and search leave it out (a condition on
``trust`` pushed down into the store's SQL, like any filter), reading or
changing it by id answers "no memory with id ...", and figures over memories
(template analytics, template usage) do not count it, and the history of a memory
the caller can read leaves out the versions that were above its level. A caller
cannot give a memory a trust above its own level either.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from remember.caller import Caller
from remember.errors import NotFound, ValidationFailed, excerpt
from remember.filters import Filter, conjoin, links_within, parse_filter
from remember.models import HistoryEntry, Memory


def unknown(memory_id: str) -> NotFound:
    return NotFound(f"No memory with id {excerpt(memory_id)}. Find ids by listing or searching memories.")


def within_reach(caller: Caller, tree: Filter | None) -> Filter | None:
    """``tree``, and, for a caller below full trust, only memories within its level, each ``relationship_count``
    counting only the relationships the caller sees (every member within its level)."""
    if not caller.restricted:
        return tree
    return conjoin(links_within(tree, caller.trust), parse_filter({"trust": {"lte": caller.trust}}))


def reachable(caller: Caller, memory: Memory | None) -> Memory | None:
    return memory if memory is not None and caller.reaches(memory.trust) else None


def only_reachable(caller: Caller, memories: Iterable[Memory]) -> list[Memory]:
    return [m for m in memories if caller.reaches(m.trust)]


def check_trust_given(caller: Caller, trust: float | None) -> None:
    """A caller may not make a memory it could not see."""
    if trust is not None and not caller.reaches(trust):
        raise ValidationFailed.single(
            "trust",
            "max",
            f"trust {trust:g} is above this connection's trust level ({caller.trust:g}); give at most that.",
            trust,
        )


def trust_cap(caller: Caller) -> float | None:
    """The caller's trust level when it is below full (a bound for figures over memories), else None."""
    return caller.trust if caller.restricted else None


def visible_history(caller: Caller, memory: Memory, entries: Sequence[HistoryEntry]) -> list[HistoryEntry]:
    """The entries of ``memory``'s history whose replaced version the caller may see.

    Each entry keeps the values a change replaced; the trust the replaced version had is
    the ``trust`` the entry kept, or else that of the version after it. Walking back from
    the memory as it is, an entry whose replaced version was above the caller's level is
    left out (its values are of a memory the caller could not have read).
    """
    if not caller.restricted:
        return list(entries)
    trust, hidden = memory.trust, set()
    for entry in sorted(entries, key=lambda e: e.version, reverse=True):
        earlier = entry.previous.get("trust")
        if isinstance(earlier, int | float) and not isinstance(earlier, bool):
            trust = float(earlier)
        if not caller.reaches(trust):
            hidden.add(entry.version)
    return [e for e in entries if e.version not in hidden]


def default_trust(caller: Caller, preferred: float) -> float:
    """The trust of a memory created without one: the user's default, capped at the caller's level."""
    return min(preferred, caller.trust)
