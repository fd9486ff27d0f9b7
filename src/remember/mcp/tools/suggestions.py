"""MCP tools for template suggestions: which template fits, and applying one to a stored memory."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from remember.mcp.registry import HasTools, ToolContext, add_tool, hints
from remember.mcp.schemas import MemoryOut, SuggestionOut, SuggestionsOut


def register(server: HasTools, tc: ToolContext) -> None:
    services = tc.services

    def remember_suggest_templates(
        content: Annotated[str, Field(description="What the user said or wants to remember.")],
        context: Annotated[
            dict[str, Any] | None,
            Field(
                description="What is known about the moment: location_present, participants_present, "
                "time_of_day (morning lunch afternoon dinner evening night), day_of_week, conversation_type, "
                "or local_time (ISO 8601)."
            ),
        ] = None,
        limit: Annotated[int | None, Field(description="Most suggestions, 1 to 10 (default: preference).")] = None,
    ) -> SuggestionsOut:
        """Which memory templates fit what the user said, with the fields already readable from it.

        Use it when the user tells you something that may be a recurring kind of thing (a meal
        out, a book, a person, a meeting) to offer a structured capture.

        Example: {"content": "Had great sushi at Nobu yesterday, 5 stars", "context": {"time_of_day": "dinner"}}
        """
        found = services.suggestions.suggest(tc.user(), content, context=context, limit=limit)
        return SuggestionsOut(suggestions=[SuggestionOut.model_validate(s.as_dict()) for s in found])

    def remember_apply_template(
        memory_id: Annotated[str, Field(description="The stored free-text memory.")],
        template_id: Annotated[str, Field(description="The template to apply, e.g. a suggested one.")],
        structured_content: Annotated[
            dict[str, Any] | None,
            Field(description="The template's fields; when left out, the values readable from the memory's text."),
        ] = None,
        reason: Annotated[str | None, Field(description="Why; kept in the memory's history.")] = None,
    ) -> MemoryOut:
        """Turn a stored memory into a templated one: its fields are validated and kept; its text stays.

        Example: {"memory_id": "0b6f3c1e-...", "template_id": "builtin:restaurant_review",
                  "structured_content": {"restaurant_name": "Nobu", "rating": 5}}
        """
        updated = services.apply_template(tc.user(), memory_id, template_id, structured_content, reason=reason)
        return MemoryOut.of(updated)

    # Not read-only: what is shown is logged, and the user's later choices are learned from it.
    add_tool(server, remember_suggest_templates, title="Suggest templates", hints=hints(read_only=False))
    add_tool(server, remember_apply_template, title="Apply a template to a memory", hints=hints(read_only=False))
