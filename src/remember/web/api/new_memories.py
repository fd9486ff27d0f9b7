"""The new memory form's endpoints: store a memory, check its template fields as they are typed,
and suggest templates for its text.

``POST /api/memories`` is ``remember_create_memory`` (the same draft, the same service, so the same
checks, trust included: a session cannot store a memory above its own trust; ``space`` chooses where it
goes, a writer's or an admin's space, else the preference ``spaces.default``). ``POST
/api/memories/check`` runs the template engine over the fields typed so far and answers its
problems and the fields its ``show_if`` conditions hide. ``POST /api/suggestions`` is
``remember suggest``: the templates that fit a text, with the fields read from it; a preview
while typing, so it is not logged as shown.
"""

from __future__ import annotations

from typing import Any

from starlette.routing import Route

from remember.errors import NotFound, ValidationFailed
from remember.schemas.memories import CreatedMemoryOut
from remember.service.drafts import MemoryDraft
from remember.web.context import WebContext
from remember.web.responses import Call, routes_at

MAX_SUGGESTIONS = 5


def routes(ctx: WebContext) -> list[Route]:
    return routes_at(ctx, {
        "/api/memories": {"POST": create},
        "/api/memories/check": {"POST": check},
        "/api/suggestions": {"POST": suggest},
    })  # fmt: skip


def create(call: Call) -> CreatedMemoryOut:
    """The body is the memory's fields, as remember_create_memory takes them, ``space`` among them."""
    body = dict(call.json_object())
    space = body.pop("space", None)
    if space is not None and not isinstance(space, str):
        raise ValidationFailed.single("space", "type", "space is a space's key or name, or personal.", space)
    draft = MemoryDraft.from_mapping(body)
    acting = call.services.spaces.writing_with(call.caller, space, draft.template_id)
    try:
        stored = call.services.memories.store_new(acting, draft)
    except NotFound as problem:  # its template: said at the field that names it
        raise ValidationFailed.single("template_id", "not_found", str(problem), draft.template_id) from problem
    return CreatedMemoryOut.of_stored(stored)


def check(call: Call) -> dict[str, Any]:
    """``{"template_id", "structured_content"}``: the engine's problems and the fields hidden now."""
    body = call.json_object()
    template_id, content = body.get("template_id"), body.get("structured_content", {})
    if not isinstance(template_id, str) or not template_id:
        raise ValidationFailed.single("template_id", "missing", "Name the template the fields are for (template_id).")
    acting = call.services.spaces.on_template(call.caller, template_id)  # where the template is
    _, result = call.services.templates.validate(acting, template_id, content)
    return {
        "valid": result.valid,
        "errors": [e.as_dict() for e in result.errors],
        "hidden_fields": list(result.hidden),
    }


def suggest(call: Call) -> dict[str, Any]:
    """``{"content": text, "space"}``: the templates that fit it (among ``space``'s, for a memory there, and the
    built-ins), best first, each with its name and prefill."""
    body = call.json_object()
    content, space = body.get("content"), body.get("space")
    if not isinstance(content, str):
        raise ValidationFailed.single("content", "type", "Send the memory's text as content.")
    if space is not None and not isinstance(space, str):
        raise ValidationFailed.single("space", "type", "space is a space's key or name, or personal.", space)
    acting = call.services.spaces.writing(call.caller, space) if space else call.caller
    if not content.strip():
        return {"suggestions": []}
    found = call.services.suggestions.suggest(acting, content, limit=MAX_SUGGESTIONS, record=False)
    return {"suggestions": [s.as_dict() for s in found]}
