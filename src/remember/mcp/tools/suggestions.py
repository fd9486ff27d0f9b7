"""MCP tools for template suggestions: which template fits, and applying one to a stored memory."""

from __future__ import annotations

import dataclasses
from typing import Annotated, Any

from mcp.server.mcpserver import Context
from pydantic import Field

from remember.mcp.state import caller_of, member_of, services_of
from remember.mcp.tools.hints import WRITES, Tools
from remember.mcp.tools.params import MemoryId, Reason, Space
from remember.schemas.suggestions import AppliedOut, InferredOut, SuggestionOut, SuggestionsOut


def remember_suggest_templates(
    ctx: Context,
    content: Annotated[str, Field(description="What the user said or wants to remember.")],
    context: Annotated[
        dict[str, Any] | None,
        Field(
            description="location_present, participants_present, time_of_day (morning lunch afternoon "
            "dinner evening night), day_of_week, conversation_type, local_time (ISO 8601)."
        ),
    ] = None,
    limit: Annotated[int | None, Field(description="1 to 10 (default: preference).")] = None,
    space: Space = None,
) -> SuggestionsOut:
    """Which templates fit what the user said, with the fields read from it, to offer a
    structured capture (with `space`: among its templates and the built-ins).

    Example: {"content": "Great sushi at Nobu, 5 stars", "context": {"time_of_day": "dinner"}}
    """
    services = services_of(ctx)
    acting = caller_of(ctx) if space is None else services.spaces.writing(member_of(ctx), space)
    found = services.suggestions.suggest(acting, content, context=context, limit=limit)
    return SuggestionsOut(suggestions=[SuggestionOut.model_validate(s.as_dict()) for s in found])


def remember_apply_template(
    ctx: Context,
    memory_id: MemoryId,
    template_id: Annotated[str, Field(description="The template to apply.")],
    structured_content: Annotated[
        dict[str, Any] | None,
        Field(description="Its fields (default: those read from the text)."),
    ] = None,
    reason: Reason = None,
) -> AppliedOut:
    """Turn a stored memory into a templated one: fields validated, text unchanged.

    Example: {"memory_id": "0b6f...", "template_id": "builtin:restaurant_review",
    "structured_content": {"restaurant_name": "Nobu", "rating": 5}}
    """
    services = services_of(ctx)
    caller = services.spaces.on_memory(member_of(ctx), memory_id, need="writer")
    services.spaces.require_template_here(caller, template_id)
    updated = services.applier.apply_template(caller, memory_id, template_id, structured_content, reason=reason)
    return AppliedOut.of(updated)


def remember_infer_templates(
    ctx: Context,
    accept: Annotated[str | None, Field(description="A proposal id to create.")] = None,
    apply: Annotated[bool, Field(description="Also apply it to its memories.")] = False,
    space: Space = None,
) -> InferredOut:
    """Templates proposed from the user's untemplated memories (with `space`: a shared space's, for its
    admins), and fields templates lack; accept one only when the user agrees.

    Example: {"accept": "infer-3f2a", "apply": true}
    """
    services = services_of(ctx)
    acting = caller_of(ctx) if space is None else services.spaces.administering(member_of(ctx), space)
    if accept is None:
        found = services.inference.propose(acting)
        return InferredOut(proposals=[p.as_dict() for p in found.proposals],
                           field_additions=[dataclasses.asdict(a) for a in found.additions])  # fmt: skip
    done = services.inference.accept(acting, accept, apply=apply)
    return InferredOut(proposals=[], field_additions=[], created_template_id=done.template_id,
                       applied=done.applied, skipped=done.skipped)  # fmt: skip


# Not read-only: what is shown is logged, and the user's later choices are learned from it.
TOOLS: Tools = [
    (remember_suggest_templates, WRITES),
    (remember_apply_template, WRITES),
    (remember_infer_templates, WRITES),
]
