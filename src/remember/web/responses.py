"""Dashboard endpoints: a request read, checked and bound to its user, a service called, JSON answered.

``endpoint`` turns a plain function of a ``Call`` into a Starlette endpoint. The
function runs in a worker thread and passes the request's caller (its user and
trust level) to every service it calls, as the MCP tools do, so the same rules
hold. A ``RememberError`` becomes a JSON answer with the
status that fits and the message the CLI would print, plus every field problem:

    {"error": "ValidationFailed", "message": "...", "errors": [{"field": ..., "code": ..., "message": ...}]}
"""

from __future__ import annotations

import json
import logging
import math
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import anyio.to_thread
from pydantic import BaseModel
from pydantic_core import to_jsonable_python
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from remember.caller import Caller
from remember.errors import (
    AccessDenied,
    ConfigError,
    Conflict,
    NotFound,
    RememberError,
    StoreError,
    StoreReadOnly,
    StoreUnavailable,
    ValidationFailed,
)
from remember.space_keys import Role
from remember.web.session import NotLoggedIn, RefusedRequest, caller_of, check_request

if TYPE_CHECKING:
    from remember.service import Services
    from remember.web.context import WebContext

log = logging.getLogger(__name__)
NO_STORE = {"Cache-Control": "no-store"}


@dataclass(frozen=True)
class Call:
    """One API request, read: who it acts for, its path and query parameters, its JSON body."""

    services: Services
    caller: Caller
    path: Mapping[str, str]
    query: Mapping[str, str]
    body: Any
    query_lists: Mapping[str, list[str]]

    def text(self, name: str, default: str | None = None) -> str | None:
        value = self.query.get(name)
        return value if value not in (None, "") else default

    def number(self, name: str, default: int, low: int, high: int) -> int:
        """A whole-number query parameter within ``low``..``high``."""
        given = self.query.get(name)
        if given in (None, ""):
            return default
        try:
            value = int(given)
        except ValueError:
            value = low - 1
        if not low <= value <= high:
            raise ValidationFailed.single(name, "range", f"{name} is a whole number from {low} to {high}.", given)
        return value

    def flag(self, name: str, default: bool = False) -> bool:
        given = self.query.get(name)
        if given in (None, ""):
            return default
        if given.lower() in ("1", "true", "yes"):
            return True
        if given.lower() in ("0", "false", "no"):
            return False
        raise ValidationFailed.single(name, "type", f"{name} is true or false.", given)

    def reading(self) -> list[Caller]:
        """The caller in each space the request reads: ``space`` (repeated: a key, a name or ``personal``), else
        every space of the caller's, as the MCP tools' ``spaces``."""
        given = [s for s in self.query_lists.get("space", []) if s]
        return self.services.spaces.reading(self.caller, given or None)

    def on_memory(self, memory_id: str, need: Role = "reader") -> Caller:
        """The caller in the space that holds ``memory_id``, its role there checked for ``need``."""
        return self.services.spaces.on_memory(self.caller, memory_id, need=need)

    def json_object(self) -> dict[str, Any]:
        """The body, which must be a JSON object."""
        if not isinstance(self.body, dict):
            raise ValidationFailed.single("body", "type", "Send a JSON object as the request body.")
        return self.body


class TooLarge(ValidationFailed):
    """A request body over the server's limit, ``REMEMBER_HTTP_MAX_BODY`` (answered 413)."""


Handler = Callable[[Call], Any]
Endpoint = Callable[[Request], Awaitable[Response]]


def endpoint(ctx: WebContext, handler: Handler) -> Endpoint:
    """``handler`` as a Starlette endpoint of the dashboard's API."""

    async def serve(request: Request) -> Response:
        try:
            check_request(request, ctx.allowed_hosts)
            caller = await caller_of(request, ctx)
            call = Call(
                services=ctx.services,
                caller=caller,
                path=dict(request.path_params),
                query=dict(request.query_params),
                body=await _body(request, ctx.settings.http.max_body),
                query_lists={k: request.query_params.getlist(k) for k in request.query_params},
            )
            result = await anyio.to_thread.run_sync(handler, call)
        except RememberError as problem:
            return error_response(problem)
        except RecursionError:
            return error_response(ValidationFailed.single("body", "depth", "The request is nested too deeply."))
        except OverflowError:
            return error_response(ValidationFailed.single("body", "range", "A number in the request is too large."))
        if isinstance(result, Response):
            return result
        return JSONResponse(jsonable(result), headers=NO_STORE)

    return serve


def routes_at(ctx: WebContext, table: Mapping[str, Mapping[str, Handler]]) -> list[Route]:
    """Each handler of ``table`` (path -> method -> handler) served as an ``endpoint``."""
    return [
        Route(path, endpoint(ctx, handler), methods=[method])
        for path, by in table.items()
        for method, handler in by.items()
    ]


