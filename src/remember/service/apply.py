"""Applying a template to a stored memory: for the tools, the command line and accepted inferences."""

from __future__ import annotations

from remember.caller import Caller
from remember.jsontypes import JsonObject
from remember.models import Memory
from remember.service.drafts import MemoryPatch
from remember.service.memories import MemoryService
from remember.service.suggestions import SuggestionService


class Applier:
    """Applies templates to stored memories, counting each application for the template's figures."""

    def __init__(self, memories: MemoryService, suggestions: SuggestionService) -> None:
        self.memories = memories
        self.suggestions = suggestions

    def apply_template(
        self,
        caller: Caller,
        memory_id: str,
        template_id: str,
        structured_content: JsonObject | None = None,
        *,
        reason: str | None = None,
    ) -> Memory:
        """Make a stored memory a templated one; its text stays, its fields are validated and kept.

        Without ``structured_content`` the fields are the ones readable from the memory's text.
        Fields of another template the memory followed are dropped unless this one defines them
        too (they stay in the history). An application that changes the memory is counted for
        the template's suggestion figures.
        """
        memory = self.memories.get(caller, memory_id, record_access=False)
        fields = structured_content
        if fields is None:
            fields = self.suggestions.prefill(caller, template_id, memory.content).values
        patch = MemoryPatch(template_id=template_id, structured_content=fields)
        updated = self.memories.update(caller, memory.id, patch, reason=reason or f"applied template {template_id}")
        if updated.version != memory.version:
            self.suggestions.record_applied(caller, template_id, memory.id)
        return updated
