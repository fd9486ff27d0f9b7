"""Templates as MCP resources and prompts, listed per user.

Each template the user can use is two resources, ``remember://templates/{id}``
(its definition with resolved fields, JSON) and ``remember://templates/{id}/schema``
(the JSON Schema of its ``structured_content``), and one prompt,
``capture_<id>``, that walks a model through capturing that kind of memory.
"""

from __future__ import annotations

import json
from typing import Any

from mcp_types import (
    GetPromptResult,
    Prompt,
    PromptArgument,
    PromptMessage,
    Resource,
    ResourceTemplate,
    TextContent,
)

from remember.caller import Caller
from remember.schemas.templates import TemplateDetailOut
from remember.service import Services
from remember.service.templates import TemplateView
from remember.templates import FieldDef, TemplateDefinition, field_summary, kind_note, to_json_schema

SCHEME = "remember://templates/"
PROMPT_PREFIX = "capture_"
JSON = "application/json"


def resources(services: Services, caller: Caller) -> list[Resource]:
    out: list[Resource] = []
    for definition in services.templates.view_of(caller).all():
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
                mime_type="application/schema+json",
            )
        )
    return out


def resource_templates() -> list[ResourceTemplate]:
    return [
        ResourceTemplate(
            uri_template=SCHEME + "{template_id}",
            name="template",
            title="A memory template",
            description="A template's definition, resolved fields and usage.",
            mime_type=JSON,
        ),
        ResourceTemplate(
            uri_template=SCHEME + "{template_id}/schema",
            name="template_schema",
            title="A template's JSON Schema",
            mime_type="application/schema+json",
        ),
    ]


def read(services: Services, caller: Caller, uri: str) -> tuple[str, str] | None:
    """The text and MIME type of a template resource, or None when ``uri`` is not one."""
    if not uri.startswith(SCHEME):
        return None
    rest = uri[len(SCHEME) :]
    wants_schema = rest.endswith("/schema")
    template_id = rest.removesuffix("/schema")
    view = services.templates.get(caller, template_id)
    if wants_schema:
        return json.dumps(to_json_schema(view.resolved), indent=2), "application/schema+json"
    return TemplateDetailOut.of(view).model_dump_json(indent=2), JSON


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
        for d in services.templates.view_of(caller).all()
    ]


def prompt(services: Services, caller: Caller, name: str, arguments: dict[str, Any] | None) -> GetPromptResult | None:
    """The capture prompt called ``name``, or None when there is no such prompt for this user."""
    if not name.startswith(PROMPT_PREFIX):
        return None
    for definition in services.templates.view_of(caller).all():
        if prompt_name(definition.id) == name:
            view = services.templates.get(caller, definition.id)
            text = _instructions(view, (arguments or {}).get("text"))
            return GetPromptResult(
                description=f"Capture a {definition.name}",
                messages=[PromptMessage(role="user", content=TextContent(type="text", text=text))],
            )
    return None


def _instructions(view: TemplateView, said: str | None) -> str:
    d: TemplateDefinition = view.definition
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
    about = f": {field.description}" if field.description else ""
    return f"- {field.name} ({field_summary(field)}){kind_note(field)}{about}"
