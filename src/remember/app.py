"""The composition root: the services over the configured database and embedder.

The command line (and, through it, the MCP server) builds its services here, so
that no edge module needs another edge module to start.
"""

from __future__ import annotations

from remember.config import Settings
from remember.service import Services


def open_services(settings: Settings) -> Services:
    """The services over the configured database, with the configured embedder (loaded on first use)."""
    from remember.search.embedders import embedder_from_config
    from remember.store import open_store

    embedder = embedder_from_config(
        settings.embedder, model=settings.embedder_model, base_url=settings.embedder_url,
        api_key=settings.embedder_api_key,
    )  # fmt: skip
    return Services.over(open_store(settings.database_url), embedder=embedder)
