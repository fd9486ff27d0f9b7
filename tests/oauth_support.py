"""A connector's way through the built-in authorization server, over real HTTP: a callback server on
loopback that records each redirect, and a client that registers, authorizes with PKCE, answers the
consent page with an API token, exchanges the code and refreshes."""

from __future__ import annotations

import base64
import hashlib
import re
import secrets
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, quote, urlsplit

import httpx2

from http_support import HttpServer, initialize_body


class Callback:
    """The client's redirect listener on loopback: records the query of each redirect it receives."""

    def __init__(self) -> None:
        self.received: list[dict[str, str]] = []
        received = self.received

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                received.append({k: v[0] for k, v in parse_qs(urlsplit(self.path).query).items()})
                self.send_response(200)
                self.end_headers()
                self.wfile.write(b"done")

            def log_message(self, *args: Any) -> None:
                pass

        self.http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.http.server_address[1]}/callback"
        threading.Thread(target=self.http.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.http.shutdown()
        self.http.server_close()


def pkce() -> tuple[str, str]:
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).decode().rstrip("=")
    return verifier, challenge


def registration(callback: Callback, **changes: Any) -> dict[str, Any]:
    return {
        "redirect_uris": [callback.url],
        "client_name": "Test connector",
        "token_endpoint_auth_method": "none",
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        **changes,
    }


class Flow:
    """One client's way through the authorization server, as a connector would go. ``auth_method``
    ``client_secret_post`` or ``client_secret_basic`` registers a client with a secret, which it sends with
    each token request (in the form, or in HTTP Basic)."""

    def __init__(
        self, server: HttpServer, callback: Callback, auth_method: str = "none", client_id: str | None = None
    ) -> None:
        self.server, self.callback, self.auth_method = server, callback, auth_method
        self.http = httpx2.Client(follow_redirects=True, timeout=30)
        self.resource = f"{server.url}/mcp"
        prm = self.http.get(f"{server.url}/.well-known/oauth-protected-resource/mcp").json()
        assert prm["resource"] == self.resource
        self.issuer = prm["authorization_servers"][0].rstrip("/")
        self.meta = self.http.get(f"{self.issuer}/.well-known/oauth-authorization-server").json()
        assert self.meta["code_challenge_methods_supported"] == ["S256"]
        assert self.meta["authorization_response_iss_parameter_supported"] is True  # RFC 9207
        self.client_id, self.client_secret = client_id or "", None
        if client_id is None:  # else the client is named by its metadata document's URL: no registration
            registered = self.http.post(
                self.meta["registration_endpoint"], json=registration(callback, token_endpoint_auth_method=auth_method)
            )
            assert registered.status_code == 201, registered.text
            self.client_id = registered.json()["client_id"]
            self.client_secret = registered.json().get("client_secret")

    def close(self) -> None:
        self.http.close()

    def consent_page(self, challenge: str, state: str) -> httpx2.Response:
        page = self.http.get(self.meta["authorization_endpoint"], params=self.authorization_query(challenge, state))
        assert page.status_code == 200 and "Allow Test connector?" in page.text, page.text
        return page

    def authorization_query(self, challenge: str, state: str) -> dict[str, str]:
        return {
            "response_type": "code", "client_id": self.client_id, "redirect_uri": self.callback.url,
            "code_challenge": challenge, "code_challenge_method": "S256", "state": state, "resource": self.resource,
        }  # fmt: skip

    def answer(self, page: httpx2.Response, api_token: str, action: str = "allow") -> httpx2.Response:
        request = re.search(r'name="request" value="([^"]+)"', page.text)
        assert request is not None
        form = {"request": request.group(1), "api_token": api_token, "action": action}
        return self.http.post(str(page.url).split("?")[0], data=form)

    def token(self, at: str | None = None, **form: str) -> httpx2.Response:
        """A request to the token endpoint (of the server at ``at``, else the one the metadata names)."""
        sent, headers = {"client_id": self.client_id, **form}, {}
        if self.client_secret is not None and self.auth_method == "client_secret_basic":
            pair = f"{quote(self.client_id)}:{quote(self.client_secret)}".encode()
            headers["Authorization"] = "Basic " + base64.b64encode(pair).decode()
        elif self.client_secret is not None:
            sent["client_secret"] = self.client_secret
        return self.http.post(f"{at}/token" if at else self.meta["token_endpoint"], data=sent, headers=headers)

    def revoke(self, token: str) -> httpx2.Response:
        # The SDK's revocation endpoint asks every client for client_secret, empty for a public one.
        sent = {"client_id": self.client_id, "token": token, "client_secret": self.client_secret or ""}
        return self.http.post(self.meta["revocation_endpoint"], data=sent)

    def refresh(self, refresh_token: str, at: str | None = None) -> httpx2.Response:
        return self.token(at, grant_type="refresh_token", refresh_token=refresh_token)

    def code(self, api_token: str) -> tuple[str, str]:
        """A code for ``api_token``'s user, and its PKCE verifier."""
        verifier, challenge = pkce()
        state = secrets.token_urlsafe(8)
        self.answer(self.consent_page(challenge, state), api_token)
        back = self.callback.received[-1]
        assert back["state"] == state and back["iss"] == self.issuer
        return back["code"], verifier

    def exchange(self, code: str, verifier: str) -> httpx2.Response:
        return self.token(
            grant_type="authorization_code", code=code, redirect_uri=self.callback.url, code_verifier=verifier,
            resource=self.resource,
        )  # fmt: skip

    def authorize(self, api_token: str) -> dict[str, Any]:
        code, verifier = self.code(api_token)
        answer = self.exchange(code, verifier)
        assert answer.status_code == 200, answer.text
        return {**answer.json(), "code": code, "verifier": verifier}


def status(server: HttpServer, token: str) -> int:
    """What ``/mcp`` answers an initialize sent with ``token``."""
    headers = {"Authorization": f"Bearer {token}", "Accept": "application/json, text/event-stream"}
    return httpx2.post(f"{server.url}/mcp", json=initialize_body(), headers=headers).status_code
