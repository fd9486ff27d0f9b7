"""The grammar of `remember export`, `remember import` and `remember db ...`."""

from __future__ import annotations

from remember.cli.grammar import Commands


def add_db_commands(commands: Commands) -> None:
    export = commands.add_parser(
        "export",
        help="write a user's (or every user's) data as JSON Lines",
        description="Write memories, history, templates, preferences and vectors as JSON Lines.",
    )
    export.add_argument("-o", "--output", default="-", metavar="FILE", help="where to write ('-' for stdout)")
    export.add_argument("--all-users", action="store_true", help="every user, not only --user")

    load = commands.add_parser(
        "import",
        help="read an export into the database",
        description="Read an export (JSON Lines) into the database; each user must not exist there yet.",
    )
    load.add_argument("file", help="the export ('-' reads stdin)")
    load.add_argument("--json", action="store_true", help="print JSON for scripts")

    db = commands.add_parser("db", help="database maintenance", description="Database maintenance.")
    actions = db.add_subparsers(dest="action", metavar="ACTION", required=True, help="what to do")
    upgrade = actions.add_parser(
        "upgrade", help="apply pending schema migrations", description="Apply pending schema migrations."
    )
    upgrade.add_argument("--json", action="store_true", help="print JSON for scripts")
    check = actions.add_parser(
        "check",
        help="look for damage in the SQLite file (a full integrity check)",
        description="Run a full integrity check of the SQLite database; exit 1 and say how to recover if damaged.",
    )
    check.add_argument("--json", action="store_true", help="print JSON for scripts")
    copy = actions.add_parser(
        "copy",
        help="copy users from one database to another (SQLite or PostgreSQL, either way)",
        description="Copy every user (or only --user) from FROM_URL into TO_URL, with nothing lost.",
    )
    copy.add_argument("source", metavar="FROM_URL", help="the database to read")
    copy.add_argument("target", metavar="TO_URL", help="the database to write (its users must be new there)")
    copy.add_argument("--only-user", action="store_true", help="copy only --user, not every user")
    copy.add_argument("--json", action="store_true", help="print JSON for scripts")
