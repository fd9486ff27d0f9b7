"""The OpenAI-compatible embedder against a real HTTP server on 127.0.0.1 (a real round trip)."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np
import pytest

from remember.errors import ConfigError, StoreUnavailable
from remember.search.embedders import HashEmbedder, OpenAIEmbedder


@dataclass
class Behaviour:
    """What the test server answers; tests change it between requests."""

    dimension: int = 16
    status: int = 200
    raw_body: bytes | None = None
    delay: float = 0.0
    requests: list[tuple[str, dict[str, str], Any]] = field(default_factory=list)


class _Server(ThreadingHTTPServer):
    behaviour: Behaviour


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def do_POST(self) -> None:
        behaviour = self.server.behaviour
        request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        behaviour.requests.append((self.path, dict(self.headers), request))
        time.sleep(behaviour.delay)
        body = behaviour.raw_body if behaviour.raw_body is not None else _answer(request, behaviour)
        self.send_response(behaviour.status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        """Keep the test output quiet."""


def _answer(request: dict[str, Any], behaviour: Behaviour) -> bytes:
    # Unnormalised vectors, listed in reverse with their index, as servers may do.
    vectors = HashEmbedder(behaviour.dimension).embed(request["input"]) * 3.0
    data = [{"object": "embedding", "index": i, "embedding": v.tolist()} for i, v in enumerate(vectors)]
    return json.dumps({"object": "list", "data": data[::-1], "model": request["model"]}).encode()


@pytest.fixture
def server() -> Iterator[tuple[str, Behaviour]]:
    httpd = _Server(("127.0.0.1", 0), _Handler)
    httpd.behaviour = Behaviour()
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/v1", httpd.behaviour
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)


def test_round_trip_in_batches_keeps_order_and_normalises(server: tuple[str, Behaviour]) -> None:
    url, behaviour = server
    embedder = OpenAIEmbedder(url + "/", "nomic-embed-text", api_key="sk-test", batch_size=2)
    texts = ["alpha beta", "gamma", "delta epsilon zeta", "eta", "theta iota"]
    vectors = embedder.embed(texts)
    np.testing.assert_allclose(vectors, HashEmbedder(16).embed(texts), atol=1e-6)
    assert vectors.dtype == np.float32
    assert (embedder.name, embedder.dimension) == ("openai:nomic-embed-text", 16)
    assert [len(body["input"]) for _, _, body in behaviour.requests] == [2, 2, 1]
    path, headers, body = behaviour.requests[0]
    assert path == "/v1/embeddings"
    assert headers["Authorization"] == "Bearer sk-test"
    assert body == {"model": "nomic-embed-text", "input": ["alpha beta", "gamma"]}


def test_query_vector_and_blank_texts(server: tuple[str, Behaviour]) -> None:
    url, behaviour = server
    embedder = OpenAIEmbedder(url, "m")
    assert embedder.embed_query("gamma").shape == (16,)
    embedder.embed(["", "  "])
    assert behaviour.requests[-1][2]["input"] == [" ", " "]  # OpenAI refuses empty strings
    assert "Authorization" not in behaviour.requests[-1][1]


def test_dimension_is_discovered_with_one_probe(server: tuple[str, Behaviour]) -> None:
    url, behaviour = server
    behaviour.dimension = 24
    embedder = OpenAIEmbedder(url, "m")
    assert embedder.dimension == 24
    assert embedder.embed([]).shape == (0, 24)
    assert len(behaviour.requests) == 1


def test_a_given_dimension_needs_no_request_for_no_texts(server: tuple[str, Behaviour]) -> None:
    url, behaviour = server
    assert OpenAIEmbedder(url, "m", dimension=16).embed([]).shape == (0, 16)
    assert behaviour.requests == []


def test_a_wrong_dimension_is_a_config_error_that_mentions_reindex(server: tuple[str, Behaviour]) -> None:
    url, _ = server
    with pytest.raises(ConfigError, match=r"16-dimensional vectors .* 384 were expected.*remember reindex"):
        OpenAIEmbedder(url, "m", dimension=384).embed(["text"])


def test_a_server_that_changes_dimension_is_caught(server: tuple[str, Behaviour]) -> None:
    url, behaviour = server
    embedder = OpenAIEmbedder(url, "m")
    embedder.embed(["first"])
    behaviour.dimension = 32
    with pytest.raises(ConfigError, match="32-dimensional"):
        embedder.embed(["second"])


def test_connection_refused_is_store_unavailable() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    # Nothing listens on the port once the socket is closed.
    with pytest.raises(StoreUnavailable, match=r"Cannot reach the embedding server .* running"):
        OpenAIEmbedder(f"http://127.0.0.1:{port}/v1", "m", dimension=8).embed(["text"])


def test_a_slow_server_times_out_as_store_unavailable(server: tuple[str, Behaviour]) -> None:
    url, behaviour = server
    behaviour.delay = 0.5
    with pytest.raises(StoreUnavailable, match="timed out"):
        OpenAIEmbedder(url, "m", timeout=0.1).embed(["text"])


def test_a_server_error_is_store_unavailable_with_the_servers_message(server: tuple[str, Behaviour]) -> None:
    url, behaviour = server
    behaviour.status = 500
    behaviour.raw_body = b'{"error": {"message": "model crashed"}}'
    with pytest.raises(StoreUnavailable, match=r"HTTP 500: model crashed\. Retry later"):
        OpenAIEmbedder(url, "m").embed(["text"])


@pytest.mark.parametrize(
    ("status", "hint"),
    [(401, "Check the embedder API key"), (404, "ends in /v1"), (400, "Check the embedder model name")],
)
def test_a_refused_request_is_a_config_error_with_a_hint(server: tuple[str, Behaviour], status: int, hint: str) -> None:
    url, behaviour = server
    behaviour.status = status
    behaviour.raw_body = b"nope"
    with pytest.raises(ConfigError, match=rf"HTTP {status}: nope\. .*{hint}"):
        OpenAIEmbedder(url, "m").embed(["text"])


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b"<html>hello</html>", "did not answer with JSON"),
        (b"[1, 2, 3]", "no 'data' list"),
        (b'{"data": []}', "answered 0 embeddings for 1 texts"),
        (b'{"data": [{"index": 0}]}', "unexpected form"),
        (b'{"data": [{"index": 0, "embedding": "AAAA"}]}', "unexpected form|inconsistent"),
    ],
)
def test_malformed_answers_are_config_errors(server: tuple[str, Behaviour], body: bytes, message: str) -> None:
    url, behaviour = server
    behaviour.raw_body = body
    with pytest.raises(ConfigError, match=message):
        OpenAIEmbedder(url, "m").embed(["text"])


@pytest.mark.parametrize("base_url", ["file:///etc/passwd", "localhost:11434", "", "ftp://host/v1"])
def test_only_http_base_urls_are_accepted(base_url: str) -> None:
    with pytest.raises(ConfigError, match="must be an http"):
        OpenAIEmbedder(base_url, "m")
