"""MCP tools for the user's preferences."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from remember.mcp.registry import HasTools, ToolContext, add_tool, hints
from remember.preferences import CATEGORIES
from remember.schemas.preferences import PreferenceChangeOut, PreferencesOut


def register(server: HasTools, tc: ToolContext) -> None:
    preferences = tc.services.preferences

    def remember_get_preferences(
        category: Annotated[str | None, Field(description=f"One of {', '.join(CATEGORIES)}.")] = None,
    ) -> PreferencesOut:
        """Read the user's preferences (defaults filled in), all or one category."""
        return PreferencesOut(preferences=preferences.get(tc.caller(), category))

    def remember_update_preferences(
        preference_path: Annotated[str, Field(description="e.g. 'search.default_limit'.")],
        value: Annotated[Any, Field(description="Of the preference's type.")],
        reason: Annotated[str | None, Field(description="Why; kept in its history.")] = None,
    ) -> PreferenceChangeOut:
        """Change one preference (remember_get_preferences lists them); answers its old and new value.

        Example: {"preference_path": "search.default_limit", "value": 20}
        """
        change = preferences.update(tc.caller(), preference_path, value, reason=reason)
        return PreferenceChangeOut.model_validate(change.as_dict())

    add_tool(server, remember_get_preferences, hints=hints(read_only=True, idempotent=True))
    add_tool(
        server,
        remember_update_preferences,
        hints=hints(read_only=False, idempotent=True),
    )
