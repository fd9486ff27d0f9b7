"""Use-cases over a store, one service per concern; every call names its user."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from remember.clock import Clock, utc_now
from remember.service.analytics import AnalyticsService
from remember.service.apply import Applier
from remember.service.dashboard_sessions import DashboardSessionService
from remember.service.drafts import MemoryDraft, MemoryPatch, TemplatePatch
from remember.service.graph import GraphService
from remember.service.id_prefixes import IdPrefixes
from remember.service.indexer import Indexer
from remember.service.inference import InferenceService
from remember.service.memories import Deletion, MemoryService
from remember.service.merge import MergeService
from remember.service.moves import MoveService
from remember.service.preferences import PreferenceService
from remember.service.related import RelatedService
from remember.service.relationships import RelationshipDraft, RelationshipService
from remember.service.search import SearchService
from remember.service.spaces import SpaceService
from remember.service.suggestions import SuggestionService
from remember.service.templates import TemplateService
from remember.service.tokens import TokenService
from remember.store import Store

if TYPE_CHECKING:
    from remember.search.embedders import Embedder
    from remember.templates.suggest.semantic import KeptRows

__all__ = [
    "AnalyticsService",
    "Applier",
    "DashboardSessionService",
    "Deletion",
    "GraphService",
    "IdPrefixes",
    "InferenceService",
    "MemoryDraft",
    "MemoryPatch",
    "MemoryService",
    "MergeService",
    "MoveService",
    "PreferenceService",
    "RelatedService",
    "RelationshipDraft",
    "RelationshipService",
    "SearchService",
    "Services",
    "SpaceService",
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
    dashboard_sessions: DashboardSessionService
    inference: InferenceService
    relationships: RelationshipService
    related: RelatedService
    graph: GraphService
    merge: MergeService
    analytics: AnalyticsService
    applier: Applier
    ids: IdPrefixes  # ids given by their first characters (the command line)
    spaces: SpaceService
    moves: MoveService

    @classmethod
    def over(
        cls, store: Store, clock: Clock = utc_now, embedder: Embedder | None = None, kept: KeptRows | None = None
    ) -> Services:
        """Every service over ``store``; without an ``embedder`` search is by keywords only. ``kept``: the rows of
        the templates' texts kept beyond the process (else the suggestions embed them once per process)."""
        preferences = PreferenceService(store.preferences, clock)
        templates = TemplateService(store, clock)
        indexer = Indexer(store, embedder)
        memories = MemoryService(store, preferences, templates, indexer, clock)
        suggestions = SuggestionService(store.suggestions, preferences, templates, embedder, clock, kept)
        relationships = RelationshipService(store, indexer, clock)

        applier = Applier(memories, suggestions)
        tokens = TokenService(store.tokens, clock)
        spaces = SpaceService(store, clock)
        return cls(
            store=store,
            memories=memories,
            preferences=preferences,
            templates=templates,
            search=SearchService(store, preferences, indexer, clock),
            indexer=indexer,
            suggestions=suggestions,
            tokens=tokens,
            dashboard_sessions=DashboardSessionService(store.dashboard_sessions, tokens, clock),
            inference=InferenceService(memories, templates, indexer, applier.apply_template, clock),
            applier=applier,
            relationships=relationships,
            related=RelatedService(store, relationships, preferences),
            graph=GraphService(store, templates, clock),
            merge=MergeService(store, memories, relationships, clock),
            analytics=AnalyticsService(store.analytics, templates, suggestions),
            ids=IdPrefixes(store),
            spaces=spaces,
            moves=MoveService(store, spaces, memories, clock),
        )

    def close(self) -> None:
        self.search.close()
        self.store.close()
