"""Hostile input over HTTP: every tool's arguments fuzzed (hypothesis) through a real server, and
malformed JSON-RPC, oversized bodies, wrong content types, missing, unknown and duplicated session
headers. Never a 5xx, never a crash (the server stays healthy), always a clear error, and nothing
of another user's changed; the raw-protocol attacks change nothing at all."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from http_support import HttpServer, initialize_body, logical_fingerprint
from remember.caller import Caller
from remember.service import Services
from remember.service.tokens import TokenService
from remember.store import Store

pytestmark = pytest.mark.slow

ACCEPT = "application/json, text/event-stream"
JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=60),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4),
    max_leaves=12,
)


class Session:
    """A raw session-based MCP conversation (2025-06-18) over plain HTTP, to send anything at all."""

    def __init__(self, server: HttpServer, token: str) -> None:
        self.url = f"{server.url}/mcp"
        self.http = httpx2.Client(timeout=60, headers={"Authorization": f"Bearer {token}", "Accept": ACCEPT})
        opened = self.http.post(self.url, json=initialize_body())
        assert opened.status_code == 200, opened.text
        self.headers = {"Mcp-Session-Id": opened.headers["mcp-session-id"], "Mcp-Protocol-Version": "2025-06-18"}
        notified = self.post({"jsonrpc": "2.0", "method": "notifications/initialized"})
        assert notified.status_code == 202
        self.ids = 100

    def post(self, message: Any, **headers: str) -> httpx2.Response:
        return self.http.post(self.url, json=message, headers={**self.headers, **headers})

    def call(self, tool: str, arguments: Any) -> dict[str, Any]:
        """The JSON-RPC answer to a tools/call (the SDK answers it as one server-sent event)."""
        self.ids += 1
        answer = self.post(
            {"jsonrpc": "2.0", "id": self.ids, "method": "tools/call", "params": {"name": tool, "arguments": arguments}}
        )
        assert answer.status_code < 500, answer.text
        assert answer.status_code == 200, answer.text
        return _message(answer)


def _message(answer: httpx2.Response) -> dict[str, Any]:
    if answer.headers.get("content-type", "").startswith("application/json"):
        found: dict[str, Any] = answer.json()
        return found
    lines = answer.text.replace("\r\n", "\n").split("\n")  # not splitlines: JSON may hold U+0085
    data = [line[5:].strip() for line in lines if line.startswith("data:")]
    messages = [json.loads(d) for d in data if d]
    replies = [m for m in messages if "id" in m]
    assert len(replies) == 1, answer.text
    return replies[0]


@pytest.fixture
def unlimited(store: Store, tmp_path: Path) -> Iterator[HttpServer]:
    """A server without a rate limit: the fuzzer sends more than a client would."""
    server = HttpServer(tmp_path / "home", store.url, env={"REMEMBER_HTTP_RATE_LIMIT": "0"}).start()
    yield server
    server.stop()


@pytest.fixture
def fuzzed(unlimited: HttpServer, tokens: TokenService, services: Services) -> Iterator[tuple[Session, dict[str, Any]]]:
    services.memories.create(Caller("alice"), {"content": "Alice's untouchable note", "tags": ["keep"]})
    session = Session(unlimited, tokens.create("mallory").secret)
    listed = session.post({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}})
    schemas = {t["name"]: t["inputSchema"] for t in _message(listed)["result"]["tools"]}
    yield session, schemas
    session.http.close()


FUZZ_COUNTS: dict[str, int] = {}


def _arguments(schema: dict[str, Any]) -> st.SearchStrategy[Any]:
    """Mostly the tool's own parameter names with any JSON values; sometimes anything at all."""
    names = list(schema.get("properties", {}))
    known = st.dictionaries(st.sampled_from(names), JSON_VALUES, max_size=len(names)) if names else st.just({})
    return st.one_of(known, known, known, st.dictionaries(st.text(max_size=10), JSON_VALUES, max_size=3), JSON_VALUES)


def test_fuzzed_arguments_of_every_tool_get_clear_answers(
    fuzzed: tuple[Session, dict[str, Any]], store: Store, unlimited: HttpServer
) -> None:
    session, schemas = fuzzed
    before = logical_fingerprint(store, ["alice"])

    @settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    @given(data=st.data())
    def one_tool(tool: str, data: st.DataObject) -> None:
        arguments = data.draw(_arguments(schemas[tool]))
        reply = session.call(tool, arguments)
        FUZZ_COUNTS[tool] = FUZZ_COUNTS.get(tool, 0) + 1
        if "error" in reply:  # a protocol-level refusal: a JSON-RPC error with a message
            assert reply["error"]["code"] in (-32602, -32600) and reply["error"]["message"], reply
            return
        result = reply["result"]
        if result.get("isError"):
            said = " ".join(c.get("text", "") for c in result["content"])
            assert said.strip() and "Traceback" not in said, said

    for tool in sorted(schemas):
        one_tool(tool)
    assert set(FUZZ_COUNTS) == set(schemas)
    assert httpx2.get(f"{unlimited.url}/health").status_code == 200
    assert logical_fingerprint(store, ["alice"]) == before


