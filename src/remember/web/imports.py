"""What an import started from the dashboard does, in its job's thread, with the uploaded file.

The file is written to a temporary folder and read by the same readers as
``remember import``: ``remember`` (a JSON Lines export of one user: imported into the
caller's account as ``remember --user ME import FILE --on-conflict X`` does,
``service/import_export/restore.py``) and ``--from`` server-memory, mcp-memory-service,
mem0 and basic-memory (one Markdown note, or a zip of notes such as the dashboard's
Markdown export: ``notes.py``), which add memories to the caller's and never store one
twice. Into a shared space (``acting``: the caller acting there, a writer) as ``remember import --space``:
the importer is recorded as the author of what is stored, a space's own export goes into a space chosen only, and no
record may be one the importer has in another of their spaces. A dry run reads and checks everything and
writes nothing.
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

from remember.caller import Caller
from remember.errors import ValidationFailed
from remember.models import OnConflict
from remember.service import Services
from remember.service.import_export.json_lines import file_records
from remember.service.import_export.peers import FORMATS, ImportReport, read, run
from remember.service.import_export.restore import plan, write
from remember.space_keys import is_space_key
from remember.web import notes
from remember.web.jobs import ImportJob, Work

REMEMBER = "remember"
IMPORT_FORMATS = (REMEMBER, *FORMATS)
_SAFE_NAME = re.compile(r"[^\w.\- ]+")
ZIP_MAGIC = b"PK\x03\x04"
ON_CONFLICT_CHOICE = "the choice for records you have already (on_conflict)"
SPACE_CHOICE = "choose it under Import into, or give space=NAME"
MAX_LISTED = 1000  # skipped records listed in a job's report (the server keeps reports in memory)


def importer(
    services: Services,
    format: str,
    data: bytes,
    name: str,
    *,
    dry_run: bool,
    on_conflict: OnConflict = "refuse",
    acting: Caller | None = None,
) -> Work:
    """The work of a job importing ``data`` (a file named ``name``) as ``format``; ``on_conflict`` says what
    a remember export's records the account has already become; ``acting``: the caller acting in the space
    imported into (None: the job's caller, into their own account)."""

    def work(job: ImportJob) -> dict[str, Any]:
        into = acting or job.caller  # without a space chosen, a space's export is refused (``chosen=False``)
        with tempfile.TemporaryDirectory(prefix="remember-import-") as folder, _naming(Path(folder), name):
            if format == "basic-memory" and data.startswith(ZIP_MAGIC):
                notes.unpack(data, Path(folder) / "notes")
                return _add(services, job, into, format, Path(folder) / "notes", dry_run)
            path = Path(folder) / file_name(name, format)
            path.write_bytes(data)
            if format == REMEMBER:
                return _restore(services, job, into, path, dry_run, on_conflict, chosen=acting is not None)
            return _add(services, job, into, format, Path(folder) if format == "basic-memory" else path, dry_run)

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


def _add(services: Services, job: ImportJob, acting: Caller, format: str, path: Path, dry_run: bool) -> dict[str, Any]:
    parsed = read(format, path)
    job.read = job.total = len(parsed.memories)
    job.skipped = len(parsed.skipped)

    def progress(done: int, total: int) -> None:
        job.done, job.total = done, total

    report = run(
        services.memories, services.relationships, acting, format, parsed, dry_run=dry_run, progress=progress,
        elsewhere=list(services.spaces.keys(acting)), admin=services.spaces.administers(acting),
    )  # fmt: skip
    job.stored, job.skipped = report.created, len(report.skipped)
    job.done = job.total
    answer = report.as_dict()
    answer["skipped"] = answer["skipped"][:MAX_LISTED]  # all are counted in the job's ``skipped``
    return answer


def _restore(
    services: Services,
    job: ImportJob,
    acting: Caller,
    path: Path,
    dry_run: bool,
    on_conflict: OnConflict,
    *,
    chosen: bool,
) -> dict[str, Any]:
    """A remember export of one user or space, imported as the caller into its account or the space it acts in
    (checked whole before anything is written); a space's export only into a space ``chosen`` (``personal``
    among them, as ``remember import --user``)."""
    into = "an import into a space" if is_space_key(acting.user) else "an import into your account"
    planned = plan(
        services.store, file_records(path), into=acting.user, on_conflict=on_conflict, option=ON_CONFLICT_CHOICE,
        into_option=into, reach=acting, elsewhere=services.spaces.keys(acting), space_option=SPACE_CHOICE,
        spaces_to_spaces=not chosen, admin=services.spaces.administers(acting),
    )  # fmt: skip
    memories = planned.memories.get(acting.user, 0)
    job.read = job.total = memories
    clash = next((c.counts() for c in planned.clashes), {})
    stored = clash.get("memories", 0)
    if not dry_run:

        def progress(done: int, _: int) -> None:
            job.done = job.stored = done

        write(services.store, services.indexer, services.templates, file_records(path), planned, progress, acting)
    job.done = job.total
    job.stored = memories - stored if on_conflict == "skip" else memories
    report = ImportReport(REMEMBER, dry_run, read=memories, created=memories - stored)
    report.already_present = stored if on_conflict == "skip" else 0
    report.replaced = stored if on_conflict == "replace" else 0
    return report.as_dict() | ({"left_out": planned.left_out} if planned.left_out else {})
