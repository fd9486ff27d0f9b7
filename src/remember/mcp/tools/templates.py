"""MCP tools for memory templates: create, list, get, update, delete, copy, validate, analytics."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context
from pydantic import Field

from remember.mcp.state import caller_of, services_of
from remember.mcp.tools.hints import READS, WRITES, Tools, hints
from remember.mcp.tools.params import Offset, Spaces, TemplateId
from remember.schemas.templates import (
    TemplateCopyOut,
    TemplateDeletionOut,
    TemplateDetailOut,
    TemplatePageOut,
    TemplateUpdateOut,
    ValidationOut,
)
from remember.service.drafts import TemplatePatch

Fields = Annotated[
    list[dict[str, Any]],
    Field(
        description="Each {name, type (string text number integer boolean date datetime enum array object "
        "computed), required, default, description, options, item_type, fields, formula, validation {pattern min "
        "max min_length max_length min_items max_items error_message}, conditional {show_if}, kind (for prefill: "
        "person, money, date...)}."
    ),
]
Identity = Annotated[list[str] | None, Field(description="Fields naming what a memory is about.")]
Metric = Literal[
    "usage_count",
    "average_completion_rate",
    "most_common_values",
    "field_usage_statistics",
    "compliance_rate",
    "acceptance_rate",
]


def remember_create_template(
    ctx: Context,
    template_name: Annotated[str, Field(description="Unique among yours, e.g. 'Book Review'.")],
    fields: Fields,
    description: str = "",
    parent_template_id: Annotated[str | None, Field(description="Inherit this template's fields.")] = None,
    category: Annotated[str, Field(description="e.g. 'personal', 'work'.")] = "general",
    tags: Annotated[list[str] | None, Field(description="Labels for the template.")] = None,
    auto_apply: Annotated[bool, Field(description="Suggest it on its triggers.")] = False,
    trigger_keywords: Annotated[
        list[str] | None, Field(description="Phrases that suggest it, e.g. ['finished reading'].")
    ] = None,
    trigger_context: Annotated[
        dict[str, Any] | None,
        Field(description='Context that suggests it, e.g. {"time_of_day": ["dinner"]}.'),
    ] = None,
    examples: Annotated[
        list[str] | None,
        Field(description="Things a user might say that it fits."),
    ] = None,
    weight: Annotated[float, Field(description="Importance, 0 to 1.")] = 0.5,
    trust: Annotated[float, Field(description="Access level, 0 to 1.")] = 0.0,
    identity: Identity = None,
    space: Annotated[str | None, Field(description="Shared by its members.")] = None,
) -> TemplateCopyOut:
    """Create a memory template: typed fields for a kind of thing the user captures the same way
    every time, when no built-in fits (remember_copy_template adapts one).

    Example: {"template_name": "Book Review", "fields": [{"name": "title", "type": "string",
    "required": true}, {"name": "rating", "type": "number", "validation": {"min": 1, "max": 5}}]}
    """
    raw = {
        "name": template_name,
        "description": description,
        "fields": fields,
        "parent_template_id": parent_template_id,
        "category": category,
        "tags": tags or [],
        "auto_apply": auto_apply,
        "trigger_keywords": trigger_keywords or [],
        "trigger_context": trigger_context or {},
        "examples": examples or [],
        "weight": weight,
        "trust": trust,
        "identity": identity or [],
    }
    services = services_of(ctx)
    view = services.templates.create(services.spaces.administering(caller_of(ctx), space), raw)
    return TemplateCopyOut.of(view)


def remember_list_templates(
    ctx: Context,
    include_default: Annotated[bool, Field(description="The built-in ones.")] = True,
    include_user: Annotated[bool, Field(description="Your own.")] = True,
    category: str | None = None,
    tags: Annotated[list[str] | None, Field(description="Only with any of these tags.")] = None,
    sort_by: Literal["usage_count", "name", "recent"] = "usage_count",
    limit: Annotated[int, Field(description="Page size, 1 to 100.")] = 50,
    offset: Offset = 0,
    spaces: Spaces = None,
) -> TemplatePageOut:
    """List the templates you can use: built-in, yours and your spaces'.

    Example: {"category": "personal", "limit": 10}
    """
    services, caller = services_of(ctx), caller_of(ctx)
    views, total = services.templates.list_templates(
        caller, include_default=include_default, include_user=include_user, category=category, tags=tags,
        sort_by=sort_by, limit=limit, offset=offset, readers=services.spaces.reading(caller, spaces),
    )  # fmt: skip
    return TemplatePageOut.of(views, total, limit, offset)


def remember_get_template(ctx: Context, template_id: TemplateId) -> TemplateDetailOut:
    """Get a template: its definition, every field (inherited too) and its JSON Schema; read it
    before creating a memory with it."""
    services = services_of(ctx)
    return TemplateDetailOut.of(
        services.templates.get(services.spaces.on_template(caller_of(ctx), template_id), template_id)
    )


def remember_update_template(
    ctx: Context,
    template_id: TemplateId,
    template_name: str | None = None,
    description: str | None = None,
    parent_template_id: str | None = None,
    category: str | None = None,
    tags: list[str] | None = None,
    auto_apply: bool | None = None,
    trigger_keywords: list[str] | None = None,
    trigger_context: dict[str, Any] | None = None,
    examples: list[str] | None = None,
    weight: float | None = None,
    trust: float | None = None,
    identity: list[str] | None = None,
    add_fields: Annotated[list[dict[str, Any]] | None, Field(description="Fields to add (as in create).")] = None,
    update_fields: Annotated[
        list[dict[str, Any]] | None,
        Field(description="Each: a field name and attributes to change."),
    ] = None,
    remove_fields: Annotated[list[str] | None, Field(description="Names of fields to remove.")] = None,
    version: Annotated[
        str | float | None,
        Field(description="e.g. '1.1' (default: bumped)."),
    ] = None,
) -> TemplateUpdateOut:
    """Change one of your templates (copy a built-in first): what is given replaces it, as in
    remember_create_template. The version is bumped; its memories keep their fields and are re-checked.

    Example: {"template_id": "tpl_book_1a2b", "add_fields": [{"name": "isbn", "type": "string"}]}
    """
    patch = TemplatePatch(
        name=template_name, description=description, parent_template_id=parent_template_id, category=category,
        tags=tags, auto_apply=auto_apply, trigger_keywords=trigger_keywords, trigger_context=trigger_context,
        examples=examples, weight=weight, trust=trust, identity=identity, add_fields=add_fields or [],
        update_fields=update_fields or [], remove_fields=remove_fields or [], version=version,
    )  # fmt: skip
    services = services_of(ctx)
    caller = services.spaces.on_template(caller_of(ctx), template_id, need="admin")
    view, rechecked = services.templates.update(caller, template_id, patch)
    version = view.definition.version
    return TemplateUpdateOut(template_id=view.definition.id, version=version, rechecked_memories=rechecked)


def remember_delete_template(
    ctx: Context,
    template_id: TemplateId,
    delete_derived_memories: Annotated[bool, Field(description="Also move its memories to the trash.")] = False,
) -> TemplateDeletionOut:
    """Delete one of your templates (not one others inherit from); its memories keep their fields.

    Example: {"template_id": "tpl_book_1a2b", "delete_derived_memories": true}
    """
    services = services_of(ctx)
    caller = services.spaces.on_template(caller_of(ctx), template_id, need="admin")
    deleted, trashed = services.templates.delete(caller, template_id, delete_derived_memories=delete_derived_memories)
    kept = "moved to the trash" if delete_derived_memories else "kept with their fields"
    return TemplateDeletionOut(
        template_id=deleted, trashed_memories=trashed, message=f"Template deleted; its memories were {kept}."
    )


def remember_copy_template(
    ctx: Context,
    template_id: TemplateId,
    template_name: Annotated[str | None, Field(description="Name of the copy (default: '<name> (copy)').")] = None,
    space: Annotated[str | None, Field(description="Copy into this space.")] = None,
) -> TemplateCopyOut:
    """Copy a template into a new one of yours (or `space`'s) to change.

    Example: {"template_id": "builtin:book_review", "template_name": "My Book Review"}
    """
    services, caller = services_of(ctx), caller_of(ctx)
    source = services.spaces.on_template(caller, template_id)
    into = services.spaces.administering(caller, space)
    return TemplateCopyOut.of(services.templates.copy(into, template_id, name=template_name, source=source))


def remember_validate_memory(
    ctx: Context,
    template_id: TemplateId,
    content: Annotated[dict[str, Any], Field(description="The fields to check, as an object.")],
) -> ValidationOut:
    """Check fields against a template without storing: every error, completion, normalized form.

    Example: {"template_id": "builtin:book_review", "content": {"title": "Dune", "rating": 6}}
    """
    services = services_of(ctx)
    _, result = services.templates.validate(
        services.spaces.on_template(caller_of(ctx), template_id), template_id, content
    )
    return ValidationOut.model_validate(result.as_dict())


def remember_template_analytics(
    ctx: Context,
    template_id: TemplateId,
    metrics: Annotated[list[Metric] | None, Field(description="Only these figures (default: all).")] = None,
) -> dict[str, Any]:
    """How a template is used: usage, completion and compliance rates, common values, per-field
    statistics, how often it was suggested and applied.

    Example: {"template_id": "builtin:book_review", "metrics": ["usage_count"]}
    """
    services = services_of(ctx)
    acting = services.spaces.on_template(caller_of(ctx), template_id)
    figures = services.suggestions.analytics(acting, template_id).as_dict()
    if metrics:
        keep = {"template_id", "name", "version", "last_used", "memory_count", *metrics}
        if "acceptance_rate" in metrics:
            keep |= {"suggested", "applied_after_suggestion", "smoothed_acceptance_rate"}
        figures = {k: v for k, v in figures.items() if k in keep}
    return figures


TOOLS: Tools = [
    (remember_create_template, WRITES),
    (remember_list_templates, READS),
    (remember_get_template, READS),
    (remember_update_template, WRITES),
    (remember_delete_template, hints(read_only=False, destructive=True, idempotent=False)),
    (remember_copy_template, WRITES),
    (remember_validate_memory, READS),
    (remember_template_analytics, READS),
]
