"""`reindex` moves a store from MiniLM to the multilingual embedder and back, with the real models."""

from __future__ import annotations

import pytest

from remember.caller import Caller
from remember.errors import ConfigError
from remember.search.embedders import Embedder, MiniLMEmbedder, MultilingualEmbedder
from remember.service import Services
from remember.service.indexer import DIMENSION_KEY, MODEL_KEY
from remember.service.reindex import reindex
from remember.store import open_store

ALICE = Caller("alice")
NOTES = [
    "Mon frère Lucas habite à Lyon et travaille comme boulanger.",
    "Meine Schwester Anna spielt jeden Dienstag Tennis.",
    "The quarterly budget review moved to Thursday afternoon.",
]


def _semantic_top(services: Services, query: str) -> str:
    return services.search.search(ALICE, query, alpha=1.0, limit=1, record_access=False).hits[0].memory.id


def _recorded(services: Services) -> tuple[str | None, str | None]:
    settings = services.store.index.index_settings()
    return settings.get(MODEL_KEY), settings.get(DIMENSION_KEY)


def test_reindex_moves_a_store_from_minilm_to_multilingual_and_back(store_url: str) -> None:
    minilm: Embedder = MiniLMEmbedder()
    e5: Embedder = MultilingualEmbedder()
    store = open_store(store_url)
    try:
        first = Services.over(store, embedder=minilm)
        ids = [m.id for m in first.memories.create_many(ALICE, [{"content": n} for n in NOTES])]
        assert _recorded(first) == (minilm.name, "384")

        # Configured with the other model, the stored vectors are not searched by meaning until reindexed.
        second = Services.over(store, embedder=e5)
        with pytest.raises(ConfigError, match="remember reindex"):
            second.search.search(ALICE, "Wo wohnt mein Bruder?", alpha=1.0)
        assert reindex(second.store, second.indexer, second.templates) == len(NOTES)
        assert _recorded(second) == (e5.name, "384")
        assert _semantic_top(second, "Wo wohnt mein Bruder?") == ids[0]  # German question, French memory
        assert _semantic_top(second, "Quand Anna joue-t-elle au tennis ?") == ids[1]

        back = Services.over(store, embedder=minilm)
        with pytest.raises(ConfigError, match="remember reindex"):
            back.search.search(ALICE, "budget meeting", alpha=1.0)
        assert reindex(back.store, back.indexer, back.templates) == len(NOTES)
        assert _recorded(back) == (minilm.name, "384")
        assert _semantic_top(back, "when is the budget meeting?") == ids[2]
    finally:
        store.close()
