"""The dashboard against hostile sessions and input: tokens that outlive their session, made-up
credentials, numbers JSON does not allow, nesting past Python's limits, and server paths in errors."""

from __future__ import annotations

import io
import json
import math
import time
import warnings
import zipfile
from collections.abc import Callable, Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp.server.auth.provider import AccessToken

from http_support import HttpServer, logical_fingerprint
from remember.caller import Caller
from remember.clock import parse_moment
from remember.errors import ValidationFailed
from remember.http.auth import caller_of_token
from remember.service import Services
from remember.service.tokens import TokenService
from remember.store import Store
from remember.web.responses import error_response, json_safe
from remember.web.routes import SECURITY_HEADERS
from web_support import Site

WRITE = {"X-Remember-Request": "1"}


@pytest.fixture
def server(tmp_path: Path, store: Store) -> Iterator[HttpServer]:
    started = HttpServer(tmp_path / "home", store.url).start()
    yield started
    started.stop()


@pytest.fixture
def web(server: HttpServer) -> Iterator[Callable[[str], httpx2.Client]]:
    """A client of the server sending a token (closed after the test)."""
    made: list[httpx2.Client] = []

    def client(token: str) -> httpx2.Client:
        made.append(httpx2.Client(base_url=server.url, headers=_as(token), timeout=30))
        return made[-1]

    yield client
    for c in made:
        c.close()


def _as(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}", **WRITE}


def test_a_token_made_in_a_session_ends_no_later_than_the_session(server: HttpServer, store: Store) -> None:
    tokens = TokenService(store.tokens)
    session = tokens.create("ada", expires_in=timedelta(minutes=90), trust_level=0.5)
    ends = session.token.expires_at
    assert ends is not None
    made = httpx2.post(f"{server.url}/api/tokens", json={"name": "forever"}, headers=_as(session.secret))
    assert made.status_code == 200, made.text
    assert made.json()["expires_at"] is not None
    assert parse_moment(made.json()["expires_at"]) <= ends
    longer = httpx2.post(
        f"{server.url}/api/tokens", json={"name": "long", "expires": "30d"}, headers=_as(session.secret)
    )
    assert longer.status_code == 422
    assert longer.json()["errors"][0]["field"] == "expires"
    assert "ends no later" in longer.json()["message"]
    shorter = httpx2.post(f"{server.url}/api/tokens", json={"expires": "30m"}, headers=_as(session.secret))
    assert shorter.status_code == 200
    assert parse_moment(shorter.json()["expires_at"]) < ends
    assert [t.name for t in tokens.list("ada") if t.expires_at is None] == []
    forever = tokens.create("bob").secret  # a token without an end makes tokens without one
    assert httpx2.post(f"{server.url}/api/tokens", json={}, headers=_as(forever)).json()["expires_at"] is None


def test_revoking_a_token_revokes_every_token_made_with_it(server: HttpServer, store: Store) -> None:
    tokens = TokenService(store.tokens)
    root = tokens.create("dee", name="root")  # no end: the tokens made with it have none either
    other = tokens.create("dee", name="other")
    child = httpx2.post(f"{server.url}/api/tokens", json={"name": "child"}, headers=_as(root.secret)).json()
    grandchild = httpx2.post(f"{server.url}/api/tokens", json={"name": "grand"}, headers=_as(child["token"])).json()
    sibling = httpx2.post(f"{server.url}/api/tokens", json={"name": "sibling"}, headers=_as(other.secret)).json()
    assert (child["made_with"], grandchild["made_with"]) == (root.token.id, child["id"])
    assert child["expires_at"] is None and grandchild["expires_at"] is None
    assert _status(server, grandchild["token"]) == 200
    tokens.revoke(root.token.id)
    for secret in (root.secret, child["token"], grandchild["token"]):
        assert _status(server, secret) == 401
    assert _status(server, sibling["token"]) == 200  # made with another token: untouched
    assert _status(server, other.secret) == 200
    assert {t.name for t in tokens.list("dee") if t.revoked_at is not None} == {"root", "child", "grand"}


