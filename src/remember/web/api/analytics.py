"""The analytics page's endpoints: the caller's memories over time, and one template's figures.

``GET /api/analytics/overview?bucket=&when=`` totals and memories per period by type and by
template (``bucket``: day, week, month or year, chosen by the span when left out; ``when``:
``created`` or ``occurred``). ``GET /api/analytics/templates`` the templates to pick from (own
ones, and built-ins with memories). ``GET /api/analytics/templates/{template_id}?bucket=``
completion, fill rates, common values and suggestions shown and applied per period; a
template the caller cannot see answers 404.
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
    return call.services.analytics.overview(call.caller, bucket=call.text("bucket"), when=when).as_dict()


def templates(call: Call) -> dict[str, Any]:
    return {"templates": [t.as_dict() for t in call.services.analytics.templates_used(call.caller)]}


def template(call: Call) -> dict[str, Any]:
    found = call.services.analytics.template(call.caller, call.path["template_id"], bucket=call.text("bucket"))
    return found.as_dict()
