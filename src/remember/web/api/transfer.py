"""The import and export pages' API: uploads run as background jobs, exports download as one file.

``GET /api/imports`` names the formats and the size limit.
``POST /api/imports?format=FORMAT&dry_run=1&name=FILE&on_conflict=skip`` takes the file itself as
the request body (at most ``REMEMBER_HTTP_MAX_BODY`` bytes, 1 MiB by default:
413 beyond, with the limit named) and answers ``202`` with the job
(``imports.py`` says what each format does); ``GET /api/imports/{id}`` is the
job's progress and, once done, its report: only the caller's own jobs.
``space=NAME`` (a shared space's name or key, or ``personal``) imports into that space, as
``remember import --space`` does: the caller writes there, and is recorded as the author of what is stored.
``GET /api/export?format=jsonl|server-memory|markdown&space=NAME`` downloads the memories of the caller's
personal space, or of the shared space ``space`` the caller reads (within the caller's trust level), as
``remember export [--space NAME]`` writes them, the file named after the space;
Markdown, one note per memory, comes as a zip of the notes.
"""

from __future__ import annotations

import os
import re
import tempfile
import zipfile
from datetime import date
from pathlib import Path
from typing import Any

from starlette.background import BackgroundTask
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Route

from remember.caller import Caller
from remember.errors import RememberError, ValidationFailed, excerpt
from remember.models import ON_CONFLICT, OnConflict
from remember.service.import_export.jsonl import write_export
from remember.service.import_export.peers.exporting import EXPORT_FORMATS, to_markdown, to_server_memory
from remember.store import Store
from remember.web.context import WebContext
from remember.web.imports import IMPORT_FORMATS, importer
from remember.web.jobs import Jobs
from remember.web.responses import NO_STORE, Call, Endpoint, TooLarge, endpoint, error_response, read_body, size_text
from remember.web.session import caller_of, check_request

MAX_NAME = 500  # characters of the uploaded file's name
_FILE_SAFE = re.compile(r"[^A-Za-z0-9_.-]+")
SUFFIXES = {"jsonl": ".jsonl", "server-memory": ".server-memory.jsonl", "markdown": ".markdown.zip"}


def routes(ctx: WebContext) -> list[Route]:
    jobs = Jobs()

    def progress(call: Call) -> dict[str, Any]:
        return jobs.get(call.caller.user, call.path["job_id"]).as_dict()

    def limits(_: Call) -> dict[str, Any]:
        return {"max_bytes": ctx.settings.http.max_body, "formats": list(IMPORT_FORMATS)}

    return [
        Route("/api/imports", endpoint(ctx, limits), methods=["GET"]),
        Route("/api/imports", _start(ctx, jobs), methods=["POST"]),
        Route("/api/imports/{job_id}", endpoint(ctx, progress), methods=["GET"]),
        Route("/api/export", endpoint(ctx, export), methods=["GET"]),
    ]


def _start(ctx: WebContext, jobs: Jobs) -> Endpoint:
    async def serve(request: Request) -> Response:
        try:
            check_request(request, ctx.allowed_hosts)
            caller = await caller_of(request, ctx)
            format, name, dry_run, on_conflict = _options(request)
            acting = _into(ctx, caller, request.query_params.get("space"))
            data = await upload(request, ctx.settings.http.max_body)
            work = importer(ctx.services, format, data, name, dry_run=dry_run, on_conflict=on_conflict, acting=acting)
            job = jobs.start(caller, format, dry_run, work)
        except RememberError as problem:
            return error_response(problem)
        return JSONResponse(job.as_dict(), status_code=202, headers=NO_STORE)

    return serve


def _options(request: Request) -> tuple[str, str, bool, OnConflict]:
    query = request.query_params
    format = query.get("format") or "remember"
    if format not in IMPORT_FORMATS:
        raise ValidationFailed.single(
            "format", "options", f"format is one of {', '.join(IMPORT_FORMATS)}; got {excerpt(format)}.", format
        )
    name = query.get("name") or "upload"
    if len(name) > MAX_NAME:
        raise ValidationFailed.single("name", "max_length", f"A file name is at most {MAX_NAME} characters.")
    dry = (query.get("dry_run") or "0").lower()
    if dry not in ("0", "1", "true", "false"):
        raise ValidationFailed.single("dry_run", "type", "dry_run is true or false.", dry)
    return format, name, dry in ("1", "true"), _on_conflict(query.get("on_conflict"), format)