def test_revoking_a_token_made_with_another_leaves_its_parent(server: HttpServer, store: Store) -> None:
    tokens = TokenService(store.tokens)
    root = tokens.create("dee")
    child = httpx2.post(f"{server.url}/api/tokens", json={}, headers=_as(root.secret)).json()
    gone = httpx2.delete(f"{server.url}/api/tokens/{child['id']}", headers=_as(root.secret))
    assert gone.status_code == 200 and gone.json()["logged_out"] is False
    assert (_status(server, child["token"]), _status(server, root.secret)) == (401, 200)


def _status(server: HttpServer, secret: str) -> int:
    return httpx2.get(f"{server.url}/api/tokens", headers=_as(secret)).status_code


def test_a_session_sees_and_revokes_only_tokens_at_most_as_trusted(server: HttpServer, store: Store) -> None:
    tokens = TokenService(store.tokens)
    owner = tokens.create("cy", name="owner")
    session = tokens.create("cy", name="half", trust_level=0.5)
    low = tokens.create("cy", name="low", trust_level=0.2)
    listed = httpx2.get(f"{server.url}/api/tokens", headers=_as(session.secret)).json()["tokens"]
    assert sorted(t["name"] for t in listed) == ["half", "low"]
    refused = httpx2.delete(f"{server.url}/api/tokens/{owner.token.id}", headers=_as(session.secret))
    assert refused.status_code == 404
    assert all(t.revoked_at is None for t in tokens.list("cy") if t.id == owner.token.id)
    assert httpx2.delete(f"{server.url}/api/tokens/{low.token.id}", headers=_as(session.secret)).status_code == 200
    full = httpx2.get(f"{server.url}/api/tokens", headers=_as(owner.secret)).json()["tokens"]
    assert sorted(t["name"] for t in full) == ["half", "low", "owner"]


def _refused(answer: httpx2.Response, field: str) -> str:
    assert answer.status_code == 422, answer.text
    assert answer.json()["errors"][0]["field"] == field, answer.text
    return str(answer.json()["message"])


def test_nan_infinity_and_huge_numbers_are_refused_naming_the_field(
    store: Store, web: Callable[[str], httpx2.Client]
) -> None:
    services = Services.over(store)
    memory = services.memories.create(Caller("eve"), {"content": "a steady note"})
    eve = web(services.tokens.create("eve").secret)
    before = logical_fingerprint(store, ["eve"])
    for alpha in ("nan", "inf", "-Infinity"):
        assert "alpha" in _refused(eve.get("/api/search", params={"q": "x", "alpha": alpha}), "alpha")
    edit = b'{"version": 1, "changes": {"weight": NaN}}'
    said = _refused(eve.patch(f"/api/memories/{memory.id}", content=edit), "changes.weight")
    assert "NaN" in said and "finite number" in said
    _refused(eve.post("/api/tokens", content=b'{"trust_level": NaN}'), "trust_level")
    _refused(eve.post("/api/tokens", content=b'{"trust_level": -Infinity}'), "trust_level")
    huge = eve.post("/api/tokens", content=b'{"trust_level": 1' + b"0" * 400 + b"}")
    assert "from 0 to 1" in _refused(huge, "trust_level")
    values = b'{"values": {"search.default_alpha": Infinity}}'
    _refused(eve.patch("/api/preferences", content=values), "values.search.default_alpha")
    assert logical_fingerprint(store, ["eve"]) == before
    assert [t.trust_level for t in services.tokens.list("eve")] == [1.0]


