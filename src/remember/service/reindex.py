"""Rebuilding the search index of every memory, all users: after a change of embedder or an import."""

from __future__ import annotations

from remember.caller import owner
from remember.models import Memory, Progress
from remember.service.indexer import Indexer
from remember.service.templates import TemplateService, UserTemplates
from remember.store import Store

BATCH = 256
RETRIES = 5  # rounds for memories changed while their batch was embedded (each change indexed itself anyway)


def reindex(store: Store, indexer: Indexer, templates: TemplateService, progress: Progress | None = None) -> int:
    """Re-embed and re-index every memory in batches; returns how many were indexed.

    The configured embedder becomes the one the index records, so semantic
    search works again after a change of model. It can run beside a live server:
    a memory changed while its batch was being embedded keeps the entry its change
    wrote, and is read and indexed again afterwards.
    """
    total = store.memories.count()
    done = 0
    after: tuple[str, str] | None = None
    views: dict[str, UserTemplates] = {}
    changed: list[tuple[str, str]] = []
    while True:
        keys = store.memories.ids_page(after, BATCH)
        if not keys:
            break
        indexed, stale = _index(store, indexer, templates, views, keys)
        done += indexed
        changed += stale
        after = keys[-1]
        if progress:
            progress(done, total)
    for _ in range(RETRIES):
        if not changed:
            break
        indexed, changed = _index(store, indexer, templates, views, changed)
        done += indexed
    if indexer.embedder is not None:
        indexer.adopt()
    return done


def _index(
    store: Store,
    indexer: Indexer,
    templates: TemplateService,
    views: dict[str, UserTemplates],
    keys: list[tuple[str, str]],
) -> tuple[int, list[tuple[str, str]]]:
    """Index the memories of ``keys`` as they are now; how many were written, and the keys that changed meanwhile."""
    batch = _load(store, keys)
    if indexer.embedder is not None:
        indexer.adopt()
    entries = indexer.entries([(m, _fields_text(templates, views, m)) for m in batch])
    stale = store.index.write_index_entries(list(zip(batch, entries, strict=True)))
    return len(batch) - len(stale), [(m.user_id, m.id) for m in stale]


def _load(store: Store, keys: list[tuple[str, str]]) -> list[Memory]:
    by_user: dict[str, list[str]] = {}
    for user_id, memory_id in keys:
        by_user.setdefault(user_id, []).append(memory_id)
    found = {(m.user_id, m.id): m for user, ids in by_user.items() for m in store.memories.get_many(user, ids)}
    return [found[k] for k in keys if k in found]


def _fields_text(templates: TemplateService, views: dict[str, UserTemplates], memory: Memory) -> str | None:
    return views.setdefault(memory.user_id, templates.view_of(owner(memory.user_id))).fields_text(memory)
