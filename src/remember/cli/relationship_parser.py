"""The grammar of `remember relate`, `related` and `relationships …` (docs/relationships.md)."""

from __future__ import annotations

import argparse

from remember.cli.grammar import Commands


def add_relationship_commands(commands: Commands) -> None:
    relate = commands.add_parser(
        "relate", help="link two or more memories", description="Link two or more of your memories."
    )
    relate.add_argument("memory_ids", nargs="+", metavar="ID", help="the memories to link (2 to 20)")
    relate.add_argument("--type", required=True, dest="relationship_type", help="how they relate, e.g. works_with")
    _fields(relate)
    relate.add_argument("--json", action="store_true", help="print JSON for scripts")

    related = commands.add_parser(
        "related", help="memories linked to a memory", description="The memories linked to one, with their paths."
    )
    related.add_argument("memory_id", metavar="ID", help="the memory to start from")
    related.add_argument("--depth", type=int, default=1, help="relationships away, 1-3 (default 1)")
    related.add_argument("--type", action="append", dest="types", metavar="TYPE", help="only this type (repeatable)")
    related.add_argument("--min-strength", type=float, default=0.0, help="lowest strength, 0-1")
    related.add_argument("--json", action="store_true", help="print JSON for scripts")

    actions = commands.add_group(
        "relationships", help="search, show, update or delete relationships", description="Manage relationships."
    )
    _search(actions)
    show = actions.add_parser("show", help="one relationship and its history", description="Show a relationship.")
    show.add_argument("relationship_id", metavar="ID", help="the relationship's id")
    show.add_argument("--json", action="store_true", help="print JSON for scripts")
    update = actions.add_parser(
        "update", help="change some of its fields", description="Change some fields; the old values are kept."
    )
    update.add_argument("relationship_id", metavar="ID", help="the relationship's id")
    update.add_argument("--type", dest="relationship_type", help="a new type")
    update.add_argument("--members", metavar="ID,ID", help="new members, comma-separated")
    _fields(update)
    update.add_argument("--reason", help="why (kept in its history)")
    update.add_argument("--json", action="store_true", help="print JSON for scripts")
    delete = actions.add_parser("delete", help="delete it (its memories stay)", description="Delete a relationship.")
    delete.add_argument("relationship_id", metavar="ID", help="the relationship's id")
    delete.add_argument("--json", action="store_true", help="print JSON for scripts")


def _fields(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("--observation", help="what links them (searchable)")
    sub.add_argument("--strength", type=float, help="0-1 (default 0.5)")
    sub.add_argument("--confidence", type=float, help="0-1 (default 0.8)")
    sub.add_argument("--tag", "--tags", action="append", dest="tags", metavar="TAG", help="a tag (repeat for more)")


def _search(actions: Commands) -> None:
    search = actions.add_parser(
        "search", help="find relationships by observation and filters", description="Search relationships."
    )
    search.add_argument("query", nargs="?", help="words to match observations (none: newest first)")
    search.add_argument("--alpha", type=float, help="1 = by meaning only, 0 = by keywords only (default 0.3)")
    search.add_argument("--type", action="append", dest="types", metavar="TYPE", help="only this type (repeatable)")
    search.add_argument("--memory", dest="memory_id", metavar="ID", help="only those of this memory")
    search.add_argument("--min-strength", type=float, default=0.0, help="lowest strength, 0-1")
    search.add_argument("--min-confidence", type=float, default=0.0, help="lowest confidence, 0-1")
    search.add_argument("--tag", action="append", dest="tags", metavar="TAG", help="with this tag (any; repeatable)")
    search.add_argument("--after", dest="created_after", metavar="DATE", help="created on or after (ISO 8601)")
    search.add_argument("--before", dest="created_before", metavar="DATE", help="created before (ISO 8601)")
    search.add_argument("--limit", type=int, default=10, help="how many, 1-100 (default 10)")
    search.add_argument("--offset", type=int, default=0, help="skip this many")
    search.add_argument("--json", action="store_true", help="print JSON for scripts")
