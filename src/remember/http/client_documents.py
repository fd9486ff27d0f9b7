"""OAuth client ID metadata documents (MCP 2025-11-25): a client named by the https URL of its metadata.

A client that has no registration here may use, as its ``client_id``, an https URL whose document (JSON,
the fields of a registration, RFC 7591) says who it is and where its codes may go. The server fetches the
document when the client first appears and again once it is stale, and keeps it in the store like a
registered client, so that every server over the database knows it and a restart forgets nothing.

Fetching a URL a stranger names is a door into the server's network, so a fetch:

- goes only to https, on the URL's host, with the certificate checked, no redirect followed;
- under the ``public`` policy (the default), only to public addresses: the name is resolved once, every
  address it has is checked (no loopback, private, link-local or reserved one), and the connection goes
  to the checked address (a second resolution cannot point it elsewhere); ``any`` lets it reach every
  network (an intranet's clients, tests on loopback), ``off`` uses no documents;
- reads at most ``MAX_BYTES``, and ends after ``TIMEOUT`` seconds whatever the host does;
- keeps the document for its ``Cache-Control: max-age`` (between 5 minutes and a day; an hour without
  one). When a stale document cannot be fetched again (its host down), the kept one serves; when the
  host answers with something that is not a valid document, the client is refused.

A document must name itself (``client_id`` equal to its URL), list its ``redirect_uris`` (each one a code
may go to: ``oauth_bounds.redirect_problem``), and be a public client (``token_endpoint_auth_method``
``none``: PKCE alone; a secret cannot be published).
"""

from __future__ import annotations

import contextlib
import http.client
import ipaddress
import json
import re
import socket
import ssl
import threading
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, Literal
from urllib.parse import urlsplit

from mcp.server.auth.provider import RegistrationError
from mcp.shared.auth import OAuthClientInformationFull
from pydantic import ValidationError

from remember import __version__
from remember.http import oauth_bounds as bounds

Policy = Literal["public", "any", "off"]
POLICIES: tuple[Policy, ...] = ("public", "any", "off")
MAX_BYTES = 5_000
TIMEOUT = 5.0
FRESH_DEFAULT = timedelta(hours=1)
FRESH_MIN = timedelta(minutes=5)
FRESH_MAX = timedelta(days=1)
_MAX_AGE = re.compile(r"(?:^|,)\s*max-age\s*=\s*(\d{1,9})\s*(?:,|$)", re.IGNORECASE)
_NO_CACHE = re.compile(r"(?:^|,)\s*(?:no-store|no-cache)\s*(?:,|$)", re.IGNORECASE)


class DocumentRefused(Exception):
    """The URL names no usable client document; the message says why, for the client's developer."""


class DocumentUnreachable(DocumentRefused):
    """The document's host could not be reached or failed (a kept document may serve meanwhile)."""


@dataclass(frozen=True)
class Document:
    client: OAuthClientInformationFull
    fresh_for: timedelta


def is_document_id(client_id: str) -> bool:
    """Whether ``client_id`` names a metadata document (an https URL) rather than a registration."""
    return client_id[:8].lower() == "https://"


def url_problem(url: str) -> str | None:
    """Why ``url`` cannot be a client's document URL, or None."""
    if len(url) > bounds.URI_CHARS:
        return f"a client ID URL is at most {bounds.URI_CHARS:,} characters (this one has {len(url):,})."
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018  # a port that is not a number raises here
    except ValueError:
        return f"client ID {url[:100]!r} is not a URL."
    if parts.scheme.lower() != "https" or not parts.hostname:
        return f"client ID {url[:100]!r} is not an https URL with a host."
    if parts.path in ("", "/") or parts.fragment or "#" in url:
        return f"client ID {url[:100]!r} needs a path (the document's) and no fragment."
    if parts.username is not None or parts.password is not None:
        return f"client ID {url[:100]!r} carries a user name or password; a client ID URL has none."
    if any(segment in (".", "..") for segment in parts.path.split("/")):
        return f"client ID {url[:100]!r} has '.' or '..' segments; use the document's plain path."
    return None


