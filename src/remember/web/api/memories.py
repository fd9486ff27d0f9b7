"""The memories pages' endpoints: search, keyset pages, one memory, edit, trash and restore.

Each one calls the service as the MCP tool of the same job does, so the same
validation holds: ``GET /api/search`` is ``remember_search_memory``, ``GET
/api/memories`` pages like ``remember_list_memories`` but by cursor (no total, no
offset), ``GET /api/memories/{id}`` is ``remember_get_memory`` with its history,
``…/related`` is ``remember_get_related``, ``PATCH`` is ``remember_update_memory``
with a version check, ``DELETE`` moves it to the trash (``?permanent=true`` erases one
from the trash: ``curation.py``), ``GET /api/trash`` lists the
trash and ``POST …/restore`` brings one back. ``GET /api/memory-templates`` lists
the templates a filter can name, ``…/{id}`` their fields (inherited ones too).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from starlette.routing import Route

from remember.errors import ValidationFailed
from remember.models import Memory
from remember.schemas.memories import (
    DeletionOut,
    HistoryOut,
    MemoryDetailOut,
    MemoryOut,
    RestoredOut,
    WrittenMemoryOut,
    public,
)
from remember.schemas.relationships import RelatedOut, links
from remember.service import space_reads, validity
from remember.service.browsing import Browsed
from remember.web.api.curation import erase
from remember.web.api.template_views import labelled
from remember.web.context import WebContext
from remember.web.responses import Call, read_json, routes_at

MAX_FILTERS = 20_000  # characters of the filters' JSON in a query string
MAX_DEPTH = 2  # relationships away in the graph view
EDIT_KEYS = frozenset({"version", "changes", "reason"})


def routes(ctx: WebContext) -> list[Route]:
    return routes_at(ctx, {
        "/api/search": {"GET": search},
        "/api/memories": {"GET": listing},
        "/api/trash": {"GET": trash},
        "/api/memory-templates": {"GET": templates},
        "/api/memory-templates/{template_id}": {"GET": template_fields},
        "/api/memories/{memory_id}": {"GET": detail, "PATCH": edit, "DELETE": delete},
        "/api/memories/{memory_id}/related": {"GET": related},
        "/api/memories/{memory_id}/restore": {"POST": restore},
    })  # fmt: skip


def search(call: Call) -> dict[str, Any]:
    found = space_reads.search(
        call.services.search, call.reading(), call.query.get("q", ""), alpha=_alpha(call), filters=_filters(call),
        limit=call.number("limit", 20, 1, 100), offset=call.number("offset", 0, 0, 1_000_000),
        record_access=False, when=_when(call),
    )  # fmt: skip
    return {
        "results": [{"memory": MemoryOut.of(h.memory), "score": h.score} for h in found.hits],
        "template_names": _template_names(call, [h.memory for h in found.hits]),
        "offset": found.offset,
        "limit": found.limit,
        "has_more": found.has_more,
        "alpha": found.alpha,
    }


def listing(call: Call) -> dict[str, Any]:
    page = space_reads.browse(
        call.services.memories, call.reading(), filters=_filters(call),
        sort_by=call.text("sort_by", "created_at") or "created_at",
        sort_order=call.text("sort_order", "desc") or "desc", limit=call.number("limit", 20, 1, 100),
        cursor=call.text("cursor"), when=_when(call),
    )  # fmt: skip
    return _page(call, page)


def trash(call: Call) -> dict[str, Any]:
    page = space_reads.browse(
        call.services.memories, call.reading(), sort_by="updated_at", limit=call.number("limit", 20, 1, 100),
        cursor=call.text("cursor"), deleted="only",
    )  # fmt: skip
    return _page(call, page)


def _page(call: Call, page: Browsed) -> dict[str, Any]:
    return {
        "memories": [MemoryOut.of(m) for m in page.items],
        "template_names": _template_names(call, page.items),
        "limit": page.limit,
        "next_cursor": page.next_cursor,
    }


def _template_names(call: Call, memories: Sequence[Memory]) -> dict[str, str]:
    """The name of each template the memories were made with, by id (a deleted template has none)."""
    templates = call.services.templates.view_of(call.caller)
    ids = {m.template_id for m in memories if m.template_id}
    found = {i: templates.lookup(i) for i in sorted(ids)}
    return {i: d.name for i, d in found.items() if d is not None}


def detail(call: Call) -> MemoryDetailOut:
    memories, memory_id = call.services.memories, call.path["memory_id"]
    caller = call.on_memory(memory_id)
    # A person looking is not the assistant recalling: the access count stays as it is.
    memory = memories.get(caller, memory_id, record_access=False)
    history = [HistoryOut.of(h) for h in memories.history(caller, memory.id)]
    linked = call.services.relationships.links(caller, [memory.id]).get(memory.id, [])
    return MemoryDetailOut(**public(memory), history=history, relationships=links(memory.id, linked))


def related(call: Call) -> dict[str, Any]:
    memory_id = call.path["memory_id"]
    found = call.services.related.related(
        call.on_memory(memory_id), memory_id, depth=call.number("depth", 1, 1, MAX_DEPTH)
    )
    return {"related": [RelatedOut.of(r) for r in found]}


def edit(call: Call) -> WrittenMemoryOut:
    """``{"version": n, "changes": {field: value, …}, "reason": …}``: null in changes empties a field."""
    body = call.json_object()
    unknown = sorted(str(k) for k in body if k not in EDIT_KEYS)
    if unknown:
        raise ValidationFailed.single(
            unknown[0], "unknown_field", f"Send only version, changes and reason (not {', '.join(unknown)})."
        )
    version, changes, reason = body.get("version"), body.get("changes"), body.get("reason")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise ValidationFailed.single("version", "missing", "Send the version you edited (a whole number from 1).")
    if not isinstance(changes, dict):
        raise ValidationFailed.single("changes", "type", "Send changes as an object of memory fields.")
    if reason is not None and not isinstance(reason, str):
        raise ValidationFailed.single("reason", "type", "reason is a text.", reason)
    memory_id = call.path["memory_id"]
    stored = call.services.memories.change(
        call.on_memory(memory_id, "writer"), memory_id, changes, reason=reason, expected_version=version
    )
    return WrittenMemoryOut.of_stored(stored)


def delete(call: Call) -> DeletionOut:
    if call.flag("permanent"):
        return erase(call)
    memory_id = call.path["memory_id"]
    gone = call.services.memories.delete(call.on_memory(memory_id, "writer"), memory_id)
    deleted_at = gone.memory.as_dict()["deleted_at"] if gone.memory else None
    return DeletionOut(memory_id=gone.memory_id, permanent=False, message="Moved to the trash.", deleted_at=deleted_at)


def restore(call: Call) -> RestoredOut:
    memory_id = call.path["memory_id"]
    back = call.services.memories.restore(call.on_memory(memory_id, "writer"), memory_id)
    return RestoredOut(memory_id=back.id, version=back.version, message="Restored, with its relationships.")


def templates(call: Call) -> dict[str, Any]:
    """The templates a new memory of ``space`` (one; none: the personal space) may use: its own and the built-ins."""
    space = call.text("space")
    acting = call.services.spaces.writing(call.caller, space) if space else call.caller
    views, _ = call.services.templates.list_templates(acting, readers=[acting], sort_by="name", limit=100)
    return {"templates": [{"id": v.definition.id, "name": v.definition.name} for v in views]}


def template_fields(call: Call) -> dict[str, Any]:
    template_id = call.path["template_id"]
    view = call.services.templates.get(call.services.spaces.on_template(call.caller, template_id), template_id)
    fields = [labelled(f.as_dict()) for f in view.resolved.fields]
    return {"id": view.definition.id, "name": view.definition.name, "fields": fields}


def _filters(call: Call) -> dict[str, Any] | None:
    given = call.text("filters")
    if given is None:
        return None
    if len(given) > MAX_FILTERS:
        raise ValidationFailed.single("filters", "size", f"The filters are at most {MAX_FILTERS:,} characters.")
    parsed = read_json(given, "filters")
    if not isinstance(parsed, dict):
        raise ValidationFailed.single("filters", "type", 'The filters are a JSON object, e.g. {"type": "book"}.')
    return parsed


def _when(call: Call) -> validity.When:
    """``as_of`` (a date) or ``include_superseded`` (``1``): which memories a page answers with (by default the
    current ones)."""
    return validity.when(call.text("as_of"), call.text("include_superseded") in ("1", "true"))


def _alpha(call: Call) -> float | None:
    given = call.text("alpha")
    if given is None:
        return None
    try:
        alpha = float(given)
    except ValueError as exc:
        raise ValidationFailed.single("alpha", "type", "alpha is a number from 0 to 1.", given) from exc
    if not math.isfinite(alpha):
        raise ValidationFailed.single("alpha", "range", "alpha is a number from 0 to 1.", given)
    return alpha
