"""Looking after many memories at once, and for good: ``POST /api/memories/bulk`` tags, untags or
trashes a selection, ``POST /api/memories/apply-template`` applies a template to one, ``GET
/api/memories/{id}/erasure`` says what erasing a memory would take,
and ``DELETE /api/memories/{id}?permanent=true`` erases a memory from the trash with its history
(``memories.delete`` hands that case here).

A selection is checked whole before anything changes: one id that is not the caller's memory
(or above its trust) answers 404 and nothing is changed. The changes then go one memory at a
time, through the same service as ``remember_update_memory`` and ``remember_delete_memory``.
"""

from __future__ import annotations

from typing import Any

from starlette.routing import Route

from remember.caller import Caller
from remember.errors import RememberError, ValidationFailed
from remember.models import Memory
from remember.schemas.memories import DeletionOut
from remember.web.context import WebContext
from remember.web.responses import Call, routes_at

MAX_SELECTION = 100
KEYS = frozenset({"memory_ids", "add_tags", "remove_tags", "trash", "reason"})
APPLY_KEYS = frozenset({"memory_ids", "template_id", "reason"})


def routes(ctx: WebContext) -> list[Route]:
    return routes_at(ctx, {
        "/api/memories/bulk": {"POST": bulk},
        "/api/memories/apply-template": {"POST": apply_template},
        "/api/memories/{memory_id}/erasure": {"GET": erasure},
    })  # fmt: skip


def erasure(call: Call) -> dict[str, Any]:
    """What erasing the memory for good would take: its history and its place in relationships."""
    caller = call.on_memory(call.path["memory_id"])
    memory = call.services.memories.get(caller, call.path["memory_id"], record_access=False)
    return {
        "memory_id": memory.id,
        "in_trash": memory.is_deleted,
        "history": len(call.services.memories.history(caller, memory.id)),
        "relationships": call.services.relationships.held_by(caller, memory.id),
    }


def erase(call: Call) -> DeletionOut:
    """Erase a memory in the trash for good: it, its history, and its place in its relationships."""
    memories = call.services.memories
    caller = call.on_memory(call.path["memory_id"], "writer")
    current = memories.get(caller, call.path["memory_id"], record_access=False)
    if not current.is_deleted:
        raise ValidationFailed.single(
            "permanent", "not_in_trash", "Only a memory in the trash is erased for good: move it to the trash first."
        )
    gone = memories.delete(caller, current.id, permanent=True)
    return DeletionOut(memory_id=gone.memory_id, permanent=True, message="Erased for good, with its history.")


def bulk(call: Call) -> dict[str, Any]:
    """``{"memory_ids": [...], "add_tags"?: [...], "remove_tags"?: [...], "trash"?: true, "reason"?}``."""
    body = call.json_object()
    unknown = sorted(str(k) for k in body if k not in KEYS)
    if unknown:
        raise ValidationFailed.single(unknown[0], "unknown_field", f"Send only {', '.join(sorted(KEYS))}.")
    add, remove = _tags(body, "add_tags"), _tags(body, "remove_tags")
    trash = body.get("trash", False)
    if not isinstance(trash, bool):
        raise ValidationFailed.single("trash", "type", "trash is true or false.", trash)
    if not (add or remove or trash):
        raise ValidationFailed.single("memory_ids", "nothing", "Say what to do: add_tags, remove_tags or trash.")
    reason = body.get("reason")
    if reason is not None and not isinstance(reason, str):
        raise ValidationFailed.single("reason", "type", "reason is a text.", reason)
    selected = _selected(call, _ids(body))
    changed = sum(_apply(call, acting, m, add, remove, trash, reason) for acting, m in selected)
    return {"selected": len(selected), "changed": changed}


def apply_template(call: Call) -> dict[str, Any]:
    """``{"memory_ids": [...], "template_id", "reason"?}``: the template applied to each memory, its fields read
    from the memory's text (``remember_apply_template`` without fields); per memory what applied and what failed."""
    body = call.json_object()
    unknown = sorted(str(k) for k in body if k not in APPLY_KEYS)
    if unknown:
        raise ValidationFailed.single(unknown[0][:60], "unknown_field", f"Send only {', '.join(sorted(APPLY_KEYS))}.")
    template_id = body.get("template_id")
    if not isinstance(template_id, str) or not template_id.strip() or "\x00" in template_id:
        raise ValidationFailed.single("template_id", "type", "template_id is the id of the template to apply.")
    reason = body.get("reason")
    if reason is not None and not isinstance(reason, str):
        raise ValidationFailed.single("reason", "type", "reason is a text.", reason)
    selected = _selected(call, _ids(body))
    template = call.services.templates.view_of(call.caller).require(template_id.strip())  # before any change
    results = [_apply_one(call, acting, m, template.id, reason) for acting, m in selected]
    applied = sum(r["status"] == "applied" for r in results)
    return {"selected": len(selected), "applied": applied, "template_id": template.id, "results": results}


def _selected(call: Call, ids: list[str]) -> list[tuple[Caller, Memory]]:
    """Each memory chosen, with the caller in the space that holds it (a writer there: every action changes)."""
    acting = [call.on_memory(i, "writer") for i in ids]
    return [(a, call.services.memories.get(a, i, record_access=False)) for a, i in zip(acting, ids, strict=True)]


def _apply_one(call: Call, acting: Caller, memory: Memory, template_id: str, reason: str | None) -> dict[str, Any]:
    try:
        done = call.services.applier.apply_template(acting, memory.id, template_id, reason=reason)
    except RememberError as problem:
        return {"memory_id": memory.id, "status": "failed", "message": problem.message, **_problems(problem)}
    status = "applied" if done.version != memory.version else "unchanged"
    return {"memory_id": memory.id, "status": status, "version": done.version,
            "template_compliance": done.template_compliance,
            "problems": [dict(e) for e in done.template_validation_errors]}  # fmt: skip


def _problems(problem: RememberError) -> dict[str, Any]:
    if isinstance(problem, ValidationFailed):
        return {"errors": [e.as_dict() for e in problem.errors[:50]]}
    return {}


def _apply(
    call: Call, acting: Caller, memory: Memory, add: list[str], remove: list[str], trash: bool, reason: str | None
) -> bool:
    tags = [t for t in memory.tags if t not in remove] + [t for t in add if t not in memory.tags]
    changed = False
    if tags != list(memory.tags):
        call.services.memories.change(acting, memory.id, {"tags": tags}, reason=reason, expected_version=memory.version)
        changed = True
    if trash and not memory.is_deleted:
        call.services.memories.delete(acting, memory.id, reason=reason)
        changed = True
    return changed


def _ids(body: dict[str, Any]) -> list[str]:
    ids = body.get("memory_ids")
    if not isinstance(ids, list) or not ids or not all(isinstance(i, str) for i in ids):
        raise ValidationFailed.single("memory_ids", "type", "Send memory_ids: the ids of the memories chosen.")
    if len(ids) > MAX_SELECTION:
        raise ValidationFailed.single("memory_ids", "size", f"Choose at most {MAX_SELECTION} memories at once.")
    return list(dict.fromkeys(ids))


def _tags(body: dict[str, Any], key: str) -> list[str]:
    given = body.get(key, [])
    if not isinstance(given, list) or not all(isinstance(t, str) and t.strip() for t in given):
        raise ValidationFailed.single(key, "type", f"{key} is a list of tags (texts).", given)
    return [t.strip() for t in given]
