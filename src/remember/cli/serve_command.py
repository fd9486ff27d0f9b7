"""``remember serve``: the MCP server over stdio (the default) or streamable HTTP.

Over stdio the database is opened at once (a missing, damaged or newer database
is reported before the client is answered), and the services over it are built
on the first request that needs them, or in the background once ``tools/list`` is
answered, with the embedding model (``mcp/warmup.py``): a client's handshake and
``tools/list`` do not wait for the service layer to be imported.
"""

from __future__ import annotations

import argparse
import dataclasses
from typing import TYPE_CHECKING

from remember.cli.grammar import Commands, runs_alone
from remember.config import Settings
from remember.errors import ValidationFailed

if TYPE_CHECKING:
    from remember.service import Services
    from remember.store import Store


def register(commands: Commands) -> None:
    sub = commands.add_parser("serve", help="run the MCP server", description="Run the MCP server.")
    sub.add_argument(
        "--transport", choices=["stdio", "http"], default="stdio", help="how clients connect (default: stdio)"
    )
    sub.add_argument("--http", action="store_true", help="serve streamable HTTP on /mcp (same as --transport http)")
    sub.add_argument("--host", help="address to listen on with --http (default: $REMEMBER_HTTP_HOST or 127.0.0.1)")
    sub.add_argument("--port", type=int, help="port to listen on with --http (default: $REMEMBER_HTTP_PORT or 8765)")
    sub.add_argument(
        "--no-auth",
        action="store_true",
        help="with --http on loopback only: no tokens, every request acts for --user",
    )
    runs_alone(sub, serve)


def serve(settings: Settings, args: argparse.Namespace) -> None:
    """Run the MCP server over stdio until the client hangs up, or over HTTP until stopped."""
    http = args.http or args.transport == "http"
    if not http and (args.host or args.port is not None or args.no_auth):
        raise ValidationFailed.single("--host", "invalid", "--host, --port and --no-auth go with --http.")
    if http:
        _serve_http(settings, args)
    else:
        _serve_stdio(settings)


def _serve_http(settings: Settings, args: argparse.Namespace) -> None:
    from remember.app import open_services

    settings = dataclasses.replace(settings, http=settings.http.with_address(args.host, args.port))
    if args.no_auth:  # refused before the database is opened
        from remember.http.app import refuse_open_beyond_loopback

        refuse_open_beyond_loopback(settings.http)
    services = open_services(settings)
    services.indexer.warn_at_start()
    try:
        from remember.http.serve import run

        run(services, settings, auth=not args.no_auth)
    finally:
        services.close()


def _serve_stdio(settings: Settings) -> None:
    from remember.app import open_configured_store
    from remember.caller import Caller
    from remember.mcp.server import build_server
    from remember.mcp.stdio import answering_bad_lines

    store = open_configured_store(settings)
    try:
        caller = Caller(settings.user, settings.trust_level)
        server = build_server(
            lambda: _services(store, settings), lambda: caller, cache_dir=settings.home / "cache", warm_up=True
        )
        with answering_bad_lines():  # a line the SDK cannot read is answered, not dropped
            server.run("stdio")
    finally:
        store.close()


def _services(store: Store, settings: Settings) -> Services:
    from remember.app import services_over

    services = services_over(store, settings)
    services.indexer.warn_at_start()
    return services
