"""What an import started from the dashboard does, in its job's thread, with the uploaded file.

The file is written to a temporary folder and read by the same readers as
``remember import``: ``remember`` (a JSON Lines export: restored into the caller's
account, which must be empty, as ``remember import`` requires of its users) and
``--from`` server-memory, mcp-memory-service, mem0 and basic-memory (one Markdown
note, or a zip of notes such as the dashboard's Markdown export: ``notes.py``),
which add memories to the caller's and never store one twice. A dry run reads and
checks everything and writes nothing.
"""

from __future__ import annotations

import json
import re
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

from remember.errors import Conflict, ValidationFailed
from remember.service import Services
from remember.service.import_export.jsonl import Record, check_records, import_records
from remember.service.import_export.peers import FORMATS, ImportReport, read, run
from remember.web import notes
from remember.web.jobs import ImportJob, Work

REMEMBER = "remember"
IMPORT_FORMATS = (REMEMBER, *FORMATS)
_SAFE_NAME = re.compile(r"[^\w.\- ]+")
ZIP_MAGIC = b"PK\x03\x04"
MAX_LISTED = 1000  # skipped records listed in a job's report (the server keeps reports in memory)


def importer(services: Services, format: str, data: bytes, name: str, *, dry_run: bool) -> Work:
    """The work of a job importing ``data`` (a file named ``name``) as ``format``."""

    def work(job: ImportJob) -> dict[str, Any]:
        with tempfile.TemporaryDirectory(prefix="remember-import-") as folder, _naming(Path(folder), name):
            if format == "basic-memory" and data.startswith(ZIP_MAGIC):
                notes.unpack(data, Path(folder) / "notes")
                return _add(services, job, format, Path(folder) / "notes", dry_run)
            path = Path(folder) / file_name(name, format)
            path.write_bytes(data)
            if format == REMEMBER:
                return _restore(services, job, path, dry_run)
            return _add(services, job, format, Path(folder) if format == "basic-memory" else path, dry_run)

    return work


@contextmanager
def _naming(folder: Path, name: str) -> Iterator[None]:
    """Errors that name the upload as it was sent, never the server's temporary folder it is read from."""
    try:
        yield
    except ValidationFailed as problem:
        shown = Path(name.replace("\\", "/")).name[:120] or "the uploaded file"

        def named(text: str) -> str:
            for where in sorted((str(p) for p in folder.iterdir()), key=len, reverse=True):
                text = text.replace(where, shown)
            return text.replace(str(folder), shown)

        problem.errors = [replace(e, message=named(e.message)) for e in problem.errors]
        problem.message = named(problem.message)
        problem.args = (problem.message,)
        raise


def file_name(given: str, format: str) -> str:
    """A harmless file name for the upload (a basic-memory note's title defaults to it)."""
    name = _SAFE_NAME.sub("", Path(given.replace("\\", "/")).name).strip(" .")[:120] or "upload"
    if format == "basic-memory" and not name.lower().endswith(".md"):
        name += ".md"
    return name


def _add(services: Services, job: ImportJob, format: str, path: Path, dry_run: bool) -> dict[str, Any]:
    parsed = read(format, path)
    job.read = job.total = len(parsed.memories)
    job.skipped = len(parsed.skipped)

    def progress(done: int, total: int) -> None:
        job.done, job.total = done, total

    report = run(
        services.memories, services.relationships, job.caller, format, parsed, dry_run=dry_run, progress=progress
    )
    job.stored, job.skipped = report.created, len(report.skipped)
    job.done = job.total
    answer = report.as_dict()
    answer["skipped"] = answer["skipped"][:MAX_LISTED]  # all are counted in the job's ``skipped``
    return answer


def _restore(services: Services, job: ImportJob, path: Path, dry_run: bool) -> dict[str, Any]:
    """A remember export of one user, restored as the caller (checked whole before anything is written)."""
    _one_user(path)
    memories = check_records(_as_caller(path, job.user)).get(job.user, 0)
    job.read = job.total = memories
    if job.user in services.store.transfer.user_ids():
        raise Conflict(
            "Your account has data already: a remember export (with its ids, history and versions) is restored "
            "only into an empty account. Import another server's format instead, or restore it as a new user on "
            "the server with `remember import FILE`."
        )
    if not dry_run:

        def progress(done: int, _: int) -> None:
            job.done = job.stored = done

        import_records(services.store, services.indexer, _as_caller(path, job.user), progress)
    job.done = job.total
    job.stored = memories
    return ImportReport(REMEMBER, dry_run, read=memories, created=memories).as_dict()


def _one_user(path: Path) -> None:
    users = {r.get("user_id") for r in _records(path) if isinstance(r, dict) and "user_id" in r}
    if len(users) > 1:
        raise ValidationFailed.single(
            "file",
            "users",
            f"This export holds {len(users)} users; the dashboard restores one user's export into your account. "
            "Export one user (`remember --user NAME export`), or import the whole file with `remember import`.",
        )


def _as_caller(path: Path, user: str) -> Iterator[Record]:
    """The records with the caller as their user (the file's user becomes the caller)."""
    for record in _records(path):
        yield {**record, "user_id": user} if isinstance(record, dict) and "user_id" in record else record


def _records(path: Path) -> Iterator[Any]:
    try:
        with path.open(encoding="utf-8") as handle:
            for number, line in enumerate(handle, start=1):
                if line.strip():
                    yield _json(line, number)
    except UnicodeDecodeError as exc:
        raise ValidationFailed.single("file", "format", f"The file is not UTF-8 text (byte {exc.start}).") from exc


def _json(line: str, number: int) -> Any:
    try:
        return json.loads(line, parse_constant=_not_a_number)
    except json.JSONDecodeError as exc:
        message = f"Line {number} is not JSON: {exc.msg}. A remember export has one JSON object a line."
        raise ValidationFailed.single(f"line {number}", "json", message) from exc
    except RecursionError as exc:
        raise ValidationFailed.single(f"line {number}", "depth", f"Line {number} is nested too deeply.") from exc
    except _NotANumber as exc:
        message = f"Line {number} holds {exc}, which is not a JSON number (a remember export never does)."
        raise ValidationFailed.single(f"line {number}", "number", message) from exc


class _NotANumber(ValueError):
    """``NaN`` or ``Infinity`` in a line (Python's JSON reads them; JSON has neither)."""


def _not_a_number(text: str) -> Any:
    raise _NotANumber(text)
