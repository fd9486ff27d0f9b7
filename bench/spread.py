"""A load balancer in the client: each HTTP request to the next live worker, as a proxy without sticky
sessions spreads stateless MCP requests (2026-07-28) over ``remember serve --http`` workers.

A worker that refuses a connection is taken out of the rotation and the request goes to the next one
(nothing reached the refusing worker, so nothing is sent twice), as nginx's ``proxy_next_upstream error``
and Caddy's ``lb_try_duration`` do. A request that fails once it was sent is not retried: it is
recorded (``failures``: the worker's URL and the error) and raised to the caller.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

import httpx2


@dataclass(frozen=True)
class Failure:
    worker: str  # the worker's URL
    error: str
    at: float  # time.monotonic()


@dataclass
class Spread:
    """What the rotation saw: requests per worker, workers taken out, requests that failed once sent."""

    sent: dict[str, int] = field(default_factory=dict)
    down: set[str] = field(default_factory=set)
    failures: list[Failure] = field(default_factory=list)


class RoundRobin(httpx2.AsyncBaseTransport):
    def __init__(self, urls: list[str], spread: Spread | None = None) -> None:
        self.urls = urls
        self.spread = spread or Spread()
        self._next = itertools.cycle(range(len(urls)))
        self._inner = httpx2.AsyncHTTPTransport()

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        for _ in range(len(self.urls)):
            worker = self.urls[next(self._next)]
            if worker in self.spread.down:
                continue
            target = httpx2.URL(worker)
            request.url = request.url.copy_with(host=target.host, port=target.port)
            request.headers["Host"] = f"{target.host}:{target.port}"
            try:
                response = await self._inner.handle_async_request(request)
            except httpx2.ConnectError:
                self.spread.down.add(worker)
                continue
            except httpx2.TransportError as exc:
                self.spread.failures.append(Failure(worker, repr(exc), time.monotonic()))
                raise
            self.spread.sent[worker] = self.spread.sent.get(worker, 0) + 1
            response.stream = _Watched(response.stream, worker, self.spread)
            return response
        raise httpx2.ConnectError("no worker accepts connections", request=request)

    async def aclose(self) -> None:
        await self._inner.aclose()


class _Watched(httpx2.AsyncByteStream):
    """A response body whose failure (its worker gone mid-answer) is recorded against its worker."""

    def __init__(self, stream: httpx2.SyncByteStream | httpx2.AsyncByteStream, worker: str, spread: Spread) -> None:
        assert isinstance(stream, httpx2.AsyncByteStream)
        self.stream, self.worker, self.spread = stream, worker, spread

    async def __aiter__(self) -> AsyncIterator[bytes]:
        try:
            async for chunk in self.stream:
                yield chunk
        except httpx2.TransportError as exc:
            self.spread.failures.append(Failure(self.worker, repr(exc), time.monotonic()))
            raise

    async def aclose(self) -> None:
        await self.stream.aclose()
