"""A template memory's identity: the values of its template's ``identity`` fields, which say what thing it is
about, and what a new memory about the same thing changes in it (``memory.on_identity``: docs/memories.md).

Two memories are about the same thing when their identity values are equal once case, accents and
spacing are set aside ("José  Núñez" is "jose nunez"). The store keeps that comparison's key
(``Memory.identity_key``, a digest) so the memory about the same thing is found by index.
"""

from __future__ import annotations

import hashlib
import json
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

Action = Literal["updated", "unchanged", "superseded"]


def normalised(value: Any) -> Any:
    """``value`` with every text folded: accents dropped, case folded, spacing collapsed."""
    if isinstance(value, str):
        bare = "".join(c for c in unicodedata.normalize("NFKD", value) if not unicodedata.combining(c))
        return " ".join(bare.casefold().split())
    if isinstance(value, Mapping):
        return {str(k): normalised(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [normalised(v) for v in value]
    return value


def identity_key(identity: Sequence[str], content: Mapping[str, Any] | None) -> str | None:
    """The key of the thing ``content`` is about; None without an identity or when one of its values is
    missing or empty (a memory that does not say which thing it is about matches none)."""
    if not identity or content is None:
        return None
    values = [normalised(content.get(name)) for name in identity]
    if any(v is None or v in ("", [], {}) for v in values):
        return None
    text = json.dumps(values, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def merged(old: Mapping[str, Any] | None, new: Mapping[str, Any] | None, *, overwrite: bool = True) -> dict[str, Any]:
    """``old`` taking ``new``'s values; lists are merged (old items first, none twice). Without ``overwrite``
    (the new memory happened before the values ``old`` holds), only what ``old`` lacks is taken."""
    out = dict(old or {})
    for name, value in (new or {}).items():
        before = out.get(name)
        if isinstance(before, list) and isinstance(value, list):
            out[name] = [*before, *(v for v in value if v not in before)]
        elif overwrite or before is None:
            out[name] = value
    return out


@dataclass(frozen=True)
class Change:
    """One field's value before and after."""

    field: str
    before: Any
    after: Any

    def as_dict(self) -> dict[str, Any]:
        return {"field": self.field, "from": self.before, "to": self.after}


def changes(before: Mapping[str, Any] | None, after: Mapping[str, Any] | None) -> tuple[Change, ...]:
    """The fields whose values differ, in ``after``'s order, then those only ``before`` had."""
    old, new = dict(before or {}), dict(after or {})
    names = [*new, *(n for n in old if n not in new)]
    return tuple(Change(n, old.get(n), new.get(n)) for n in names if old.get(n) != new.get(n))


@dataclass(frozen=True)
class Outcome:
    """What a create did with the memory about the same thing it found."""

    action: Action
    memory_id: str  # the memory about the same thing that was there
    fields: tuple[str, ...]  # the identity fields that matched
    changes: tuple[Change, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        return {
            "action": self.action,
            "memory_id": self.memory_id,
            "same": list(self.fields),
            "changes": [c.as_dict() for c in self.changes],
        }
