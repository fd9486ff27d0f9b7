"""The grammar of `remember template ...`."""

from __future__ import annotations

import argparse

from remember.cli.grammar import Commands

SORTS = ["usage_count", "name", "recent"]


def add_template_commands(commands: Commands) -> None:
    actions = commands.add_group(
        "template", help="manage memory templates", description="Manage memory templates (typed field schemas)."
    )
    _list(actions)
    _show(actions)
    _create(actions)
    _update(actions)
    _rm(actions)
    _copy(actions)
    _validate(actions)
    _schema(actions)
    _analytics(actions)
    _apply(actions)
    _infer(actions)


def _action(actions: Commands, name: str, summary: str, *, target: bool = True) -> argparse.ArgumentParser:
    sub = actions.add_parser(name, help=summary, description=summary)
    sub.add_argument("--json", action="store_true", help="print JSON for scripts")
    if target:
        sub.add_argument("template", help="the template's id or name")
    return sub


def _list(actions: Commands) -> None:
    sub = _action(actions, "list", "list the templates you can use", target=False)
    which = sub.add_mutually_exclusive_group()
    which.add_argument("--mine", action="store_true", help="only your own templates")
    which.add_argument("--builtin", action="store_true", help="only the built-in library")
    sub.add_argument("--category", help="only this category")
    sub.add_argument("--tag", action="append", dest="tags", metavar="TAG", help="only with this tag (repeatable)")
    sub.add_argument("--sort", choices=SORTS, default="usage_count", help="order (default: most used)")
    sub.add_argument("--limit", type=int, default=50, help="page size, 1-100 (default 50)")
    sub.add_argument("--offset", type=int, default=0, help="skip this many")


def _show(actions: Commands) -> None:
    _action(actions, "show", "show a template: its fields, inherited ones included, and its usage")


def _create(actions: Commands) -> None:
    sub = _action(actions, "create", "create a template from a YAML or JSON file", target=False)
    sub.add_argument("-f", "--file", required=True, metavar="FILE", help="the definition ('-' reads stdin)")


def _update(actions: Commands) -> None:
    sub = _action(actions, "update", "change one of your templates; its memories are re-checked")
    sub.add_argument(
        "-f", "--file", metavar="FILE",
        help="changes as YAML/JSON: attributes, add_fields, update_fields, remove_fields, version",
    )  # fmt: skip
    sub.add_argument("--name", help="a new name")
    sub.add_argument("--description", help="a new description")
    sub.add_argument("--add-field", action="append", metavar="JSON", help="a field to add, as JSON (repeatable)")
    sub.add_argument("--remove-field", action="append", metavar="NAME", help="a field to remove (repeatable)")
    sub.add_argument("--version", dest="new_version", metavar="V", help="the new version (default: bumped)")


def _rm(actions: Commands) -> None:
    sub = _action(actions, "rm", "delete one of your templates (its memories are kept)")
    sub.add_argument("--with-memories", action="store_true", help="also move its memories to the trash")


def _copy(actions: Commands) -> None:
    sub = _action(actions, "copy", "copy a template into a new one of yours")
    sub.add_argument("--name", help="the copy's name (default: '<name> (copy)')")


def _validate(actions: Commands) -> None:
    sub = _action(actions, "validate", "check fields against a template (exit 1 if they do not fit)")
    sub.add_argument("-f", "--file", metavar="FILE", help="the fields as YAML/JSON ('-' reads stdin)")
    sub.add_argument("--field", action="append", metavar="NAME=VALUE", help="one field (repeatable)")


def _schema(actions: Commands) -> None:
    _action(actions, "schema", "print the JSON Schema of a template's fields")


def _analytics(actions: Commands) -> None:
    _action(actions, "analytics", "usage, completion and compliance of a template's memories")


def _apply(actions: Commands) -> None:
    sub = _action(actions, "apply", "make a stored memory one of this template's (its text stays)")
    sub.add_argument("memory_id", help="the memory's id")
    sub.add_argument("-f", "--file", metavar="FILE", help="the fields as YAML/JSON ('-' reads stdin)")
    sub.add_argument(
        "--field", action="append", metavar="NAME=VALUE",
        help="one field (repeatable); with no fields given, those readable from the memory's text",
    )  # fmt: skip
    sub.add_argument("--reason", help="why; kept in the memory's history")


def _infer(actions: Commands) -> None:
    sub = _action(actions, "infer", "propose templates learned from your untemplated memories", target=False)
    sub.add_argument("--accept", metavar="PROPOSAL_ID", help="create the template of this proposal")
    sub.add_argument("--apply", action="store_true", help="with --accept: also apply it to the memories it covers")


def add_suggest_command(commands: Commands) -> None:
    sub = commands.add_parser(
        "suggest", help="which templates fit a text", description="Which templates fit a text, with the fields read."
    )
    sub.add_argument("text", help="what was said or is to be remembered ('-' reads standard input)")
    sub.add_argument(
        "--context", metavar="JSON",
        help='the moment, e.g. \'{"time_of_day": "dinner", "participants_present": true}\'',
    )  # fmt: skip
    sub.add_argument("--limit", type=int, help="most suggestions, 1-10 (default: preference)")
    sub.add_argument("--json", action="store_true", help="print JSON for scripts")
