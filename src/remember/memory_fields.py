"""The one list of a memory's fields: how each is stored, filtered, edited and indexed.

The store's columns (``store/sql/rows.py``), the filter language's columns
(``filters.py``), the fields a draft or a patch may set (``service/drafts.py``,
``service/editable.py``) and which changes re-index a memory all read this table;
a new field is added here (and in a migration step), nowhere else by hand.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

# How the store encodes a value: as it is, a list of texts, JSON (null allowed or not), a
# boolean that may be null, a moment (null allowed or not), a tuple of JSON objects.
Codec = Literal["plain", "texts", "json", "json?", "flag", "moment", "moment?", "objects"]
FilterKind = Literal["text", "number", "moment", "bool", "tags"]


@dataclass(frozen=True)
class MemoryField:
    attribute: str  # of ``models.Memory``; the public name too, except for occurred_at
    column: str
    codec: Codec = "plain"
    filter: FilterKind | None = None  # filterable under the column's name
    editable: bool = False  # set by a draft or a patch
    clearable: bool = False  # a patch may empty it
    indexed: bool = False  # a change re-indexes the memory for search


FIELDS: tuple[MemoryField, ...] = (
    MemoryField("user_id", "user_id"),
    MemoryField("id", "id", filter="text"),
    MemoryField("content", "content", filter="text", editable=True, indexed=True),
    MemoryField("title", "title", filter="text", editable=True, clearable=True, indexed=True),
    MemoryField("type", "type", filter="text", editable=True),
    MemoryField("weight", "weight", filter="number", editable=True),
    MemoryField("trust", "trust", filter="number", editable=True),
    MemoryField("tags", "tags", "texts", filter="tags", editable=True, indexed=True),
    MemoryField("references", "refs", "texts", editable=True),
    MemoryField("context", "context", "json", editable=True, indexed=True),
    MemoryField("location", "location", "json?", editable=True, clearable=True),
    MemoryField("template_id", "template_id", filter="text", editable=True, clearable=True, indexed=True),
    MemoryField("template_version", "template_version", filter="text"),
    MemoryField("structured_content", "structured_content", "json?", editable=True, clearable=True, indexed=True),
    MemoryField("template_compliance", "template_compliance", "flag", filter="bool"),
    MemoryField("template_validation_errors", "template_validation_errors", "objects"),
    MemoryField("created_at", "created_at", "moment", filter="moment"),
    MemoryField("updated_at", "updated_at", "moment", filter="moment"),
    MemoryField("occurred_at", "occurred_at", "moment", filter="moment"),  # public: context.timestamp
    MemoryField("version", "version"),
    MemoryField("deleted_at", "deleted_at", "moment?"),
    MemoryField("access_count", "access_count", filter="number"),
    MemoryField("last_accessed_at", "last_accessed_at", "moment?"),
    MemoryField("valid_from", "valid_from", "moment?", filter="moment", editable=True),
    MemoryField("valid_until", "valid_until", "moment?", filter="moment", editable=True, clearable=True),
    MemoryField("supersedes", "supersedes", "texts"),
    MemoryField("superseded_by", "superseded_by", filter="text"),
    MemoryField("identity_key", "identity_key"),
    MemoryField("created_by", "created_by"),
)

EDITABLE: tuple[str, ...] = tuple(f.attribute for f in FIELDS if f.editable)
CLEARABLE: frozenset[str] = frozenset(f.attribute for f in FIELDS if f.clearable)
INDEXED: frozenset[str] = frozenset(f.attribute for f in FIELDS if f.indexed)
FILTERABLE: dict[str, FilterKind] = {f.column: f.filter for f in FIELDS if f.filter is not None}
