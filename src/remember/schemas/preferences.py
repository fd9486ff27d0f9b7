"""The user's preferences, and a change of one."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from remember.schemas import Out, any_of

# What a preference holds: a text, a number, a flag or a list of texts (remember.preferences.Kind).
TEXTS = {"type": "array", "items": {"type": "string"}}
PreferenceValue = Annotated[Any, any_of({"type": "string"}, {"type": "number"}, {"type": "boolean"}, TEXTS)]


class PreferencesOut(Out):
    preferences: dict[str, dict[str, Any]] = Field(description="Effective values by category, defaults filled in.")


class PreferenceChangeOut(Out):
    preference_path: str
    old_value: PreferenceValue
    new_value: PreferenceValue
    reason: str | None
    at: str
