"""Templates as MCP resources and prompts, listed per user.

Each template the user can use is two resources, ``remember://templates/{id}``
(its definition with resolved fields, JSON) and ``remember://templates/{id}/schema``
(the JSON Schema of its ``structured_content``), and one prompt,
``capture_<id>``, that walks a model through capturing that kind of memory.

Reading a resource is the SDK's own: the two URIs are resource templates registered
on the server (``add_template_resources``). Listing them, and the prompts, is not: the
SDK lists what was registered, the same for every client, while a user's templates are
the user's own; the server asks ``resources``, ``prompts`` and ``prompt`` for them.
This module is imported at start, so the template engine and the result models are
imported only when a template is read.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError
from mcp_types import GetPromptResult, Prompt, PromptArgument, PromptMessage, Resource, TextContent

from remember.caller import Caller
from remember.errors import NotFound, RememberError
from remember.mcp.state import caller_of, services_of

if TYPE_CHECKING:
    from remember.service import Services
    from remember.service.templates import TemplateView
    from remember.templates import FieldDef, TemplateDefinition

SCHEME = "remember://templates/"
PROMPT_PREFIX = "capture_"
JSON = "application/json"
SCHEMA = "application/schema+json"


def add_template_resources(server: MCPServer[Any]) -> None:
    """Register the two template resources on ``server`` (read for the request's caller)."""
    definition = server.resource(
        SCHEME + "{template_id}", name="template", title="A memory template",
        description="A template's definition, resolved fields and usage.", mime_type=JSON,
    )  # fmt: skip
    schema = server.resource(
        SCHEME + "{template_id}/schema", name="template_schema", title="A template's JSON Schema",
        description="The JSON Schema of a template's fields.", mime_type=SCHEMA,
    )  # fmt: skip
    definition(template_definition)
    schema(template_schema)


def template_definition(ctx: Context, template_id: str) -> str:
    return definition_text(_view(ctx, template_id))


def template_schema(ctx: Context, template_id: str) -> str:
    return schema_text(_view(ctx, template_id))


def definition_text(view: TemplateView) -> str:
    """A template's definition, resolved fields and usage (JSON)."""
    from remember.schemas.templates import TemplateDetailOut

    return TemplateDetailOut.of(view).model_dump_json(indent=2)


def schema_text(view: TemplateView) -> str:
    """The JSON Schema of a template's fields."""
    from remember.templates import to_json_schema

    return json.dumps(to_json_schema(view.resolved), indent=2)


def _view(ctx: Context, template_id: str) -> TemplateView:
    services = services_of(ctx)
    try:
        return services.templates.get(services.spaces.on_template(caller_of(ctx), template_id), template_id)
    except NotFound as exc:
        raise ResourceNotFoundError(str(exc)) from exc
    except RememberError as exc:
        raise ResourceError(str(exc)) from exc


def _usable(services: Services, caller: Caller) -> list[tuple[Caller, TemplateDefinition]]:
    """Each template the caller can use (its own, its spaces', the built-ins), with the caller acting where it is."""
    return services.templates.every(services.spaces.reading(caller, None))


def resources(services: Services, caller: Caller) -> list[Resource]:
    out: list[Resource] = []
    for _, definition in _usable(services, caller):
        out.append(
            Resource(
                uri=f"{SCHEME}{definition.id}",
                name=definition.id,
                title=f"{definition.name} template",
                description=definition.description or None,
                mime_type=JSON,
            )
        )
        out.append(
            Resource(
                uri=f"{SCHEME}{definition.id}/schema",
                name=f"{definition.id}/schema",
                title=f"{definition.name}: JSON Schema of its fields",
                mime_type=SCHEMA,
            )
        )
    return out


def prompt_name(template_id: str) -> str:
    return PROMPT_PREFIX + template_id.replace(":", "_")


def prompts(services: Services, caller: Caller) -> list[Prompt]:
    return [
        Prompt(
            name=prompt_name(d.id),
            title=f"Capture a {d.name}",
            description=f"Walk through capturing a {d.name} memory. {d.description}".strip(),
            arguments=[
                PromptArgument(name="text", description="What the user said about it, if anything.", required=False)
            ],
        )
        for _, d in _usable(services, caller)
    ]


def prompt(services: Services, caller: Caller, name: str, arguments: dict[str, Any] | None) -> GetPromptResult | None:
    """The capture prompt called ``name``, or None when there is no such prompt for this user."""
    if not name.startswith(PROMPT_PREFIX):
        return None
    for acting, definition in _usable(services, caller):
        if prompt_name(definition.id) == name:
            view = services.templates.get(acting, definition.id)
            text = _instructions(view, (arguments or {}).get("text"))
            return GetPromptResult(
                description=f"Capture a {definition.name}",
                messages=[PromptMessage(role="user", content=TextContent(type="text", text=text))],
            )
    return None


def _instructions(view: TemplateView, said: str | None) -> str:
    d = view.definition
    lines = [
        f"Help me remember a {d.name}." + (f" ({d.description})" if d.description else ""),
        "",
        "Its fields:",
        *(_field_line(f) for f in view.resolved.fields),
        "",
        "Ask me for any required field you cannot fill from what I said (a field that applies only when a "
        "condition holds is needed only then); leave out the optional ones I don't mention, and never invent "
        "values. Computed fields are filled in by the server.",
        f'Then call remember_create_memory with {{"template_id": "{d.id}", "content": {{...the fields...}}}}.',
        "If it answers with validation errors, fix those fields with me and call it again.",
    ]
    if said:
        lines += ["", f"What I said: {said}"]
    return "\n".join(lines)


def _field_line(field: FieldDef) -> str:
    from remember.templates import field_summary, kind_note

    about = f": {field.description}" if field.description else ""
    return f"- {field.name} ({field_summary(field)}){kind_note(field)}{about}"
