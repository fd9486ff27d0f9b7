"""Use-cases over a store, one service per concern; every call names its user."""

from __future__ import annotations

from dataclasses import dataclass

from remember.clock import Clock, utc_now
from remember.service.memories import Deletion, MemoryService
from remember.service.preferences import PreferenceService
from remember.service.templates import TemplateService
from remember.store import Store

__all__ = ["Deletion", "MemoryService", "PreferenceService", "Services", "TemplateService"]


@dataclass(frozen=True)
class Services:
    """Every service over one store, built together."""

    store: Store
    memories: MemoryService
    preferences: PreferenceService
    templates: TemplateService

    @classmethod
    def over(cls, store: Store, clock: Clock = utc_now) -> Services:
        preferences = PreferenceService(store, clock)
        templates = TemplateService(store, clock)
        memories = MemoryService(store, preferences, templates, clock)
        return cls(store=store, memories=memories, preferences=preferences, templates=templates)

    def close(self) -> None:
        self.store.close()
