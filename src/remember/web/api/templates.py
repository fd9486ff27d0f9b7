"""The templates pages' endpoints: the library and the user's own, one template, its editor's checks.

    GET    /api/templates                      ?search= origin=all|builtin|mine category= tag= sort_by= limit= offset=
                                               space= (repeated; none: every space of the caller's)
    POST   /api/templates                      {"definition": YAML/JSON text or object}       create ?space=
    POST   /api/templates/check                {"definition", "template_id"?, "write_as"?}     check, store nothing
    POST   /api/templates/check-content        {"content", "template_id"? | "definition"?}     check sample content
    GET    /api/templates/kinds                the field types, and the kinds of value each may declare
    GET    /api/templates/{id}                 fields, inheritance, JSON Schema, the editable definition
    PUT    /api/templates/{id}                 {"definition", "base_version"?}                 replace (a new version)
    DELETE /api/templates/{id}                 ?with_memories=true moves its memories to the trash
    POST   /api/templates/{id}/copy            {"name"?}                                      ?space= (into)
    GET    /api/templates/{id}/versions        stored versions, newest first, with what each changed
    GET    /api/templates/{id}/memories        ?compliance=all|valid|invalid limit= offset=

Every write goes through ``TemplateService`` as ``remember_*_template`` does, so the engine
checks it the same way; a definition is YAML or JSON text (as ``remember template create``
reads a file) or a JSON object. The checks answer ``{"valid": false, "message", "errors"}``
rather than an error status: a draft with mistakes is the normal case while typing. A check
also answers the definition it read (``document``) and, asked with ``write_as`` (yaml or json),
that definition written as text: the editor's form and text views are one definition.

A template of a shared space is read, checked and changed in its space (``SpaceService.on_template``): any
member reads it, its admins change it; one is created or copied into the space ``space`` names (its admins
only; none: the personal space). A template's page says whether the caller may change it, and why not.
"""

from __future__ import annotations

from typing import Any

from starlette.routing import Route

from remember.caller import Caller
from remember.documents import FORMATS, parse_document, write_document
from remember.errors import AccessDenied, ValidationFailed
from remember.schemas.templates import TemplateCopyOut, TemplateDeletionOut, TemplatePageOut, ValidationOut
from remember.web.api.template_views import detail, kind_choices, labelled, memory_rows, version_rows
from remember.web.context import WebContext
from remember.web.responses import Call, routes_at

MAX_DEFINITION = 200_000  # characters of a definition's text
MAX_CONTENT = 1_000_000  # characters of sample content's text
ORIGINS = {"all": (True, True), "builtin": (True, False), "mine": (False, True)}


def routes(ctx: WebContext) -> list[Route]:
    return routes_at(ctx, {
        "/api/templates": {"GET": list_templates, "POST": create},
        "/api/templates/check": {"POST": check},
        "/api/templates/check-content": {"POST": check_content},
        "/api/templates/kinds": {"GET": kinds},
        "/api/templates/{template_id}": {"GET": get, "PUT": replace, "DELETE": delete},
        "/api/templates/{template_id}/copy": {"POST": copy},
        "/api/templates/{template_id}/versions": {"GET": versions},
        "/api/templates/{template_id}/memories": {"GET": memories},
    })  # fmt: skip


def list_templates(call: Call) -> TemplatePageOut:
    origin = call.text("origin", "all") or "all"
    if origin not in ORIGINS:
        raise ValidationFailed.single("origin", "invalid", "origin is all, builtin or mine.", origin)
    include_default, include_user = ORIGINS[origin]
    limit, offset = call.number("limit", 50, 1, 100), call.number("offset", 0, 0, 1_000_000)
    views, total = call.services.templates.list_templates(
        call.caller, include_default=include_default, include_user=include_user, category=call.text("category"),
        tags=call.query_lists.get("tag") or None, sort_by=call.text("sort_by", "name") or "name",
        limit=limit, offset=offset, search=call.text("search"), readers=call.reading(),
    )  # fmt: skip
    return TemplatePageOut.of(views, total, limit, offset)


