"""A memory as `remember get` shows it to a person: its template's fields, its relationships and its history.

The history says, change by change, what each field was and what it became (``weight: 0.5 -> 0.9``),
newest first: each entry keeps the values a change replaced, and the values after it are those of
the next change's entry, or the memory's as it is now.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from remember.cli import output
from remember.models import HistoryEntry, Memory, Relationship

if TYPE_CHECKING:
    from remember.service.validity import Value

SNIPPET = 60
ACTIONS = {"update": "changed", "delete": "moved to the trash", "restore": "restored from the trash", "merge": "merged"}
WHERE = ("move", "copy")  # entries that change no field: the memory came from another space
HIDDEN = {"deleted_at", "updated_at", "version"}  # said by the action, or by the entry's own line


def show(
    memory: Memory,
    *,
    rendered: str | None,
    rels: Sequence[Relationship],
    others: Mapping[str, Memory],
    history: Sequence[HistoryEntry] | None,
    timeline: Mapping[str, Sequence[Value]] | None = None,
    space: str | None = None,
) -> None:
    """Print the memory: its fields (``space``: the name of the shared space it is in), its template's fields
    and their values over time, its text, relationships and (when asked) history."""
    output.header(memory, space)
    fields = fields_lines(memory, rendered)
    if fields:
        print("\nfields:")
        print("\n".join(f"  {line}" for line in fields))
    if timeline:
        print("\nover time:")
        print("\n".join(f"  {line}" for line in timeline_lines(timeline)))
    if not fields or memory.content != rendered:
        print()
        print(memory.content)
    if rels:
        print("\nrelationships:")
        print("\n".join(relationship_lines(memory.id, rels, others)))
    if history is not None:
        print("\nhistory, newest first:" if history else "\nhistory: no changes since it was stored")
        print("\n".join(history_lines(memory, history)) if history else "", end="\n" if history else "")


def fields_lines(memory: Memory, rendered: str | None) -> list[str]:
    """A templated memory's fields as ``Label: value`` lines (as its template renders them; as stored when
    the template is gone); none for a memory without fields."""
    if rendered:
        return rendered.splitlines()
    return [f"{name}: {_value(value)}" for name, value in (memory.structured_content or {}).items()]


def timeline_lines(timeline: Mapping[str, Sequence[Value]]) -> list[str]:
    """Each field's values in turn and when each became true: ``employer: Google → Meta on 2025-06-01``."""
    lines = []
    for name, values in timeline.items():
        steps = [_value(values[0].value)] + [f"{_value(v.value)} on {v.since.date().isoformat()}" for v in values[1:]]
        lines.append(f"{name}: " + " → ".join(steps))
    return lines


def relationship_lines(memory_id: str, rels: Sequence[Relationship], others: Mapping[str, Memory]) -> list[str]:
    """Each relationship of the memory: its type, the other members (a short id and a title), how strong."""
    lines: list[str] = []
    for r in rels:
        members = ", ".join(_member(m, others.get(m)) for m in r.memory_ids if m != memory_id)
        ended = f", ended {r.valid_until.date().isoformat()}" if r.valid_until is not None else ""
        lines.append(f"  {r.relationship_type}: {members}  (strength {r.strength:g}{ended}, relationship {r.id[:8]})")
        if r.observation:
            lines.append(f"    {_snippet(r.observation)}")
    return lines


def history_lines(memory: Memory, entries: Sequence[HistoryEntry]) -> list[str]:
    """The memory's changes, newest first: when, what, why, and each field's value before and after."""
    state: dict[str, Any] = memory.as_dict()
    lines: list[str] = []
    for entry in sorted(entries, key=lambda e: e.version, reverse=True):
        at = entry.at.strftime("%Y-%m-%d %H:%M:%S")
        if entry.action in WHERE:  # its reason says where it came from and went
            lines.append(f"  v{entry.version} -> v{entry.version + 1}  {at} UTC  {entry.reason}")
            continue
        what = ACTIONS.get(entry.action, entry.action) + (f": {entry.reason}" if entry.reason else "")
        lines.append(f"  v{entry.version} -> v{entry.version + 1}  {at} UTC  {what}")
        for name, before in entry.previous.items():
            if name not in HIDDEN:
                lines += [f"      {change}" for change in _changes(name, before, state.get(name))]
            state[name] = before
    return lines


def _changes(name: str, before: Any, after: Any) -> list[str]:
    """``name: before -> after``; an object field a line per key that changed (``structured_content.rating``)."""
    if isinstance(before, Mapping) and isinstance(after, Mapping):
        keys = dict.fromkeys([*before, *after])
        return [f"{name}.{k}: {_value(before.get(k))} -> {_value(after.get(k))}" for k in keys
                if before.get(k) != after.get(k)]  # fmt: skip
    return [f"{name}: {_value(before)} -> {_value(after)}"]


def _member(memory_id: str, memory: Memory | None) -> str:
    if memory is None:
        return memory_id[:8]
    return f"{memory_id[:8]} {_snippet(memory.title or memory.content, 40)}"


def _value(value: Any) -> str:
    if value is None or value in ([], ""):
        return "(none)"
    if isinstance(value, list):
        return _snippet(", ".join(str(v) for v in value))
    if isinstance(value, Mapping):
        return _snippet(json.dumps(value, ensure_ascii=False))
    return _snippet(str(value))


def _snippet(text: str, limit: int = SNIPPET) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"
