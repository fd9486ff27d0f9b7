"""Duplicates in the dashboard: ``GET /api/memories/{id}/duplicates`` names the memories a stored one may
duplicate (as dedup on write finds them: the same text, or a similar one), and ``POST /api/memories/merge``
keeps one of two and folds the other into it, which goes to the trash (``service/merge.py``).

Both memories must be the caller's, within its trust level and out of the trash, or nothing changes: an id
that is not one of the caller's memories answers 404, as everywhere.
"""

from __future__ import annotations

from typing import Any

from starlette.routing import Route

from remember.errors import ValidationFailed
from remember.web.context import WebContext
from remember.web.responses import Call, routes_at

MERGE_KEYS = ("keep", "merge", "versions", "reason")
SHOWN = 200  # characters of a duplicate's text in the answer


def routes(ctx: WebContext) -> list[Route]:
    return routes_at(ctx, {
        "/api/memories/merge": {"POST": merge},
        "/api/memories/{memory_id}/duplicates": {"GET": duplicates},
    })  # fmt: skip


def duplicates(call: Call) -> dict[str, Any]:
    memory_id = call.path["memory_id"]
    twins = call.services.merge.twins(call.on_memory(memory_id), memory_id)
    return {
        "duplicates": [
            {"memory_id": t.memory.id, "title": t.memory.title, "content": t.memory.content[:SHOWN],
             "match": t.match, "similarity": t.similarity, "version": t.memory.version}
            for t in twins
        ]
    }  # fmt: skip


def merge(call: Call) -> dict[str, Any]:
    """``{"keep": id, "merge": id, "versions"?: [keep's, merge's], "reason"?}``."""
    body = call.json_object()
    unknown = sorted(str(k) for k in body if k not in MERGE_KEYS)
    if unknown:
        raise ValidationFailed.single(unknown[0][:60], "unknown_field", f"Send only {', '.join(MERGE_KEYS)}.")
    ids = {}
    for name in ("keep", "merge"):
        value = body.get(name)
        if not isinstance(value, str) or not value.strip() or len(value) > 200 or "\x00" in value:
            raise ValidationFailed.single(name, "type", f"{name} is the id of one of your memories.")
        ids[name] = value.strip()
    versions = body.get("versions")
    if versions is not None:
        whole = isinstance(versions, list) and len(versions) == 2
        if not whole or not all(isinstance(v, int) and not isinstance(v, bool) for v in versions):
            raise ValidationFailed.single("versions", "type", "versions is [the kept memory's, the merged one's].")
    acting = call.on_memory(ids["keep"], "writer")
    merged = call.services.merge.merge(
        acting, ids["keep"], ids["merge"], versions=tuple(versions) if versions else None,
        reason=body.get("reason"),
    )  # fmt: skip
    return merged.as_dict()
