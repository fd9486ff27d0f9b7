"""Use-cases over a store, one service per concern; every call names its user."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from remember.clock import Clock, utc_now
from remember.models import Memory
from remember.service.drafts import MemoryDraft, MemoryPatch, TemplatePatch
from remember.service.indexer import Indexer
from remember.service.memories import Deletion, MemoryService
from remember.service.preferences import PreferenceService
from remember.service.search import SearchService
from remember.service.suggestions import SuggestionService
from remember.service.templates import TemplateService
from remember.service.tokens import TokenService
from remember.store import Store

if TYPE_CHECKING:
    from remember.search.embedders import Embedder

__all__ = [
    "Deletion",
    "MemoryDraft",
    "MemoryPatch",
    "MemoryService",
    "PreferenceService",
    "SearchService",
    "Services",
    "SuggestionService",
    "TemplatePatch",
    "TemplateService",
    "TokenService",
]


@dataclass(frozen=True)
class Services:
    """Every service over one store, built together."""

    store: Store
    memories: MemoryService
    preferences: PreferenceService
    templates: TemplateService
    search: SearchService
    indexer: Indexer
    suggestions: SuggestionService
    tokens: TokenService

    @classmethod
    def over(cls, store: Store, clock: Clock = utc_now, embedder: Embedder | None = None) -> Services:
        """Every service over ``store``; without an ``embedder`` search is by keywords only."""
        preferences = PreferenceService(store, clock)
        templates = TemplateService(store, clock)
        indexer = Indexer(store, embedder)
        return cls(
            store=store,
            memories=MemoryService(store, preferences, templates, indexer, clock),
            preferences=preferences,
            templates=templates,
            search=SearchService(store, preferences, indexer, clock),
            indexer=indexer,
            suggestions=SuggestionService(store, preferences, templates, embedder, clock),
            tokens=TokenService(store, clock),
        )

    def apply_template(
        self,
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
        memory = self.memories.get(user_id, memory_id, record_access=False)
        fields = structured_content
        if fields is None:
            fields = self.suggestions.prefill(user_id, template_id, memory.content)
        patch = MemoryPatch(template_id=template_id, structured_content=fields)
        updated = self.memories.update(user_id, memory.id, patch, reason=reason or f"applied template {template_id}")
        if updated.version != memory.version:
            self.suggestions.record_applied(user_id, template_id, memory.id)
        return updated

    def close(self) -> None:
        self.store.close()
