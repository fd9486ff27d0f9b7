"""Rebuilding the search index of every memory, all users: after a change of embedder or an import."""

from __future__ import annotations

from collections.abc import Callable

from remember.errors import RememberError
from remember.models import Memory
from remember.service.indexer import Indexer
from remember.service.templates import TemplateService, UserTemplates
from remember.store import Store
from remember.templates import render_text

BATCH = 256
Progress = Callable[[int, int], None]


def reindex(store: Store, indexer: Indexer, templates: TemplateService, progress: Progress | None = None) -> int:
    """Re-embed and re-index every memory in batches; returns how many were indexed.

    The configured embedder becomes the one the index records, so semantic
    search works again after a change of model.
    """
    total = store.count_memories()
    done = 0
    after: tuple[str, str] | None = None
    views: dict[str, UserTemplates] = {}
    while True:
        keys = store.memory_ids_page(after, BATCH)
        if not keys:
            break
        batch = _load(store, keys)
        if indexer.embedder is not None:
            indexer.adopt()
        entries = indexer.entries([(m, _fields_text(templates, views, m)) for m in batch])
        store.write_index_entries(list(zip(batch, entries, strict=True)))
        done += len(batch)
        after = keys[-1]
        if progress:
            progress(done, total)
    if indexer.embedder is not None:
        indexer.adopt()
    return done


def _load(store: Store, keys: list[tuple[str, str]]) -> list[Memory]:
    by_user: dict[str, list[str]] = {}
    for user_id, memory_id in keys:
        by_user.setdefault(user_id, []).append(memory_id)
    found = {(m.user_id, m.id): m for user, ids in by_user.items() for m in store.get_memories(user, ids)}
    return [found[k] for k in keys if k in found]


def _fields_text(templates: TemplateService, views: dict[str, UserTemplates], memory: Memory) -> str | None:
    if memory.template_id is None:
        return None
    view = views.setdefault(memory.user_id, templates.view_of(memory.user_id))
    definition = view.lookup(memory.template_id)
    if definition is None:
        return None
    try:
        return render_text(view.resolved(definition.id), memory.structured_content or {})
    except RememberError:  # a broken chain (e.g. a deleted parent) leaves the fields out of the text
        return None
