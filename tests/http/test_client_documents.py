"""Clients named by their metadata document's URL (MCP 2025-11-25): fetched over real HTTPS on loopback
(a certificate authority of the test's own), checked, kept in the store, fetched again when stale, and
refused saying why when the document cannot be used."""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest

from conftest import StillClock
from http_support import HttpServer
from oauth_support import Callback, Flow, pkce, status
from remember.clock import utc_now
from remember.http.client_documents import (
    FRESH_DEFAULT,
    FRESH_MAX,
    FRESH_MIN,
    MAX_BYTES,
    ClientDocuments,
    DocumentRefused,
    DocumentUnreachable,
    freshness,
    url_problem,
)
from remember.http.document_clients import DocumentClients
from remember.service.tokens import TokenService
from remember.store import Store
from tls_support import Answer, Certificates, DocumentServer, make_certificates


@pytest.fixture
def certificates(tmp_path: Path) -> Certificates:
    return make_certificates(tmp_path / "tls")


@pytest.fixture
def documents(certificates: Certificates) -> Iterator[DocumentServer]:
    server = DocumentServer(certificates)
    yield server
    server.close()


def document(url: str, callback: Callback, **changes: Any) -> dict[str, Any]:
    return {
        "client_id": url,
        "client_name": "Test connector",
        "redirect_uris": [callback.url],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": "none",
        **changes,
    }


def serve(documents: DocumentServer, path: str, callback: Callback, **changes: Any) -> str:
    url = documents.base + path
    return documents.document(path, document(url, callback, **changes))


@pytest.mark.slow
class TestOverHttp:
    @pytest.fixture
    def server(self, store: Store, tmp_path: Path, certificates: Certificates) -> Iterator[HttpServer]:
        env = {
            "REMEMBER_OAUTH_SERVER": "1",
            "REMEMBER_OAUTH_CLIENT_DOCUMENTS": "any",  # the documents are on loopback
            "SSL_CERT_FILE": str(certificates.ca),
        }
        running = HttpServer(tmp_path / "home", store.url, env=env).start()
        yield running
        running.stop()

    def test_a_client_named_by_its_document_is_authorized_and_refreshes(
        self, server: HttpServer, callback: Callback, documents: DocumentServer, tokens: TokenService
    ) -> None:
        url = serve(documents, "/oauth/client.json", callback)
        flow = Flow(server, callback, client_id=url)
        try:
            assert flow.meta["client_id_metadata_document_supported"] is True
            granted = flow.authorize(tokens.create("erin").secret)
            assert status(server, granted["access_token"]) == 200
            renewed = flow.refresh(granted["refresh_token"])
            assert renewed.status_code == 200, renewed.text
            assert status(server, renewed.json()["access_token"]) == 200
        finally:
            flow.close()
        assert documents.hits["/oauth/client.json"] == 1  # kept, not fetched for every request

    @pytest.mark.parametrize(
        ("changes", "why"),
        [
            ({"client_id": "https://elsewhere.example/client.json"}, "client_id is not its own URL"),
            ({"token_endpoint_auth_method": "client_secret_post"}, "public client"),
            ({"redirect_uris": []}, "no redirect_uris"),
            ({"redirect_uris": ["javascript:alert(1)"]}, "javascript"),
            ({"client_name": "x" * 3_000}, "characters long"),
        ],
    )
    def test_a_document_that_cannot_be_used_is_refused_saying_why(
        self,
        server: HttpServer,
        callback: Callback,
        documents: DocumentServer,
        store: Store,
        changes: dict[str, Any],
        why: str,
    ) -> None:
        url = serve(documents, "/bad.json", callback, **changes)
        answer = _authorize(server, url, callback)
        assert answer.status_code == 400
        assert answer.json()["error"] == "invalid_client"
        assert why in answer.json()["error_description"]
        assert store.oauth_clients.get(url, utc_now()) is None  # nothing kept
        assert callback.received == []  # no code went anywhere

    @pytest.mark.parametrize(
        ("answer", "why"),
        [
            (Answer(404, b"{}"), "answered 404"),
            (Answer(200, b"not json"), "not JSON"),
            (Answer(200, b"[1, 2]"), "not a JSON object"),
            (Answer(200, b" " * (MAX_BYTES + 1)), "over 5,000 bytes"),
            (Answer(302, b"", {"Location": "https://localhost/elsewhere"}), "answered 302"),
        ],
    )
    def test_an_answer_that_is_no_document_is_refused(
        self, server: HttpServer, callback: Callback, documents: DocumentServer, answer: Answer, why: str
    ) -> None:
        documents.answers["/odd.json"] = answer
        refused = _authorize(server, documents.base + "/odd.json", callback)
        assert refused.status_code == 400 and why in refused.json()["error_description"], refused.text
        assert documents.hits["/odd.json"] == 1  # the redirect was not followed

    def test_a_redirect_uri_the_document_does_not_list_is_refused(
        self, server: HttpServer, callback: Callback, documents: DocumentServer
    ) -> None:
        url = serve(documents, "/client.json", callback, redirect_uris=["http://127.0.0.1:9/elsewhere"])
        refused = _authorize(server, url, callback)
        assert refused.status_code == 400
        assert callback.received == []

    def test_a_client_id_url_of_the_wrong_shape_is_refused(self, server: HttpServer, callback: Callback) -> None:
        for url, why in [("https://localhost", "needs a path"), ("https://user:pw@localhost/c.json", "password")]:
            refused = _authorize(server, url, callback)
            assert refused.status_code == 400 and why in refused.json()["error_description"], refused.text

    def test_a_host_whose_certificate_is_not_trusted_is_refused(
        self, tmp_path: Path, store: Store, callback: Callback, documents: DocumentServer
    ) -> None:
        env = {"REMEMBER_OAUTH_SERVER": "1", "REMEMBER_OAUTH_CLIENT_DOCUMENTS": "any"}  # no SSL_CERT_FILE
        other = HttpServer(tmp_path / "other", store.url, env=env).start()
        try:
            refused = _authorize(other, serve(documents, "/client.json", callback), callback)
        finally:
            other.stop()
        assert refused.status_code == 400 and "could not be fetched" in refused.json()["error_description"]


