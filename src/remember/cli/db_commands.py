"""`remember export`, `import` and `db upgrade|check|copy`: each command's grammar and what it does
(other servers' formats are read and written by ``peer_formats``)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from remember.caller import Caller
from remember.cli import output, peer_formats
from remember.cli.grammar import Commands, runs, runs_alone
from remember.cli.indexing import build_search_indexes, bulk_vectors
from remember.config import Settings
from remember.errors import ValidationFailed
from remember.models import ON_CONFLICT
from remember.nouns import counted, plural
from remember.space_keys import is_space_key

if TYPE_CHECKING:
    from remember.service import Services
    from remember.service.import_export.restore import Plan

FORMATS = ("server-memory", "mcp-memory-service", "basic-memory", "mem0")
EXPORT_FORMATS = ("jsonl", "markdown", "server-memory")


def register(commands: Commands) -> None:
    _export(commands)
    _import(commands)
    actions = commands.add_group("db", help="database maintenance", description="Database maintenance.")
    for declare in (_upgrade, _check, _copy):
        declare(actions)


def _export(commands: Commands) -> None:
    sub = commands.add_parser(
        "export",
        help="write a user's (or every user's) data as JSON Lines, Markdown notes or a server-memory file",
        description="Write memories, history, templates, preferences and vectors as JSON Lines (the default); "
        "or, with --format markdown DIR, one Markdown file per memory (YAML frontmatter: readable in any editor "
        "or Obsidian); or, with --format server-memory FILE, the MCP reference memory server's JSONL graph.",
    )
    sub.add_argument("target", nargs="?", metavar="PATH", help="the file (or, for markdown, the folder) to write")
    sub.add_argument("-o", "--output", default="-", metavar="FILE", help="where to write ('-' for stdout)")
    sub.add_argument("--format", choices=EXPORT_FORMATS, default="jsonl", help="what to write (default: jsonl)")
    sub.add_argument("--all-users", action="store_true", help="every user, not only --user (jsonl only)")
    sub.add_argument("--space", metavar="SPACE", help="a shared space of yours (name or key), not your own memories")
    sub.add_argument(
        "--json", action="store_true", help="say what was written as JSON (on stderr when the export goes to stdout)"
    )
    runs(sub, export)


def export(services: Services, caller: Caller, args: argparse.Namespace) -> None:
    from remember.service.import_export.jsonl import write_export

    path = args.target or args.output
    if args.space is not None:
        if args.all_users:
            raise ValidationFailed.single("--space", "invalid", "Give --space or --all-users, not both.")
        [caller] = services.spaces.reading(caller, [args.space])
    if args.format != "jsonl":
        written, noun = peer_formats.export(services, caller, args), "memory"
    else:
        users = None if args.all_users else [caller]
        names = {key: name for key, name in [(caller.user, services.spaces.name_of(caller.user))] if name}
        with _opened(path, "w") as out:
            written, noun = write_export(services.store, users, out, names) - 1, "record"  # less its header
    _exported(args.format, path, written, noun, args.json)


def _exported(format: str, path: str, written: int, noun: str, as_json: bool) -> None:
    """What was written: with --json on stdout, unless the export itself went there (then on stderr)."""
    if as_json:
        print(json.dumps({"format": format, "path": path, plural(noun): written}), file=_beside(path))
    else:
        where = "standard output" if path == "-" else path
        print(f"Exported {counted(written, noun)} ({format}) to {where}.", file=sys.stderr)


def _beside(path: str) -> IO[str]:
    return sys.stderr if path == "-" else sys.stdout


def _import(commands: Commands) -> None:
    sub = commands.add_parser(
        "import",
        help="read an export, or another memory server's data, into the database",
        description="Read a remember export (JSON Lines) with its users' ids, or with --from FORMAT another memory "
        "server's data into --user's memories (see docs/importing.md). An export goes into a database that "
        "holds data too; what it holds already is refused unless --on-conflict says what to do with it. "
        "Importing another server's data again creates nothing new.",
    )
    sub.add_argument("file", metavar="PATH", help="the file or folder to read ('-' reads a remember export from stdin)")
    sub.add_argument(
        "--from", dest="source", choices=("remember", *FORMATS), default="remember",
        help="whose data it is (default: a remember export)",
    )  # fmt: skip
    sub.add_argument(
        "--on-conflict", choices=ON_CONFLICT, default="refuse",
        help="a remember export's record the user has already (same id): refuse the import (default), skip it "
        "(what is stored stays), or replace what is stored with it",
    )  # fmt: skip
    sub.add_argument("--dry-run", action="store_true", help="show what would be created, write nothing")
    sub.add_argument(
        "--space", metavar="SPACE", help="into this shared space of yours (name or key; you write there), as yours"
    )
    sub.add_argument("--json", action="store_true", help="print JSON for scripts")
    runs(sub, load)


def load(services: Services, caller: Caller, args: argparse.Namespace) -> None:
    """Every user in the file as themselves (an export says whose each record is), or its one user (or space)
    as the --user given or into the --space given; another server's data goes to ``user`` or the space."""
    from remember.service.import_export.restore import plan, write

    acting = services.spaces.writing(caller, args.space) if args.space is not None else caller
    if args.source != "remember":
        if args.on_conflict != "refuse":
            raise ValidationFailed.single(
                "--on-conflict", "invalid", "--on-conflict is for remember exports; another server's data is "
                "added beside what is stored, and what is stored already is not stored again.",
            )  # fmt: skip
        peer_formats.load(services, acting, args)
        return
    records = _reader(args.file)
    # --space, or --user given on the command line (REMEMBER_USER does not pick one)
    into = acting.user if args.space is not None else getattr(args, "user", None)
    planned = plan(
        services.store, records(), into=into, on_conflict=args.on_conflict,
        into_option="--space" if args.space is not None else "--user",
        elsewhere=services.spaces.keys(acting) if into is not None else None,
        admin=services.spaces.administers(acting),
    )  # fmt: skip
    total = sum(planned.memories.values())  # for the progress bar
    if args.dry_run:
        _report_plan(planned, args.json, "Would import")
        return
    with bulk_vectors(services, total, quiet=args.json):
        progress = _progress("importing", total)
        write(services.store, services.indexer, services.templates, records(), planned, progress, acting)
        output.progress_done()
    build_search_indexes(services, planned.memories, quiet=args.json)
    _report_plan(planned, args.json, "Imported")