def test_filters_and_bodies_nested_past_the_limit_are_refused(
    server: HttpServer, store: Store, web: Callable[[str], httpx2.Client]
) -> None:
    fay = web(TokenService(store.tokens).create("fay").secret)
    deep_list = "[" * 5_000 + "]" * 5_000
    assert "nested too deeply" in _refused(fay.get("/api/memories", params={"filters": deep_list}), "filters")
    deep_and = '{"and": [' * 600 + '{"type": "x"}' + "]}" * 600
    _refused(fay.get("/api/memories", params={"filters": deep_and}), "filters")
    _refused(fay.get("/api/search", params={"q": "x", "filters": deep_and}), "filters")
    _refused(fay.get("/api/memories", params={"filters": '{"weight": {"gt": NaN}}'}), "filters.weight.gt")
    login = httpx2.post(f"{server.url}/api/session", content=b"[" * 100_000, headers=WRITE)
    assert login.status_code == 422
    assert fay.get("/api/memories").status_code == 200  # the server is well


def test_an_error_echoing_a_non_finite_number_is_still_json() -> None:
    problem = ValidationFailed.single("weight", "range", "A weight is from 0 to 1.", math.nan)
    answer = error_response(problem)
    assert answer.status_code == 422
    assert json.loads(answer.body)["errors"][0]["value"] == "nan"
    assert json_safe({"a": [math.inf, 1.5, {"b": -math.inf}]}) == {"a": ["inf", 1.5, {"b": "-inf"}]}


def _zip(*members: tuple[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with warnings.catch_warnings(), zipfile.ZipFile(buffer, "w") as archive:
        warnings.simplefilter("ignore")  # a duplicate name is what is being tested
        for name, data in members:
            archive.writestr(name, data)
    return buffer.getvalue()


def _failed_import(client: httpx2.Client, format: str, data: bytes, name: str) -> dict[str, Any]:
    job = client.post("/api/imports", params={"format": format, "name": name}, content=data).json()
    for _ in range(600):
        if job["state"] != "running":
            break
        time.sleep(0.05)
        job = client.get(f"/api/imports/{job['id']}").json()
    assert job["state"] == "failed", job
    error: dict[str, Any] = job["error"]
    assert "remember-import-" not in json.dumps(error) and "/tmp" not in json.dumps(error), error
    return error


def test_import_errors_name_the_upload_and_its_members_not_server_paths(
    store: Store, web: Callable[[str], httpx2.Client]
) -> None:
    gus = web(TokenService(store.tokens).create("gus").secret)
    not_json = _failed_import(gus, "mem0", b"{not json", "C:\\Users\\gus\\mem0 export.json")
    assert not_json["message"].startswith("Cannot import mem0 export.json: it is not JSON"), not_json
    not_text = _failed_import(gus, "server-memory", b"\xff\xfe\x00", "graph.jsonl")
    assert "Cannot import graph.jsonl: it is not UTF-8 text" in not_text["message"], not_text
    nested = _failed_import(gus, "basic-memory", _zip(("a.md", b"# A"), ("a.md/b.md", b"# B")), "notes.zip")
    assert nested["error"] == "ValidationFailed", nested
    assert "'a.md/b.md' cannot be unpacked" in nested["message"] and "same path" in nested["message"]
    twice = _failed_import(gus, "basic-memory", _zip(("a.md", b"# A"), ("a.md", b"# A again")), "notes.zip")
    assert "'a.md' cannot be unpacked" in twice["message"], twice
    assert not Services.over(store).memories.list(Caller("gus")).items


def test_a_missing_static_file_answers_404_with_the_security_headers(site: Site) -> None:
    for path in ("/static/nothing.js", "/static/deep/missing.css", "/static/"):
        answer = httpx2.get(f"{site.url}{path}")
        assert answer.status_code in (404, 405), path
        for name, value in SECURITY_HEADERS.items():
            assert answer.headers.get(name) == value, (path, name)
    found = httpx2.get(f"{site.url}/static/app.js")
    assert found.status_code == 200 and found.headers["x-frame-options"] == "DENY"


def test_the_end_of_a_verified_token_reaches_its_caller() -> None:
    oauth = AccessToken(token="t", client_id="c", scopes=[], expires_at=1_900_000_000, subject="hal")
    assert caller_of_token(oauth).expires_at == 1_900_000_000
    assert caller_of_token(oauth.model_copy(update={"expires_at": None})).expires_at is None
