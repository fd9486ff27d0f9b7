"""Clients named by their metadata document's URL, as the authorization server knows them: fetched once,
kept in the store (shared by every server over the database), fetched again when stale
(``client_documents.py`` says how a document is fetched and checked)."""

from __future__ import annotations

from functools import partial
from urllib.parse import urlsplit

import anyio.to_thread

from remember.clock import Clock, utc_now
from remember.errors import LimitReached
from remember.http import oauth_bounds as bounds
from remember.http.client_documents import ClientDocuments, DocumentRefused, DocumentUnreachable
from remember.store import OAuthClientStore
from remember.store.oauth_records import OAuthClient

# Clients first seen through documents on one host that no person has allowed yet (as registrations per address).
PER_HOST = bounds.CLIENTS_PER_ADDRESS


class DocumentClients:
    def __init__(self, documents: ClientDocuments, clients: OAuthClientStore, clock: Clock = utc_now) -> None:
        self.documents, self.clients, self.clock = documents, clients, clock

    async def find(self, url: str) -> tuple[OAuthClient | None, str | None]:
        """The client ``url`` names (and None), or None and why it is refused, for the client's developer."""
        now = self.clock()
        kept = await anyio.to_thread.run_sync(self.clients.get, url, now)
        if kept is not None and kept.fresh_until is not None and now < kept.fresh_until:
            return kept, None
        try:
            document = await anyio.to_thread.run_sync(self.documents.fetch, url)
        except DocumentUnreachable as exc:
            return (kept, None) if kept is not None else (None, str(exc))  # the kept document serves meanwhile
        except DocumentRefused as exc:
            return None, str(exc)
        client = OAuthClient(
            id=url,
            secret_sha256=None,
            metadata=document.client.model_dump(mode="json", exclude_none=True, exclude={"client_id"}),
            address=f"document {urlsplit(url).hostname}",
            created_at=now,
            expires_at=now + bounds.REGISTRATION_LIFETIME,
            fresh_until=now + document.fresh_for,
        )
        keep = partial(self.clients.keep_document, per_address=PER_HOST, total=bounds.CLIENTS)
        try:
            await anyio.to_thread.run_sync(keep, client)
        except LimitReached as exc:
            return None, str(exc)
        return await anyio.to_thread.run_sync(self.clients.get, url, now), None