def test_malformed_requests_get_4xx_and_change_nothing(
    http_server: HttpServer, tokens: TokenService, services: Services, store: Store, tmp_path: Path
) -> None:
    services.memories.create(Caller("alice"), {"content": "Alice's note"})
    session = Session(http_server, tokens.create("mallory").secret)
    before = logical_fingerprint(store, store.transfer.user_ids())
    url, auth = session.url, session.http.headers["authorization"]
    raw = httpx2.Client(timeout=60)
    sent: list[tuple[str, httpx2.Response]] = []

    def send(why: str, body: bytes, **headers: str) -> None:
        base = {"Authorization": auth, "Accept": ACCEPT, "Content-Type": "application/json", **session.headers}
        sent.append((why, raw.post(url, content=body, headers={**base, **headers})))

    send("not JSON", b"{not json")
    send(
        "truncated", b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "remember_create_memory"'
    )
    send("a number", b"42")
    send("a lone surrogate", b'{"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"x": "\\ud800"}}')
    send("an empty batch", b"[]")
    send("a batch", json.dumps([{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}] * 3).encode())
    send("no jsonrpc", json.dumps({"id": 1, "method": "tools/list"}).encode())
    send("jsonrpc 1.0", json.dumps({"jsonrpc": "1.0", "id": 1, "method": "tools/list"}).encode())
    send("no method", json.dumps({"jsonrpc": "2.0", "id": 1}).encode())
    send("unknown method", json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tables/drop"}).encode())
    send("params a list", json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": [1, 2]}).encode())
    send(
        "name not a text",
        json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": 5}}).encode(),
    )
    send(
        "deep nesting",
        b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": ' + b"[" * 5000 + b"]" * 5000 + b"}",
    )
    send(
        "oversized",
        json.dumps(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "tools/call",
                "params": {"name": "remember_create_memory", "arguments": {"content": "x" * 3_000_000}},
            }
        ).encode(),
    )
    send(
        "text/plain",
        json.dumps({"jsonrpc": "2.0", "id": 9, "method": "tools/list"}).encode(),
        **{"Content-Type": "text/plain"},
    )
    send("form", b"a=1&b=2", **{"Content-Type": "application/x-www-form-urlencoded"})
    send("no Accept", json.dumps({"jsonrpc": "2.0", "id": 9, "method": "tools/list"}).encode(), Accept="text/html")
    send(
        "unknown session",
        json.dumps({"jsonrpc": "2.0", "id": 9, "method": "tools/list"}).encode(),
        **{"Mcp-Session-Id": "deadbeef"},
    )
    send(
        "bogus protocol version",
        json.dumps({"jsonrpc": "2.0", "id": 9, "method": "tools/list"}).encode(),
        **{"Mcp-Protocol-Version": "1999-01-01"},
    )
    no_session = {"Authorization": auth, "Accept": ACCEPT, "Content-Type": "application/json"}
    sent.append(
        (
            "no session",
            raw.post(
                url,
                content=json.dumps({"jsonrpc": "2.0", "id": 9, "method": "tools/list"}).encode(),
                headers=no_session,
            ),
        )
    )
    twice = httpx2.Headers(
        [*no_session.items(), ("Mcp-Session-Id", session.headers["Mcp-Session-Id"]), ("Mcp-Session-Id", "deadbeef")]
    )
    sent.append(
        (
            "two session ids",
            raw.post(
                url, content=json.dumps({"jsonrpc": "2.0", "id": 9, "method": "tools/list"}).encode(), headers=twice
            ),
        )
    )
    sent.append(("GET without session", raw.get(url, headers=no_session)))
    sent.append(("DELETE unknown session", raw.delete(url, headers={**no_session, "Mcp-Session-Id": "deadbeef"})))
    sent.append(("PUT", raw.put(url, content=b"{}", headers=no_session)))
    server_errors = {why: (r.status_code, r.text[:200]) for why, r in sent if r.status_code >= 500}
    assert server_errors == {}
    refused = {why for why, r in sent if r.status_code >= 400 or "error" in r.text}
    assert refused >= {"not JSON", "truncated", "a number", "oversized", "text/plain", "unknown session", "no session"}
    assert {r.status_code for why, r in sent if why == "oversized"} == {413}
    answers = dict(sent)
    assert answers["not JSON"].json()["error"]["code"] == -32700  # a JSON-RPC parse error, as over stdio
    assert answers["a lone surrogate"].status_code < 500
    assert httpx2.get(f"{http_server.url}/health").status_code == 200
    assert session.call("remember_list_memories", {})["result"]["structuredContent"]["total"] == 0  # still served
    assert logical_fingerprint(store, store.transfer.user_ids()) == before
    raw.close()
    session.http.close()