def _reader(path: str) -> Callable[[], Iterator[Any]]:
    """The file's records, as often as asked (standard input is read once and kept)."""
    from remember.service.import_export.json_lines import file_records, records_of

    if path == "-":
        lines: list[str] = list(sys.stdin)
        return lambda: records_of(lines)
    return lambda: file_records(Path(path))


def _report_plan(planned: Plan, as_json: bool, verb: str) -> None:
    """What an import of an export does: its memories, and what of the file was stored already."""
    if as_json:
        output.emit(planned.as_dict())
        return
    read = sum(planned.memories.values())
    owners = _owners(list(planned.memories))
    if planned.on_conflict == "skip" and planned.clashes:
        new = read - sum(c.counts().get("memories", 0) for c in planned.clashes)
        print(f"{verb} {new} of the file's {read} memories ({owners}); stored already, kept as they are:")
    elif planned.clashes:
        print(f"{verb} {read} memories of {owners}, in place of what was stored already:")
    else:
        print(f"{verb} {counted(read, 'memory')} of {owners}.")
    for clash in planned.clashes:
        print(f"  {'space' if is_space_key(clash.user) else 'user'} {clash.user}: {clash.text()}")
    for what, count in planned.left_out.items():
        print(f"Left out: {counted(count, what.removesuffix('s'))} (a space has none of its own).")


def _owners(keys: list[str]) -> str:
    """``2 users``, ``1 space``, ``1 user and 1 space``: whose records a file holds."""
    spaces = sum(1 for key in keys if is_space_key(key))
    parts = [counted(len(keys) - spaces, "user")] * (len(keys) > spaces) + [counted(spaces, "space")] * (spaces > 0)
    return " and ".join(parts) or counted(0, "user")


