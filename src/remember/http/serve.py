"""Running the HTTP application under uvicorn until SIGINT or SIGTERM.

On either signal uvicorn stops accepting connections and lets the requests in
flight finish (a write in progress completes) for up to ``GRACE`` seconds;
then the services close and the command exits 0 (uvicorn hands the signal on
once it is done; here it ends the run instead of the process).
"""

from __future__ import annotations

import logging
import signal
from types import FrameType

from remember.config import Settings
from remember.http.app import build_app
from remember.service import Services
from remember.web import LoginCodes

GRACE = 10  # seconds for requests in flight at shutdown (an open event stream is closed after it)

log = logging.getLogger(__name__)


def run(services: Services, settings: Settings, *, auth: bool = True, codes: LoginCodes | None = None) -> None:
    import uvicorn

    app = build_app(services, settings, auth=auth, codes=codes)
    http = settings.http
    config = uvicorn.Config(
        app,
        host=http.host,
        port=http.port,
        log_level=settings.log_level.lower(),
        timeout_graceful_shutdown=GRACE,
        server_header=False,
        proxy_headers=False,
    )
    server = uvicorn.Server(config)
    log.warning(
        "remember serves MCP at http://%s:%s/mcp and the dashboard at / (%s)",
        http.host,
        http.port,
        "tokens" if auth else "no auth",
    )
    previous = signal.signal(signal.SIGTERM, _stopped)
    try:
        server.run()
    except Stopped:
        pass
    finally:
        signal.signal(signal.SIGTERM, previous)


class Stopped(Exception):
    """SIGTERM arrived (and uvicorn has shut down gracefully)."""


def _stopped(_signum: int, _frame: FrameType | None) -> None:
    raise Stopped
