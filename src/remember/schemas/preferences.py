"""The user's preferences, and a change of one."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from remember.schemas import Out


class PreferencesOut(Out):
    preferences: dict[str, dict[str, Any]] = Field(description="Effective values by category, defaults filled in.")


class PreferenceChangeOut(Out):
    preference_path: str
    old_value: Any
    new_value: Any
    reason: str | None
    at: str