def get(call: Call) -> dict[str, Any]:
    template_id = call.path["template_id"]
    found = detail(*call.services.templates.ancestry(_reading(call, template_id), template_id))
    return found | _changeable(call, template_id, found["is_default"])


def _changeable(call: Call, template_id: str, builtin: bool) -> dict[str, Any]:
    """Whether the caller may change the template (``editable``), and if not, why (``read_only``)."""
    if builtin:
        return {"editable": False, "read_only": f"{template_id} is a built-in template: copy it to change it."}
    try:
        call.services.spaces.on_template(call.caller, template_id, need="admin")
    except AccessDenied as refused:
        return {"editable": False, "read_only": refused.message}
    return {"editable": True}


def create(call: Call) -> TemplateCopyOut:
    into = call.services.spaces.administering(call.caller, call.text("space"))
    return TemplateCopyOut.of(call.services.templates.create(into, _definition(call.json_object())))


def replace(call: Call) -> dict[str, Any]:
    body = call.json_object()
    base = body.get("base_version")
    if base is not None and not isinstance(base, str):
        raise ValidationFailed.single("base_version", "type", "base_version is the version you edited, as text.")
    template_id = call.path["template_id"]
    view, rechecked, changes = call.services.templates.replace(
        _changing(call, template_id), template_id, _definition(body), base_version=base
    )
    return {"id": view.id, "version": view.definition.version, "rechecked_memories": rechecked, "changes": changes}


def delete(call: Call) -> TemplateDeletionOut:
    wanted = call.flag("with_memories")
    template_id = call.path["template_id"]
    deleted, trashed = call.services.templates.delete(
        _changing(call, template_id), template_id, delete_derived_memories=wanted
    )
    kept = "moved to the trash" if wanted else "kept with their fields"
    message = f"Template deleted; its memories were {kept}."
    return TemplateDeletionOut(template_id=deleted, trashed_memories=trashed, message=message)


def copy(call: Call) -> TemplateCopyOut:
    body = call.json_object() if call.body is not None else {}
    name = body.get("name")
    if name is not None and not isinstance(name, str):
        raise ValidationFailed.single("name", "type", "name is the copy's name, as text.")
    template_id = call.path["template_id"]
    source = _reading(call, template_id)
    into = call.services.spaces.administering(call.caller, call.text("space"))
    return TemplateCopyOut.of(call.services.templates.copy(into, template_id, name=name or None, source=source))


def check(call: Call) -> dict[str, Any]:
    body = call.json_object()
    replacing = _template_id(body)
    write_as = _write_as(body)
    try:
        raw = _definition(body)
    except ValidationFailed as problem:
        return _problems(problem, {})
    read: dict[str, Any] = {"document": raw}
    if write_as is not None:
        read["text"] = write_document(raw, write_as)
    try:
        resolved = call.services.templates.check(_drafting(call, replacing), raw, replacing=replacing)
    except ValidationFailed as problem:
        return _problems(problem, read)
    from remember.templates import to_json_schema

    return {
        "valid": True,
        "name": resolved.name,
        "resolved_fields": [labelled(f.as_dict()) for f in resolved.fields],
        "ancestor_ids": list(resolved.ancestor_ids),
        "json_schema": to_json_schema(resolved),
        **read,
    }


def _problems(problem: ValidationFailed, read: dict[str, Any]) -> dict[str, Any]:
    return {"valid": False, "message": problem.message, "errors": [e.as_dict() for e in problem.errors], **read}


def kinds(_call: Call) -> dict[str, Any]:
    """What the editor offers in a field's type, item type and kind lists."""
    return kind_choices()


