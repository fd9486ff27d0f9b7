"""An external OAuth issuer: its JWT access tokens, signed with a key made here and published as a
JWKS on loopback, are accepted only with this server's audience, the issuer, a live expiry and a
signature by one of its keys; the configured claim names the user."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx2
import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import rsa
from jwt.algorithms import RSAAlgorithm

from http_support import HttpServer, connect, initialize_body
from remember.models import MemoryQuery
from remember.store import Store
from support import ok

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

ISSUER = "https://login.example.test/realms/acme"


class Issuer:
    """A signing key, and its JWKS served over loopback HTTP as an issuer publishes it."""

    def __init__(self) -> None:
        self.key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        public = json.loads(RSAAlgorithm.to_jwk(self.key.public_key()))
        self.jwks = json.dumps({"keys": [{**public, "kid": "k1", "use": "sig", "alg": "RS256"}]}).encode()
        jwks = self.jwks

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.end_headers()
                self.wfile.write(jwks)

            def log_message(self, *args: Any) -> None:
                pass

        self.http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.http.server_address[1]}/certs"
        threading.Thread(target=self.http.serve_forever, daemon=True).start()

    def token(self, key: Any = None, **claims: Any) -> str:
        now = int(time.time())
        body = {"iss": ISSUER, "sub": "dana", "iat": now, "exp": now + 600, **claims}
        return jwt.encode(body, key or self.key, algorithm="RS256", headers={"kid": "k1"})


@pytest.fixture
def issuer() -> Iterator[Issuer]:
    made = Issuer()
    yield made
    made.http.shutdown()
    made.http.server_close()


@pytest.fixture
def server(store: Store, tmp_path: Path, issuer: Issuer) -> Iterator[HttpServer]:
    env = {"REMEMBER_OAUTH_ISSUER": ISSUER, "REMEMBER_OAUTH_JWKS_URL": issuer.url}
    running = HttpServer(tmp_path / "home", store.url, env=env).start()
    yield running
    running.stop()


def _status(server: HttpServer, token: str) -> int:
    headers = {"Authorization": f"Bearer {token}", "Accept": "application/json, text/event-stream"}
    return httpx2.post(f"{server.url}/mcp", json=initialize_body(), headers=headers).status_code


async def test_a_valid_token_acts_for_its_user(server: HttpServer, issuer: Issuer, store: Store) -> None:
    token = issuer.token(aud=f"{server.url}/mcp")
    async with connect(server, token) as client:
        ok(await client.call_tool("remember_create_memory", {"content": "dana's note"}))
    assert [m.content for m in store.memories.page("dana", MemoryQuery()).items] == ["dana's note"]


def test_the_metadata_names_the_issuer(server: HttpServer) -> None:
    found = httpx2.get(f"{server.url}/.well-known/oauth-protected-resource/mcp").json()
    assert found["resource"] == f"{server.url}/mcp"
    assert found["authorization_servers"] == [ISSUER]


def test_every_wrong_token_is_refused(server: HttpServer, issuer: Issuer) -> None:
    audience = f"{server.url}/mcp"
    other_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    now = int(time.time())
    wrong = {
        "another audience": issuer.token(aud="https://other.example/mcp"),
        "no audience": issuer.token(),
        "another issuer": issuer.token(aud=audience, iss="https://evil.example"),
        "expired": issuer.token(aud=audience, exp=now - 3600),
        "not yet valid": issuer.token(aud=audience, nbf=now + 3600),
        "another key": issuer.token(key=other_key, aud=audience),
        "no user": issuer.token(aud=audience, sub=None),
        "unusable user": issuer.token(aud=audience, sub="../root"),
        "bad trust": issuer.token(aud=audience, remember_trust_level=7),
        "symmetric with the public key": _hs256(
            {"iss": ISSUER, "sub": "dana", "aud": audience, "exp": now + 600}, issuer.jwks
        ),
        "unsigned": jwt.encode(
            {"iss": ISSUER, "sub": "dana", "aud": audience, "exp": now + 600}, None, algorithm="none"
        ),
    }
    answers = {why: _status(server, token) for why, token in wrong.items()}
    assert answers == dict.fromkeys(wrong, 401)
    assert _status(server, issuer.token(aud=audience)) == 200


async def test_a_trust_claim_bounds_the_token(server: HttpServer, issuer: Issuer) -> None:
    audience = f"{server.url}/mcp"
    async with connect(server, issuer.token(aud=audience)) as owner:
        ok(await owner.call_tool("remember_create_memory", {"content": "vault", "trust": 0.9}))
    async with connect(server, issuer.token(aud=audience, remember_trust_level=0.5)) as guest:
        assert ok(await guest.call_tool("remember_list_memories", {}))["total"] == 0


def _hs256(claims: dict[str, Any], secret: bytes) -> str:
    """A token MACed with ``secret`` (the issuer's public key set: the classic algorithm confusion);
    made by hand, as PyJWT refuses to make one."""

    def part(data: bytes) -> str:
        return base64.urlsafe_b64encode(data).rstrip(b"=").decode()

    signed = part(json.dumps({"alg": "HS256", "kid": "k1"}).encode()) + "." + part(json.dumps(claims).encode())
    return signed + "." + part(hmac.new(secret, signed.encode(), hashlib.sha256).digest())
