"""The grammar of `remember export`, `remember import` and `remember db ...`."""

from __future__ import annotations

from remember.cli.grammar import Commands

FORMATS = ("server-memory", "mcp-memory-service", "basic-memory", "mem0")
EXPORT_FORMATS = ("jsonl", "markdown", "server-memory")


def add_db_commands(commands: Commands) -> None:
    export = commands.add_parser(
        "export",
        help="write a user's (or every user's) data as JSON Lines, Markdown notes or a server-memory file",
        description="Write memories, history, templates, preferences and vectors as JSON Lines (the default); "
        "or, with --format markdown DIR, one Markdown file per memory (YAML frontmatter: readable in any editor "
        "or Obsidian); or, with --format server-memory FILE, the MCP reference memory server's JSONL graph.",
    )
    export.add_argument("target", nargs="?", metavar="PATH", help="the file (or, for markdown, the folder) to write")
    export.add_argument("-o", "--output", default="-", metavar="FILE", help="where to write ('-' for stdout)")
    export.add_argument("--format", choices=EXPORT_FORMATS, default="jsonl", help="what to write (default: jsonl)")
    export.add_argument("--all-users", action="store_true", help="every user, not only --user (jsonl only)")

    load = commands.add_parser(
        "import",
        help="read an export, or another memory server's data, into the database",
        description="Read a remember export (JSON Lines; each user must not exist yet), or with --from FORMAT "
        "another memory server's data into --user's memories (see docs/importing.md). Importing the same "
        "data again creates nothing new.",
    )
    load.add_argument(
        "file", metavar="PATH", help="the file or folder to read ('-' reads a remember export from stdin)"
    )
    load.add_argument(
        "--from", dest="source", choices=("remember", *FORMATS), default="remember",
        help="whose data it is (default: a remember export)",
    )  # fmt: skip
    load.add_argument("--dry-run", action="store_true", help="show what would be created, write nothing")
    load.add_argument("--json", action="store_true", help="print JSON for scripts")

    actions = commands.add_group("db", help="database maintenance", description="Database maintenance.")
    for name, summary, description in (
        ("upgrade", "apply pending schema migrations", "Apply pending schema migrations."),
        ("check", "look for damage in the SQLite file (a full integrity check)",
         "Run a full integrity check of the SQLite database; exit 1 and say how to recover if damaged."),
    ):  # fmt: skip
        plain = actions.add_parser(name, help=summary, description=description)
        plain.add_argument("--json", action="store_true", help="print JSON for scripts")
    copy = actions.add_parser(
        "copy",
        help="copy users from one database to another (SQLite or PostgreSQL, either way)",
        description="Copy every user (or only --user) from FROM_URL into TO_URL, with nothing lost.",
    )
    copy.add_argument("source", metavar="FROM_URL", help="the database to read")
    copy.add_argument("target", metavar="TO_URL", help="the database to write (its users must be new there)")
    copy.add_argument("--only-user", action="store_true", help="copy only --user, not every user")
    copy.add_argument("--json", action="store_true", help="print JSON for scripts")