@pytest.mark.slow
def test_off_accepts_no_document_and_public_no_loopback_host(
    tmp_path: Path, store: Store, callback: Callback, documents: DocumentServer, certificates: Certificates
) -> None:
    url = serve(documents, "/client.json", callback)
    for policy, why in [("off", "not found"), ("public", "not a public address")]:
        env = {
            "REMEMBER_OAUTH_SERVER": "1",
            "REMEMBER_OAUTH_CLIENT_DOCUMENTS": policy,
            "SSL_CERT_FILE": str(certificates.ca),
        }
        server = HttpServer(tmp_path / policy, store.url, env=env).start()
        try:
            meta = httpx2.get(f"{server.url}/.well-known/oauth-authorization-server").json()
            refused = _authorize(server, url, callback)
        finally:
            server.stop()
        assert meta["client_id_metadata_document_supported"] is (policy == "public")
        assert refused.status_code == 400 and why in refused.json()["error_description"], refused.text
    assert documents.hits.get("/client.json") is None  # neither fetched it


@pytest.mark.anyio
async def test_a_stale_document_is_fetched_again_and_the_kept_one_serves_while_its_host_is_down(
    store: Store, callback: Callback, documents: DocumentServer, certificates: Certificates, monkeypatch: Any
) -> None:
    monkeypatch.setenv("SSL_CERT_FILE", str(certificates.ca))
    clock = StillClock()
    clients = DocumentClients(ClientDocuments("any", timeout=2), store.oauth_clients, clock)
    url = documents.document(
        "/c.json", document(documents.base + "/c.json", callback), **{"Cache-Control": "max-age=600"}
    )
    found, problem = await clients.find(url)
    assert problem is None and found is not None and found.metadata["client_name"] == "Test connector"
    assert found.fresh_until == clock.now + timedelta(minutes=10)
    clock.now += timedelta(minutes=9)
    assert (await clients.find(url))[0] == found and documents.hits["/c.json"] == 1
    documents.document("/c.json", document(url, callback, client_name="Renamed"))
    clock.now += timedelta(minutes=2)
    renamed, _ = await clients.find(url)
    assert renamed is not None and renamed.metadata["client_name"] == "Renamed" and documents.hits["/c.json"] == 2
    documents.answers["/c.json"] = Answer(503, b"{}")  # its host fails: the kept document serves
    clock.now += FRESH_DEFAULT * 2
    assert (await clients.find(url))[0] == renamed
    documents.document("/c.json", {"client_id": url})  # its host now says something that is no document
    gone, problem = await clients.find(url)
    assert gone is None and problem is not None and "redirect_uris" in problem
    await anyio.sleep(0)


def test_a_host_that_answers_a_byte_at_a_time_is_cut_off(
    documents: DocumentServer, certificates: Certificates, monkeypatch: Any
) -> None:
    monkeypatch.setenv("SSL_CERT_FILE", str(certificates.ca))
    documents.answers["/slow.json"] = Answer(trickle=True)  # a minute to send its status line
    started = time.monotonic()
    with pytest.raises(DocumentUnreachable, match="could not be fetched"):
        ClientDocuments("any", timeout=1).fetch(documents.base + "/slow.json")
    assert time.monotonic() - started < 20  # cut off, not waited for


def test_the_public_policy_refuses_every_address_that_is_not_public() -> None:
    public = ClientDocuments("public", timeout=1)
    for url in ["https://127.0.0.1/c.json", "https://10.0.0.8/c.json", "https://169.254.169.254/latest/c.json",
                "https://[::1]/c.json", "https://[fd00::1]/c.json", "https://[::ffff:127.0.0.1]/c.json",
                "https://localhost/c.json"]:  # fmt: skip
        with pytest.raises(DocumentRefused, match="not a public address"):
            public.fetch(url)


def test_client_id_urls_and_cache_lifetimes() -> None:
    assert url_problem("https://app.example/oauth/client.json") is None
    for url in ["http://app.example/c.json", "https://app.example", "https://app.example/", "https:///c.json",
                "https://app.example/c.json#x", "https://a:b@app.example/c.json", "https://app.example/a/../c.json",
                "https://app.example:port/c.json", "https://app.example/" + "x" * 2_000]:  # fmt: skip
        assert url_problem(url) is not None, url
    assert freshness("") == FRESH_DEFAULT
    assert freshness("public, max-age=7200") == timedelta(hours=2)
    assert freshness("max-age=1") == FRESH_MIN
    assert freshness("max-age=99999999") == FRESH_MAX
    assert freshness("no-store") == FRESH_MIN


def _authorize(server: HttpServer, client_id: str, callback: Callback) -> httpx2.Response:
    _, challenge = pkce()
    query = {
        "response_type": "code", "client_id": client_id, "redirect_uri": callback.url, "code_challenge": challenge,
        "code_challenge_method": "S256", "state": "s", "resource": f"{server.url}/mcp",
    }  # fmt: skip
    return httpx2.get(f"{server.url}/authorize", params=query, follow_redirects=False, timeout=30)