def check_content(call: Call) -> dict[str, Any]:
    body = call.json_object()
    if "content" not in body:
        raise ValidationFailed.single("content", "missing", "Send the sample content to check as content.")
    content = body["content"]
    if isinstance(content, str):
        content = parse_document(content, field="content", what="The sample content", limit=MAX_CONTENT)
    templates, template_id = call.services.templates, _template_id(body)
    acting = _drafting(call, template_id)
    if "definition" in body:
        _, result = templates.validate_draft(acting, _definition(body), content, replacing=template_id)
    elif template_id is not None:
        _, result = templates.validate(acting, template_id, content)
    else:
        raise ValidationFailed.single("template_id", "missing", "Name the template (template_id) or send a definition.")
    out = ValidationOut.model_validate(result.as_dict()).model_dump(mode="json", exclude_none=True)
    return {**out, "hidden_fields": list(result.hidden)}


def versions(call: Call) -> dict[str, Any]:
    template_id = call.path["template_id"]
    definition, stored = call.services.templates.versions(_reading(call, template_id), template_id)
    return {"template_id": definition.id, "is_default": definition.is_default,
            "versions": version_rows(definition, stored)}  # fmt: skip


def memories(call: Call) -> dict[str, Any]:
    wanted = call.text("compliance", "all") or "all"
    if wanted not in ("all", "valid", "invalid"):
        raise ValidationFailed.single("compliance", "invalid", "compliance is all, valid or invalid.", wanted)
    limit, offset = call.number("limit", 20, 1, 100), call.number("offset", 0, 0, 1_000_000)
    acting = _reading(call, call.path["template_id"])
    view = call.services.templates.get(acting, call.path["template_id"])
    listed = call.services.memories

    def count(compliant: bool) -> int:
        return listed.list(acting, filters={"template_id": view.id, "template_compliance": compliant}, limit=1).total

    chosen: dict[str, Any] = {"template_id": view.id}
    if wanted != "all":
        chosen["template_compliance"] = wanted == "valid"
    page = listed.list(acting, filters=chosen, limit=limit, offset=offset)
    return {
        "template_id": view.id,
        "version": view.definition.version,
        "counts": {"valid": count(True), "invalid": count(False)},
        "memories": memory_rows(view.resolved, page.items, call.services.templates.clock()),
        "total": page.total,
        "limit": limit,
        "offset": offset,
        "has_more": page.has_more,
    }


def _reading(call: Call, template_id: str) -> Caller:
    """The caller in the space of the template ``template_id`` (any member reads it)."""
    return call.services.spaces.on_template(call.caller, template_id)


def _changing(call: Call, template_id: str) -> Caller:
    """The caller in the space of the template ``template_id``, an admin there."""
    return call.services.spaces.on_template(call.caller, template_id, need="admin")


def _drafting(call: Call, template_id: str | None) -> Caller:
    """Where a draft is checked: the space of the template it replaces, else the space ``space`` names (a member
    checks a draft there; only its admins store one), else the personal space."""
    if template_id is not None:
        return _reading(call, template_id)
    space = call.text("space")
    return (
        call.services.spaces.reading(call.caller, [space])[0] if space else call.services.spaces.personal(call.caller)
    )


def _definition(body: dict[str, Any]) -> Any:
    """The body's definition: parsed when it is YAML/JSON text, as given when it is an object."""
    if "definition" not in body or body["definition"] in (None, ""):
        raise ValidationFailed.single("definition", "missing", "Send the template definition (YAML or JSON).")
    raw = body["definition"]
    if isinstance(raw, str):
        raw = parse_document(raw, field="definition", what="The definition", limit=MAX_DEFINITION)
    if not isinstance(raw, dict):
        raise ValidationFailed.single(
            "definition", "type", "The definition must be one template: an object with name and fields."
        )
    return raw


def _template_id(body: dict[str, Any]) -> str | None:
    given = body.get("template_id")
    if given is None or given == "":
        return None
    if not isinstance(given, str):
        raise ValidationFailed.single("template_id", "type", "template_id is a template's id, as text.")
    return given


def _write_as(body: dict[str, Any]) -> str | None:
    given = body.get("write_as")
    if given is None or given in FORMATS:
        return given
    raise ValidationFailed.single("write_as", "options", "write_as is yaml or json.", given)
