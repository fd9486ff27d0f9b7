"""MCP tools for template suggestions: which template fits, and applying one to a stored memory."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from remember.mcp.registry import HasTools, ToolContext, add_tool, hints
from remember.mcp.schemas import MemoryOut, SuggestionOut, SuggestionsOut
from remember.mcp.tools.params import MemoryId, Reason


def register(server: HasTools, tc: ToolContext) -> None:
    services = tc.services

    def remember_suggest_templates(
        content: Annotated[str, Field(description="What the user said or wants to remember.")],
        context: Annotated[
            dict[str, Any] | None,
            Field(
                description="location_present, participants_present, time_of_day (morning lunch afternoon "
                "dinner evening night), day_of_week, conversation_type, local_time (ISO 8601)."
            ),
        ] = None,
        limit: Annotated[int | None, Field(description="1 to 10 (default: preference).")] = None,
    ) -> SuggestionsOut:
        """Which templates fit what the user said (a meal out, a book, a person ...), with the fields
        read from it, to offer a structured capture.

        Example: {"content": "Great sushi at Nobu yesterday, 5 stars", "context": {"time_of_day": "dinner"}}
        """
        found = services.suggestions.suggest(tc.user(), content, context=context, limit=limit)
        return SuggestionsOut(suggestions=[SuggestionOut.model_validate(s.as_dict()) for s in found])

    def remember_apply_template(
        memory_id: MemoryId,
        template_id: Annotated[str, Field(description="The template to apply.")],
        structured_content: Annotated[
            dict[str, Any] | None,
            Field(description="Its fields (default: those read from the text)."),
        ] = None,
        reason: Reason = None,
    ) -> MemoryOut:
        """Turn a stored memory into a templated one: its fields validated and kept, its text unchanged.

        Example: {"memory_id": "0b6f3c1e-...", "template_id": "builtin:restaurant_review",
        "structured_content": {"restaurant_name": "Nobu", "rating": 5}}
        """
        updated = services.apply_template(tc.user(), memory_id, template_id, structured_content, reason=reason)
        return MemoryOut.of(updated)

    # Not read-only: what is shown is logged, and the user's later choices are learned from it.
    add_tool(server, remember_suggest_templates, title="Suggest templates", hints=hints(read_only=False))
    add_tool(server, remember_apply_template, title="Apply a template to a memory", hints=hints(read_only=False))