def guarded(ctx: WebContext, serve: Endpoint) -> Endpoint:
    """``serve`` (which binds no caller of its own) behind the request checks, its errors answered as JSON."""

    async def checked(request: Request) -> Response:
        try:
            check_request(request, ctx.allowed_hosts)
            return await serve(request)
        except RememberError as problem:
            return error_response(problem)

    return checked


async def read_body(request: Request, limit: int) -> bytes:
    """The request body, read no further than ``limit`` bytes (the SDK's limit covers only /mcp)."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise _too_large(limit)
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise _too_large(limit)
        chunks.append(chunk)
    return b"".join(chunks)


def _too_large(limit: int) -> TooLarge:
    message = (
        f"The request is larger than this server takes in one request ({size_text(limit)}, "
        "REMEMBER_HTTP_MAX_BODY). Send less at once, or raise REMEMBER_HTTP_MAX_BODY."
    )
    return TooLarge.single("body", "max_size", message)


def size_text(limit: int) -> str:
    return f"{limit / (1 << 20):g} MiB" if limit >= 1 << 20 else f"{limit / 1024:g} KiB"


async def _body(request: Request, limit: int) -> Any:
    if request.method in ("GET", "HEAD", "DELETE"):
        return None
    raw = await read_body(request, limit)
    if not raw.strip():
        return None
    try:
        return read_json(raw, "body")
    except UnicodeDecodeError as exc:
        raise ValidationFailed.single("body", "json", f"The request body is not JSON: {exc}.") from exc


class _NonFinite:
    """Where ``NaN``, ``Infinity`` or ``-Infinity`` stood in JSON read (none is a JSON number)."""

    def __init__(self, text: str) -> None:
        self.text = text


def read_json(raw: str | bytes, field: str) -> Any:
    """The JSON ``raw`` (the value of ``field``); a 422 naming where a NaN or an Infinity is, or nesting too deep."""
    try:
        parsed = json.loads(raw, parse_constant=_NonFinite)
    except json.JSONDecodeError as exc:
        where = "The request body" if field == "body" else f"The {field}"
        raise ValidationFailed.single(field, "json", f"{where} is not JSON: {exc}.") from exc
    except RecursionError as exc:
        raise ValidationFailed.single(field, "depth", f"The {field} is nested too deeply.") from exc
    _refuse_non_finite(parsed, field)
    return parsed


def _refuse_non_finite(parsed: Any, field: str) -> None:
    pending: list[tuple[str, Any]] = [(field, parsed)]
    while pending:
        path, value = pending.pop()
        if isinstance(value, _NonFinite):
            message = f"{path} is {value.text}, which is not a JSON number: send a finite number."
            raise ValidationFailed.single(path, "number", message, value.text)
        if isinstance(value, dict):
            pending += [(f"{path}.{key}" if path != "body" else str(key), v) for key, v in value.items()]
        elif isinstance(value, list):
            pending += [(f"{path}[{i}]", v) for i, v in enumerate(value)]


def jsonable(result: Any) -> Any:
    if isinstance(result, BaseModel):
        return result.model_dump(mode="json", exclude_none=True)
    return to_jsonable_python(result)


def status_of(problem: RememberError) -> int:
    statuses: list[tuple[type[RememberError], int]] = [
        (NotLoggedIn, 401), (RefusedRequest, 403), (NotFound, 404), (TooLarge, 413), (ValidationFailed, 422),
        (AccessDenied, 403),
        (Conflict, 409), (StoreUnavailable, 503), (StoreReadOnly, 503), (StoreError, 500), (ConfigError, 500),
    ]  # fmt: skip
    return next((status for kind, status in statuses if isinstance(problem, kind)), 400)


def error_body(problem: RememberError) -> dict[str, Any]:
    """What the dashboard answers of an error: its kind, its message, and every field problem."""
    body: dict[str, Any] = {"error": type(problem).__name__, "message": problem.message}
    if isinstance(problem, ValidationFailed):
        body["errors"] = [e.as_dict() for e in problem.errors]
    return body


def error_response(problem: RememberError) -> JSONResponse:
    if status_of(problem) >= 500:
        log.warning("dashboard request failed: %s", problem.message)
    return JSONResponse(json_safe(jsonable(error_body(problem))), status_code=status_of(problem), headers=NO_STORE)


def json_safe(value: Any, depth: int = 0) -> Any:
    """``value`` with every non-finite float as its text (JSON has no NaN or Infinity), for any error's echo."""
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if depth > 64:
        return value if isinstance(value, str | int | float | bool | None) else "…"
    if isinstance(value, dict):
        return {k: json_safe(v, depth + 1) for k, v in value.items()}
    if isinstance(value, list):
        return [json_safe(v, depth + 1) for v in value]
    return value
