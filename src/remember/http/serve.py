"""Running the HTTP application under uvicorn until SIGINT or SIGTERM.

On either signal uvicorn stops accepting connections and lets the requests in
flight finish (a write in progress completes) for up to ``GRACE`` seconds;
then the services close and the command exits 0 (uvicorn hands the signal on
once it is done; here it ends the run instead of the process).
"""

from __future__ import annotations

import dataclasses
import logging
import signal
import socket
from types import FrameType

from remember.config import Settings
from remember.errors import ConfigError
from remember.http.app import build_app
from remember.service import Services
from remember.web import LoginCodes

GRACE = 10  # seconds for requests in flight at shutdown (an open event stream is closed after it)

log = logging.getLogger(__name__)


def run(services: Services, settings: Settings, *, auth: bool = True, codes: LoginCodes | None = None) -> None:
    """Listen (port 0: on a free port, which the start-up line names) and serve until stopped."""
    import uvicorn

    listening = listen(settings.http.host, settings.http.port)
    settings = dataclasses.replace(settings, http=settings.http.with_address(None, listening.getsockname()[1]))
    app = build_app(services, settings, auth=auth, codes=codes)
    http = settings.http
    config = uvicorn.Config(
        app,
        host=http.host,
        port=http.port,
        log_level=settings.library_log_level.lower(),
        timeout_graceful_shutdown=GRACE,
        server_header=False,
        proxy_headers=False,
    )
    server = uvicorn.Server(config)
    quiet_disconnects()
    where = f"http://{f'[{http.host}]' if ':' in http.host else http.host}:{http.port}"
    public = f"; clients reach it at {http.public_url}" if http.public_url else ""
    log.info("remember serves MCP at %s/mcp and the dashboard at %s/ (%s)%s", where, where, _auth(auth), public)
    previous = signal.signal(signal.SIGTERM, _stopped)
    try:
        server.run(sockets=[listening])
    except Stopped:
        pass
    finally:
        signal.signal(signal.SIGTERM, previous)
        listening.close()


class OneLineDisconnects(logging.Filter):
    """A client that went away before its request's body arrived whole is logged in one line, without the
    traceback the MCP SDK logs with it (a slow or aborted upload is the client's doing, not an error here)."""

    def filter(self, record: logging.LogRecord) -> bool:
        from starlette.requests import ClientDisconnect

        if record.exc_info and isinstance(record.exc_info[1], ClientDisconnect):
            record.msg, record.args = "%s: the client went away before sending its whole request", (record.msg,)
            record.exc_info, record.exc_text, record.levelno, record.levelname = None, None, logging.INFO, "INFO"
        return True


def quiet_disconnects() -> None:
    """Attach ``OneLineDisconnects`` to the SDK's transport logger (once)."""
    sdk = logging.getLogger("mcp.server.streamable_http")
    if not any(isinstance(f, OneLineDisconnects) for f in sdk.filters):
        sdk.addFilter(OneLineDisconnects())


def listen(host: str, port: int) -> socket.socket:
    """A socket bound to ``host`` and ``port`` (0: a free port); ConfigError when it cannot be, saying why."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # IPPROTO_TCP named, not left 0: asyncio turns Nagle's algorithm off (TCP_NODELAY) only on connections
    # of a socket that says it is TCP; without, small responses wait ~40 ms for delayed ACKs.
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # a restart may reuse the port at once
        sock.bind((host.strip("[]"), port))
    except OSError as exc:
        sock.close()
        why = exc.strerror or str(exc)
        raise ConfigError(f"Cannot listen on {host}:{port}: {why}; give another --port (0 picks a free one).") from exc
    sock.set_inheritable(True)
    return sock


def _auth(auth: bool) -> str:
    return "tokens" if auth else "no auth"


class Stopped(Exception):
    """SIGTERM arrived (and uvicorn has shut down gracefully)."""


def _stopped(_signum: int, _frame: FrameType | None) -> None:
    raise Stopped
