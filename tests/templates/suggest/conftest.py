"""Fixtures of the suggestion tests: the real MiniLM embedder (once per session) and a fixed clock."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from remember.search.embedders import MiniLMEmbedder

# A Wednesday evening.
NOW = datetime(2026, 2, 11, 18, 30, tzinfo=UTC)


@pytest.fixture(scope="session")
def minilm() -> MiniLMEmbedder:
    return MiniLMEmbedder()
