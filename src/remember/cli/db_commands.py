"""What `remember export`, `import`, `db upgrade` and `db copy` do."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import IO, Any

from remember.caller import Caller
from remember.cli import moving_commands, output
from remember.cli.indexing import build_search_indexes, bulk_vectors
from remember.config import Settings
from remember.errors import ValidationFailed
from remember.service import Services
from remember.service.transfer import export_records, import_records, refuse_existing, write_export


def export(services: Services, caller: Caller, args: argparse.Namespace) -> None:
    if args.format != "jsonl":
        moving_commands.export(services, caller, args)
        return
    users = None if args.all_users else [caller]
    with _opened(args.target or args.output, "w") as out:
        written = write_export(services.store, users, out)
    print(f"Exported {written - 1} records.", file=sys.stderr)


def load(services: Services, caller: Caller, args: argparse.Namespace) -> None:
    """Every user in the file (an export says whose each record is); another server's data goes to ``user``."""
    if args.source != "remember":
        moving_commands.load(services, caller, args)
        return
    if args.dry_run:
        raise ValidationFailed.single("--dry-run", "invalid", "--dry-run is for --from FORMAT imports.")
    if args.file == "-":  # read once: standard input cannot be read twice
        lines: list[str] = list(sys.stdin)
        records: Callable[[], Iterator[Any]] = lambda: _records(iter(lines))  # noqa: E731
    else:
        records = lambda: _file_records(args.file)  # noqa: E731
    users: set[str] = set()
    total = 0  # memories in the file, for the progress bar
    for r in records():
        if isinstance(r, dict) and "user_id" in r:
            users.add(r["user_id"])
            total += r.get("kind") == "memory"
    refuse_existing(services.store, users)
    with bulk_vectors(services, total, quiet=args.json):
        counts = import_records(services.store, services.indexer, records(), _progress("importing", total))
        output.progress_done()
    build_search_indexes(services, counts, quiet=args.json)
    _report(counts, args.json, "Imported")


def upgrade(settings: Settings, args: argparse.Namespace) -> None:
    from remember.store import migrate

    applied = migrate(settings.database_url)
    if args.json:
        output.emit({"applied": applied})
    else:
        print(f"Applied {', '.join(applied)}." if applied else "The database is up to date.")


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


def copy(settings: Settings, args: argparse.Namespace) -> None:
    from remember.app import open_services
    from remember.store import open_store

    source = open_store(args.source)
    target = open_services(Settings(**{**settings.__dict__, "database_url": args.target}))
    try:
        users = [settings.user] if args.only_user else source.transfer.user_ids()
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


def _file_records(path: str) -> Iterator[Any]:
    with _opened(path, "r") as handle:
        yield from _records(handle)


def _records(handle: Iterable[str]) -> Iterator[Any]:
    for number, line in enumerate(handle, start=1):
        if not line.strip():
            continue
        try:
            yield json.loads(line)
        except json.JSONDecodeError as exc:
            raise ValidationFailed.single(f"line {number}", "json", f"Line {number} is not JSON: {exc.msg}.") from exc


def _progress(verb: str, total: int = 0) -> Any:
    """A progress line: a bar when the number of memories to come is known."""

    def show(done: int, _total: int) -> None:
        if total:
            bar = "#" * int(min(done / total, 1.0) * 30)
            output.progress(f"{verb} [{bar:<30}] {done}/{total} memories")
        else:
            output.progress(f"{verb} {done} memories")

    return show


def _report(counts: dict[str, int], as_json: bool, verb: str) -> None:
    if as_json:
        output.emit({"users": counts, "memories": sum(counts.values())})
    else:
        print(f"{verb} {sum(counts.values())} memories of {len(counts)} users.")


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
