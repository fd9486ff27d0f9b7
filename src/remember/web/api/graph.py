"""The graph page's endpoint: ``GET /api/graph`` draws relationships across all the caller's memories.

Its filters are query parameters, each may be repeated: ``type`` (relationship types), ``template``
(template ids), ``tag`` (memory tags), ``space`` (the spaces drawn, side by side: every space of the caller's
unless some are named), ``since``/``until`` (ISO dates) with ``dated_by`` ``happened`` (the
memories' ``context.timestamp``) or ``valid`` (the relationships' validity), ``include_ended`` (relationships
whose ``valid_until`` has passed, hidden otherwise) and ``limit`` (memories, at most 2,000). Any other
parameter is refused, so that a misspelt filter is not silently ignored (service/graph.py).
"""

from __future__ import annotations

from typing import Any

from starlette.routing import Route

from remember.errors import ValidationFailed
from remember.service import space_reads
from remember.service.graph import DEFAULT_LIMIT, MAX_LIMIT, GraphRequest
from remember.web.context import WebContext
from remember.web.responses import Call, routes_at

REPEATED = {"type": "types", "template": "template_ids", "tag": "tags"}
SPACE = "space"
SINGLE = ("since", "until", "dated_by", "include_ended", "limit")


def routes(ctx: WebContext) -> list[Route]:
    return routes_at(ctx, {"/api/graph": {"GET": graph}})


def graph(call: Call) -> dict[str, Any]:
    unknown = sorted(k for k in call.query_lists if k not in REPEATED and k not in SINGLE and k != SPACE)
    if unknown:
        known = ", ".join([*REPEATED, SPACE, *SINGLE])
        raise ValidationFailed.single(unknown[0][:60], "unknown_field", f"Filter the graph by {known} only.")
    for name in SINGLE:
        if len(call.query_lists.get(name, [])) > 1:
            raise ValidationFailed.single(name, "repeated", f"Give {name} once.")
    lists = {field: [v for v in call.query_lists.get(name, []) if v != ""] for name, field in REPEATED.items()}
    return space_reads.graph(
        call.services.graph, call.reading(),
        GraphRequest(
            **lists, since=call.text("since"), until=call.text("until"),
            dated_by=call.text("dated_by", "happened"), include_ended=call.flag("include_ended"),
            limit=call.number("limit", DEFAULT_LIMIT, 1, MAX_LIMIT),
        ),
    ).as_dict()  # fmt: skip
