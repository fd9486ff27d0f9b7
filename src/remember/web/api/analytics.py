"""The analytics page's endpoints: the memories of the spaces read over time, and one template's figures.

``GET /api/analytics/overview?bucket=&when=&space=`` totals and memories per period by type and by
template, of the spaces named (repeated; none: every space of the caller's); ``bucket``: day, week, month
or year, chosen by the span when left out; ``when``: ``created`` or ``occurred``.
``GET /api/analytics/templates?space=`` the templates to pick from (those of the spaces named, or of every
space of the caller's, each naming its shared space, and built-ins with memories there).
``GET /api/analytics/templates/{template_id}?bucket=`` completion, fill rates, common values and
suggestions shown and applied per period, read in the template's space; a template the caller cannot see
answers 404.
"""

from __future__ import annotations

from typing import Any

from starlette.routing import Route

from remember.web.context import WebContext
from remember.web.responses import Call, endpoint


def routes(ctx: WebContext) -> list[Route]:
    return [
        Route("/api/analytics/overview", endpoint(ctx, overview), methods=["GET"]),
        Route("/api/analytics/templates", endpoint(ctx, templates), methods=["GET"]),
        Route("/api/analytics/templates/{template_id}", endpoint(ctx, template), methods=["GET"]),
    ]


def overview(call: Call) -> dict[str, Any]:
    when = call.text("when") or "created"
    found = call.services.analytics.overview(call.caller, bucket=call.text("bucket"), when=when, readers=call.reading())
    return found.as_dict()


def templates(call: Call) -> dict[str, Any]:
    used = call.services.analytics.templates_used(call.caller, call.reading())
    return {"templates": [t.as_dict() for t in used]}


def template(call: Call) -> dict[str, Any]:
    template_id = call.path["template_id"]
    acting = call.services.spaces.on_template(call.caller, template_id)
    found = call.services.analytics.template(acting, template_id, bucket=call.text("bucket"))
    return found.as_dict()
