"""When memories are true in the world (docs/memories.md, "Truth over time").

A memory is true from ``valid_from`` (by default when it happened) until ``valid_until`` (none: still
true). Reads answer with what is current unless asked for a date (``as_of``: what was true then) or for
everything (``include_superseded``); this module makes the condition they add to their filter, the
values a memory had at a date (from its history), and ends memories a successor replaces.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from remember.caller import Caller
from remember.clock import to_text
from remember.errors import ValidationFailed
from remember.filters import Condition, Filter, Not, parse_filter
from remember.models import HistoryEntry, Memory
from remember.service import checks, visibility
from remember.store import Store

# What an as_of view takes back from a change that happened after the date.
REVERTED = ("structured_content", "content", "title", "tags")


@dataclasses.dataclass(frozen=True)
class When:
    """Which memories a read answers with: the current ones (neither set), those true at ``as_of``, or all."""

    as_of: datetime | None = None
    everything: bool = False


CURRENT = When()


def when(as_of: Any = None, include_superseded: Any = False) -> When:
    """The ``as_of`` and ``include_superseded`` arguments of a read, checked."""
    if not isinstance(include_superseded, bool):
        raise ValidationFailed.single(
            "include_superseded", "type", "include_superseded must be true or false.", include_superseded
        )
    if as_of is None:
        return When(None, include_superseded)
    if include_superseded:
        raise ValidationFailed.single(
            "as_of", "conflict", "Give as_of (what was true then) or include_superseded (everything), not both."
        )
    errors: checks.Errors = []
    moment = checks.instant(as_of, "as_of", errors)
    if errors or moment is None:
        raise ValidationFailed("as_of is not a date.", errors)
    return When(moment, False)


def condition(store: Store, user_id: str, chosen: When, now: datetime, given: Filter | None = None) -> Filter | None:
    """The filter condition of ``chosen``; None when it keeps every memory (everything; a filter ``given``
    on ``valid_from`` or ``valid_until``, which says itself which spans it wants; or a user none of whose
    memories has ended: the default read then costs nothing more)."""
    if chosen.everything or (chosen.as_of is None and _on_validity(given)):
        return None
    if chosen.as_of is not None:
        moment = to_text(chosen.as_of)
        return parse_filter({"valid_from": {"lte": moment}, "or": _not_ended_by(moment)}, where="as_of")
    if not store.memories.has_ended(user_id):
        return None
    return parse_filter({"or": _not_ended_by(to_text(now))}, where="as_of")


def _on_validity(tree: Filter | None) -> bool:
    if tree is None:
        return False
    if isinstance(tree, Condition):
        return tree.field in ("valid_from", "valid_until")
    if isinstance(tree, Not):
        return _on_validity(tree.part)
    return any(_on_validity(p) for p in tree.parts)


def _not_ended_by(moment: str) -> list[dict[str, Any]]:
    return [{"valid_until": {"exists": False}}, {"valid_until": {"gt": moment}}]


def check_span(memory: Memory) -> None:
    """A memory ends after it begins."""
    if memory.valid_until is not None and memory.valid_until <= memory.starts:
        raise ValidationFailed.single(
            "valid_until",
            "before_valid_from",
            f"valid_until ({to_text(memory.valid_until)}) must be after valid_from ({to_text(memory.starts)}): "
            "a memory ends after it begins. Nothing was changed.",
            to_text(memory.valid_until),
        )


def as_of_values(memory: Memory, history: Sequence[HistoryEntry], moment: datetime) -> Memory:
    """``memory`` with the values it had at ``moment``: each change that became true after ``moment`` taken
    back, newest first. A change became true when it says (``effective_at``: a memory about the same thing,
    a successor), else when it was recorded (an ordinary edit)."""
    out = memory
    for entry in sorted(history, key=lambda e: e.version, reverse=True):
        if entry.action != "update" or entry.effective <= moment:
            continue
        back: dict[str, Any] = {k: entry.previous[k] for k in REVERTED if k in entry.previous}
        if "tags" in back:
            back["tags"] = tuple(back["tags"] or ())
        out = dataclasses.replace(out, **back)
    return out


def seen_as(store: Store, caller: Caller, memories: Sequence[Memory], chosen: When) -> list[Memory]:
    """``memories`` as ``chosen`` sees them: with an ``as_of``, each with its values then (one history read
    per memory changed since it began), from the history the caller may read (``visible_history``)."""
    if chosen.as_of is None:
        return list(memories)
    return [_then(store, caller, m, chosen.as_of) if m.version > 1 else m for m in memories]


def _then(store: Store, caller: Caller, memory: Memory, moment: datetime) -> Memory:
    history = visibility.visible_history(caller, memory, store.memories.history(caller.user, memory.id))
    return as_of_values(memory, history, moment)


@dataclasses.dataclass(frozen=True)
class Value:
    """One value a template field held, and from when."""

    value: Any
    since: datetime


def timeline(memory: Memory, history: Sequence[HistoryEntry]) -> dict[str, list[Value]]:
    """Each template field that changed, with its values oldest first and when each became true (a change's
    ``effective_at``, else when it was recorded); fields that never changed are left out."""
    changes = [
        e
        for e in sorted(history, key=lambda e: e.version)
        if e.action == "update" and "structured_content" in e.previous
    ]
    if not changes:
        return {}
    states = [dict(e.previous["structured_content"] or {}) for e in changes] + [dict(memory.structured_content or {})]
    times = [memory.starts, *(e.effective for e in changes)]
    out: dict[str, list[Value]] = {}
    for name in dict.fromkeys(k for state in states for k in state):
        values: list[Value] = []
        for state, since in zip(states, times, strict=True):
            value = state.get(name)
            if not values or values[-1].value != value:
                values.append(Value(value, since))
        if len(values) > 1:
            out[name] = values
    return out


def ended(old: Memory, successor: Memory, now: datetime, actor: str | None = None) -> tuple[Memory, HistoryEntry]:
    """``old`` ended where ``successor`` begins (not before ``old`` began), and the history entry saying so
    (``actor``: in a shared space, the member who made the change)."""
    until = max(successor.starts, old.starts)
    after = dataclasses.replace(
        old, valid_until=until, superseded_by=successor.id, updated_at=now, version=old.version + 1
    )
    previous = {"valid_until": None if old.valid_until is None else to_text(old.valid_until),
                "superseded_by": old.superseded_by}  # fmt: skip
    why = f"superseded by memory {successor.id}"
    return after, HistoryEntry(old.id, old.user_id, old.version, "update", previous, why, now, successor.starts, actor)