def _into(ctx: WebContext, caller: Caller, space: str | None) -> Caller | None:
    """The caller acting in the space ``space`` names, a writer there (None: the caller's own account)."""
    if space is None:
        return None
    if len(space) > MAX_NAME:
        raise ValidationFailed.single("space", "max_length", f"A space's name is at most {MAX_NAME} characters.")
    return ctx.services.spaces.writing(caller, space)


def _on_conflict(given: str | None, format: str) -> OnConflict:
    """What a remember export's records the account has already become (refuse: the import is refused)."""
    chosen = next((c for c in ON_CONFLICT if c == (given or "refuse")), None)
    if chosen is None:
        raise ValidationFailed.single(
            "on_conflict", "options", f"on_conflict is one of {', '.join(ON_CONFLICT)}; got {excerpt(given)}.", given
        )
    if chosen != "refuse" and format != "remember":
        raise ValidationFailed.single(
            "on_conflict", "invalid", "on_conflict is for a remember export; other formats add beside what is "
            "stored, and never store a memory twice.", given,
        )  # fmt: skip
    return chosen


async def upload(request: Request, limit: int) -> bytes:
    """The uploaded file: the request body, read no further than ``limit`` bytes."""
    try:
        data = await read_body(request, limit)
    except TooLarge as exc:
        message = (
            f"The file is larger than this server takes in one request ({size_text(limit)}, "
            "REMEMBER_HTTP_MAX_BODY). Split it, raise REMEMBER_HTTP_MAX_BODY, or import it on the server "
            "with `remember import`."
        )
        raise TooLarge.single("file", "max_size", message) from exc
    if not data:
        raise ValidationFailed.single("file", "missing", "Send the file to import as the request body; it was empty.")
    return data


def export(call: Call) -> Response:
    format = call.text("format", "jsonl") or "jsonl"
    if format not in EXPORT_FORMATS:
        raise ValidationFailed.single(
            "format", "options", f"format is one of {', '.join(EXPORT_FORMATS)}; got {excerpt(format)}.", format
        )
    space = call.text("space")
    spaces = call.services.spaces
    acting = spaces.reading(call.caller, [space])[0] if space is not None else spaces.personal(call.caller)
    named = spaces.name_of(acting.user) if space is not None else None
    handle, path = tempfile.mkstemp(prefix="remember-export-")
    os.close(handle)
    try:
        _write(call.services.store, acting, format, Path(path), named)
    except BaseException:
        os.unlink(path)
        raise
    whose = _FILE_SAFE.sub("-", named or acting.person).strip("-.")[:60] or "space"
    name = f"remember-{whose}-{date.today().isoformat()}{SUFFIXES[format]}"
    kind = "application/zip" if format == "markdown" else "application/x-ndjson"
    return FileResponse(
        path, media_type=kind, filename=name, headers=NO_STORE, background=BackgroundTask(os.unlink, path)
    )


def _write(store: Store, acting: Caller, format: str, path: Path, named: str | None) -> None:
    """``acting``'s memories (a shared space's when it acts there, its header naming it ``named``) to ``path``."""
    if format == "markdown":
        with tempfile.TemporaryDirectory(prefix="remember-notes-") as folder:
            to_markdown(store, acting, Path(folder) / "notes")
            _zip(Path(folder) / "notes", path)
        return
    with path.open("w", encoding="utf-8") as out:
        if format == "server-memory":
            to_server_memory(store, acting, out)
        else:
            write_export(store, [acting], out, {acting.user: named} if named else None)


def _zip(folder: Path, target: Path) -> None:
    with zipfile.ZipFile(target, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for note in sorted(folder.rglob("*")):
            if note.is_file():
                archive.write(note, note.relative_to(folder).as_posix())
