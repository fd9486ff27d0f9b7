"""MCP tools for the user's preferences."""

from __future__ import annotations

from typing import Annotated

from mcp.server.mcpserver import Context
from pydantic import Field

from remember.mcp.state import caller_of, services_of
from remember.mcp.tools.hints import READS, Tools, hints
from remember.preferences import CATEGORIES
from remember.schemas.preferences import PreferenceChangeOut, PreferencesOut, PreferenceValue


def remember_get_preferences(
    ctx: Context,
    category: Annotated[str | None, Field(description=f"One of {', '.join(CATEGORIES)}.")] = None,
) -> PreferencesOut:
    """Read the user's preferences (defaults filled in), all or one category."""
    return PreferencesOut(preferences=services_of(ctx).preferences.get(caller_of(ctx), category))


def remember_update_preferences(
    ctx: Context,
    preference_path: Annotated[str, Field(description="e.g. 'search.default_limit'.")],
    value: Annotated[PreferenceValue, Field(description="Of the preference's type.")],
    reason: Annotated[str | None, Field(description="Why; kept in its history.")] = None,
) -> PreferenceChangeOut:
    """Change one preference (remember_get_preferences lists them); answers its old and new value.

    Example: {"preference_path": "search.default_limit", "value": 20}
    """
    change = services_of(ctx).preferences.update(caller_of(ctx), preference_path, value, reason=reason)
    return PreferenceChangeOut.model_validate(change.as_dict())


TOOLS: Tools = [
    (remember_get_preferences, READS),
    (remember_update_preferences, hints(read_only=False, idempotent=True)),
]