def _upgrade(actions: Commands) -> None:
    sub = actions.add_parser(
        "upgrade", help="apply pending schema migrations", description="Apply pending schema migrations."
    )
    sub.add_argument("--json", action="store_true", help="print JSON for scripts")
    runs_alone(sub, upgrade)


def upgrade(settings: Settings, args: argparse.Namespace) -> None:
    from remember.store import migrate

    applied = migrate(settings.database_url)
    if args.json:
        output.emit({"applied": applied})
    else:
        print(f"Applied {', '.join(applied)}." if applied else "The database is up to date.")


def _check(actions: Commands) -> None:
    sub = actions.add_parser(
        "check",
        help="look for damage in the SQLite file (a full integrity check)",
        description="Run a full integrity check of the SQLite database; exit 1 and say how to recover if damaged.",
    )
    sub.add_argument("--json", action="store_true", help="print JSON for scripts")
    runs_alone(sub, check)


def check(settings: Settings, args: argparse.Namespace) -> None:
    """A full integrity check of the SQLite file; damage is an error (exit 1) that says how to recover."""
    from remember.errors import StoreDamaged
    from remember.store import check as check_database
    from remember.store import sqlite_path
    from remember.store.sqlite.health import recovery

    problems = check_database(settings.database_url)
    if args.json:
        output.emit({"ok": not problems, "problems": problems})
    if problems:
        path = sqlite_path(settings.database_url)
        listed = "\n".join(f"- {p}" for p in problems)
        raise StoreDamaged(f"The database {path} is damaged:\n{listed}\n{recovery(path)}")
    if not args.json:
        print(f"No damage found in {sqlite_path(settings.database_url)}.")


def _copy(actions: Commands) -> None:
    sub = actions.add_parser(
        "copy",
        help="copy users from one database to another (SQLite or PostgreSQL, either way)",
        description="Copy every user (or only --user) from FROM_URL into TO_URL, with nothing lost.",
    )
    sub.add_argument("source", metavar="FROM_URL", help="the database to read")
    sub.add_argument("target", metavar="TO_URL", help="the database to write (its users must be new there)")
    sub.add_argument("--only-user", action="store_true", help="copy only --user, not every user")
    sub.add_argument("--json", action="store_true", help="print JSON for scripts")
    runs_alone(sub, copy)


def copy(settings: Settings, args: argparse.Namespace) -> None:
    from remember.app import open_services
    from remember.service.import_export.jsonl import every_user, export_records, import_records, refuse_existing
    from remember.store import open_store

    source = open_store(args.source)
    target = open_services(Settings(**{**settings.__dict__, "database_url": args.target}))
    try:
        users = [settings.user] if args.only_user else every_user(source)
        refuse_existing(target.store, users)
        with bulk_vectors(target, source.memories.count(), quiet=args.json):
            records = export_records(source, [Caller(user) for user in users])
            counts = import_records(target.store, target.indexer, records, _progress("copying"))
            output.progress_done()
        build_search_indexes(target, counts, quiet=args.json)
    finally:
        source.close()
        target.close()
    _report(counts, args.json, "Copied")


def _progress(verb: str, total: int = 0) -> Any:
    """A progress line: a bar when the number of memories to come is known."""

    def show(done: int, _total: int) -> None:
        if total:
            bar = "#" * int(min(done / total, 1.0) * 30)
            output.progress(f"{verb} [{bar:<30}] {done}/{counted(total, 'memory')}")
        else:
            output.progress(f"{verb} {counted(done, 'memory')}")

    return show


def _report(counts: dict[str, int], as_json: bool, verb: str) -> None:
    if as_json:
        output.emit({"users": counts, "memories": sum(counts.values())})
    else:
        print(f"{verb} {counted(sum(counts.values()), 'memory')} of {counted(len(counts), 'user')}.")


@contextmanager
def _opened(path: str, mode: str) -> Iterator[IO[str]]:
    if path == "-":
        yield sys.stdout if mode == "w" else sys.stdin
        return
    try:
        handle = open(path, mode, encoding="utf-8")  # noqa: SIM115 - closed below
    except OSError as exc:
        raise ValidationFailed.single("file", "unreadable", f"Cannot open {path}: {exc.strerror}.") from exc
    with handle:
        yield handle
