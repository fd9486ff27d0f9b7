"""Other memory servers' formats: what `remember import --from FORMAT` and `remember export --format
markdown|server-memory` do (``db_commands`` declares them and hands these formats over)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from remember.cli import output
from remember.cli.indexing import build_search_indexes, bulk_vectors
from remember.errors import ValidationFailed
from remember.nouns import counted

if TYPE_CHECKING:
    from remember.caller import Caller
    from remember.service import Services
    from remember.service.import_export.peers import ImportReport


def load(services: Services, caller: Caller, args: argparse.Namespace) -> None:
    from remember.service.import_export.peers import read, run

    if args.file == "-":
        raise ValidationFailed.single("file", "invalid", f"--from {args.source} reads a file or folder, not stdin.")
    parsed = read(args.source, Path(args.file))
    with bulk_vectors(services, 0 if args.dry_run else len(parsed.memories), quiet=args.json):
        report = run(
            services.memories, services.relationships, caller, args.source, parsed, dry_run=args.dry_run,
            progress=_bar, elsewhere=list(services.spaces.keys(caller)), admin=services.spaces.administers(caller),
        )  # fmt: skip
        output.progress_done()
    if report.created and not args.dry_run:
        build_search_indexes(services, [caller.user], quiet=args.json)
    if args.json:
        output.emit(report.as_dict())
    else:
        _print(report)


def _bar(done: int, total: int) -> None:
    width = 30
    filled = width * done // total if total else width
    output.progress(f"[{'#' * filled}{'.' * (width - filled)}] {done}/{counted(total, 'memory')}")


def _print(report: ImportReport) -> None:
    verb = "Would create" if report.dry_run else "Created"
    print(f"{verb} {counted(report.created, 'memory')} from {report.read} read ({report.format}).")
    if report.already_present:
        print(f"Already stored (not created again): {report.already_present}.")
    if report.repeated_in_source:
        print(f"Repeated in the source (stored once): {report.repeated_in_source}.")
    for why, count in report.links.items():
        print(f"Links: {count} {why}.")
    for what, count in report.templates.items():
        print(f"Templates: {count} {what}.")
    for what, count in sorted(report.unmapped.items()):
        print(f"Not mapped: {what} ({counted(count, 'record')}).")
    if report.skipped:
        print(f"Skipped {counted(len(report.skipped), 'record')}:")
        for where, why in report.skipped[:20]:
            print(f"  {where}: {why}")
        if len(report.skipped) > 20:
            print(f"  ... and {len(report.skipped) - 20} more (--json lists them all)")
    for example in report.examples if report.dry_run else ():
        text = " ".join(str(example["content"]).split())[:70]
        print(f"  + [{example['type']}] {example['title'] or ''}: {text}")


def export(services: Services, caller: Caller, args: argparse.Namespace) -> int:
    """Write ``--format markdown|server-memory``; how many memories were written."""
    from remember.service.import_export.peers.exporting import to_markdown, to_server_memory

    if args.all_users:
        raise ValidationFailed.single("--all-users", "invalid", f"--format {args.format} exports one user (--user).")
    target = args.target or (None if args.output == "-" else args.output)
    if args.format == "markdown":
        if target is None:
            raise ValidationFailed.single(
                "PATH", "required", "--format markdown needs the folder to write: export --format markdown DIR."
            )
        notes, templates = to_markdown(services.store, caller, Path(target))
        if templates:
            print(
                f"With them, {counted(templates, 'template')} of the user's own (remember-templates/).", file=sys.stderr
            )
        return notes
    if target is None:
        written = to_server_memory(services.store, caller, sys.stdout)
    else:
        try:
            with open(target, "x", encoding="utf-8") as out:
                written = to_server_memory(services.store, caller, out)
        except FileExistsError as exc:
            raise ValidationFailed.single("PATH", "exists", f"{target} exists already; give a new file.") from exc
    return written
