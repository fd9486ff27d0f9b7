"""The dashboard's JSON API: one module of endpoints per page, all under ``/api``.

Each module has ``routes(ctx) -> list[Route]``; every endpoint is built with
``responses.endpoint``, so each one checks the request, binds it to its user and
answers errors alike. Add a module here to add its endpoints.
"""

from __future__ import annotations

from starlette.routing import Route

from remember.web.api import session, templates
from remember.web.context import WebContext

MODULES = (session, templates)


def routes(ctx: WebContext) -> list[Route]:
    return [route for module in MODULES for route in module.routes(ctx)]
