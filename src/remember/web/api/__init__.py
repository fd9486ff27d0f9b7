"""The dashboard's JSON API: one module of endpoints per page, all under ``/api``.

Each module has ``routes(ctx) -> list[Route]``; every endpoint is built with
``responses.endpoint``, so each one checks the request, binds it to its user and
answers errors alike. Add a module here to add its endpoints.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from remember.errors import NotFound
from remember.web.api import (
    analytics,
    curation,
    duplicates,
    graph,
    memories,
    new_memories,
    preferences,
    relationships,
    session,
    spaces,
    templates,
    tokens,
    transfer,
)
from remember.web.context import WebContext
from remember.web.responses import error_response

MODULES = (
    session, curation, duplicates, graph, memories, new_memories, relationships, spaces, templates, preferences,
    tokens, transfer, analytics,
)  # fmt: skip


def routes(ctx: WebContext) -> list[Route]:
    found = [route for module in MODULES for route in module.routes(ctx)]
    return [*found, Route("/api/{rest:path}", _unknown, methods=["GET", "POST", "PATCH", "PUT", "DELETE"])]


async def _unknown(request: Request) -> Response:
    """Any other ``/api/`` address: a JSON 404 like every other error of the API."""
    path = request.url.path[:200]
    return error_response(NotFound(f"The dashboard's API has no {request.method} {path}; see docs/dashboard.md."))