class ClientDocuments:
    """Fetches and checks client documents under a network ``policy`` (the module's docstring)."""

    def __init__(self, policy: Policy = "public", *, timeout: float = TIMEOUT) -> None:
        self.policy = policy
        self.timeout = timeout

    def fetch(self, url: str) -> Document:
        """The client ``url`` names (DocumentRefused: why not)."""
        problem = url_problem(url)
        if problem:
            raise DocumentRefused(problem)
        parts = urlsplit(url)
        host, port = parts.hostname or "", parts.port or 443
        address = self._address(host, port)
        body, cache_control = self._get(host, port, address, parts.path + (f"?{parts.query}" if parts.query else ""))
        return Document(client_of(url, body), freshness(cache_control))

    def _address(self, host: str, port: int) -> str:
        try:
            found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except (socket.gaierror, UnicodeError) as exc:
            raise DocumentUnreachable(f"the client document's host {host!r} does not resolve ({exc}).") from exc
        addresses = [str(info[4][0]) for info in found]
        if self.policy == "public":
            for address in addresses:
                if not ipaddress.ip_address(address.split("%")[0]).is_global:
                    raise DocumentRefused(
                        f"the client document's host {host!r} resolves to {address}, which is not a public "
                        "address; this server fetches client documents from the internet only "
                        "(REMEMBER_OAUTH_CLIENT_DOCUMENTS=any lets it reach other networks)."
                    )
        return addresses[0]

    def _get(self, host: str, port: int, address: str, target: str) -> tuple[bytes, str]:
        connection = _PinnedHttps(host, port, address, self.timeout)
        # The timeout bounds each socket operation; this bounds them all: a host that sends a byte at a time
        # has its connection shut when the time is up.
        watchdog = threading.Timer(self.timeout, connection.shut)
        watchdog.start()
        try:
            connection.request(
                "GET", target, headers={"Accept": "application/json", "User-Agent": f"remember/{__version__}"}
            )
            response = connection.getresponse()
            body = response.read(MAX_BYTES + 1)
            cache_control = response.getheader("Cache-Control") or ""
        except (OSError, http.client.HTTPException) as exc:  # ssl.SSLError, timeouts and refusals are OSErrors
            raise DocumentUnreachable(f"the client document at https://{host} could not be fetched: {exc}.") from exc
        finally:
            watchdog.cancel()
            connection.close()
        if response.status >= 500:
            raise DocumentUnreachable(f"the client document's host answered {response.status}.")
        if response.status != 200:
            raise DocumentRefused(f"the client document's URL answered {response.status}, not 200 and a document.")
        if len(body) > MAX_BYTES:
            raise DocumentRefused(f"the client document is over {MAX_BYTES:,} bytes.")
        return body, cache_control


class _PinnedHttps(http.client.HTTPSConnection):
    """HTTPS to ``host``'s certificate and name, over a connection to the ``address`` already checked."""

    def __init__(self, host: str, port: int, address: str, timeout: float) -> None:
        super().__init__(host, port, timeout=timeout, context=ssl.create_default_context())
        self.address = address

    twin: socket.socket | None = None  # the same connection through a second descriptor, to shut it from outside

    def connect(self) -> None:
        raw = socket.create_connection((self.address, self.port), self.timeout)
        self.twin = socket.fromfd(raw.fileno(), raw.family, raw.type)
        self.sock = self._context.wrap_socket(raw, server_hostname=self.host)  # type: ignore[attr-defined]

    def shut(self) -> None:
        """End the connection now, from another thread: what waits on it fails at once."""
        if self.twin is not None:
            with contextlib.suppress(OSError):
                self.twin.shutdown(socket.SHUT_RDWR)

    def close(self) -> None:
        super().close()
        if self.twin is not None:
            self.twin.close()


def client_of(url: str, body: bytes) -> OAuthClientInformationFull:
    """The client the document ``body`` at ``url`` describes (DocumentRefused: why it describes none)."""
    try:
        given: Any = json.loads(body)
    except (ValueError, UnicodeDecodeError) as exc:
        raise DocumentRefused(f"the client document is not JSON ({exc}).") from exc
    if not isinstance(given, dict):
        raise DocumentRefused("the client document is not a JSON object.")
    if given.get("client_id") != url:
        raise DocumentRefused(f"the client document's client_id is not its own URL ({url[:100]!r}).")
    if given.get("token_endpoint_auth_method", "none") != "none" or "client_secret" in given:
        raise DocumentRefused(
            "a client document describes a public client (token_endpoint_auth_method 'none', no secret)."
        )
    if not given.get("redirect_uris"):
        raise DocumentRefused("the client document lists no redirect_uris.")
    try:
        client = OAuthClientInformationFull.model_validate({**given, "token_endpoint_auth_method": "none"})
        bounds.check_registration(client)
    except ValidationError as exc:
        raise DocumentRefused(f"the client document is not valid client metadata: {exc.errors()[0]['msg']}.") from exc
    except RegistrationError as exc:
        raise DocumentRefused(exc.error_description or exc.error) from exc
    return client


def freshness(cache_control: str) -> timedelta:
    """How long a fetched document is used before it is fetched again."""
    if _NO_CACHE.search(cache_control):
        return FRESH_MIN
    found = _MAX_AGE.search(cache_control)
    if found is None:
        return FRESH_DEFAULT
    return min(FRESH_MAX, max(FRESH_MIN, timedelta(seconds=int(found.group(1)))))
