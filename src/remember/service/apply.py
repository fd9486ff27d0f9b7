"""Applying a template to a stored memory: shared by ``Services.apply_template`` and accepted inferences."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from remember.models import Memory
from remember.service.drafts import MemoryPatch
from remember.service.memories import MemoryService
from remember.service.suggestions import SuggestionService


def apply_template(
    memories: MemoryService,
    suggestions: SuggestionService,
    user_id: str,
    memory_id: str,
    template_id: str,
    structured_content: Mapping[str, Any] | None = None,
    *,
    reason: str | None = None,
) -> Memory:
    """Make a stored memory a templated one; its text stays, its fields are validated and kept.

    Without ``structured_content`` the fields are the ones readable from the memory's text.
    Fields of another template the memory followed are dropped unless this one defines them
    too (they stay in the history). An application that changes the memory is counted for
    the template's suggestion figures.
    """
    memory = memories.get(user_id, memory_id, record_access=False)
    fields = structured_content
    if fields is None:
        fields = suggestions.prefill(user_id, template_id, memory.content)
    patch = MemoryPatch(template_id=template_id, structured_content=fields)
    updated = memories.update(user_id, memory.id, patch, reason=reason or f"applied template {template_id}")
    if updated.version != memory.version:
        suggestions.record_applied(user_id, template_id, memory.id)
    return updated
