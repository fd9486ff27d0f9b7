"""The composition root: the services over the configured database and embedder.

The command line (and, through it, the MCP server) builds its services here, so
that no edge module needs another edge module to start.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from remember.config import Settings

if TYPE_CHECKING:
    from remember.service import Services
    from remember.store import Store


def open_services(settings: Settings) -> Services:
    """The services over the configured database, with the configured embedder (loaded on first use)."""
    return services_over(open_configured_store(settings), settings)


def open_configured_store(settings: Settings) -> Store:
    """The configured database, opened with the configured sizes past which users get search indexes."""
    from remember.store import open_store

    return open_store(
        settings.database_url,
        vector_index_min=settings.vector_index_min,
        keyword_index_min=settings.keyword_index_min,
        keywords_home=settings.home / "keywords",
    )


def services_over(store: Store, settings: Settings) -> Services:
    """The services over an open ``store``, with the configured embedder (loaded on first use, its edited model kept
    in ``$REMEMBER_HOME/cache``) and the vectors of the templates' texts kept there too (and shipped for the
    built-ins)."""
    from remember.search.embedders import embedder_from_config
    from remember.search.embedders.kept import kept_vectors
    from remember.service import Services

    embedder = embedder_from_config(
        settings.embedder, model=settings.embedder_model, base_url=settings.embedder_url,
        api_key=settings.embedder_api_key, cache_dir=settings.home / "cache",
    )  # fmt: skip
    return Services.over(store, embedder=embedder, kept=kept_vectors(settings.home / "cache"))
