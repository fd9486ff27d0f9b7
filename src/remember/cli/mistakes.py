"""What a person got wrong on the command line, told in its words.

``Parser`` reads the command line: an unknown command or option, or a value that is not one of
an option's choices, is an error under the usage of the command it was given to, with the names
close to it (``remember lst`` -> did you mean list?; ``remember add --wieght`` -> did you mean
--weight?). ``in_cli_words`` tells a service's ``ValidationFailed`` with the flags and arguments
that set each field (``--when``, not ``context.timestamp``; ``--since``, not
``arguments.created_at.gte``; ``--tag``, not ``tags[0]``).
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from remember.errors import ValidationFailed

# Service field paths that are not named as the dest of the option that sets them.
FIELD_DESTS = {
    "context.timestamp": "when",
    "arguments.created_at.gte": "since",
    "arguments.created_at.lt": "until",
    "arguments.type": "type",
    "arguments.tags": "tags",
    "filters": "filter",
    "sort_by": "sort",
    "structured_content": "field",
    "template_id": "template",
    "text_query": "text",
}
OPEN_ENDED = ("field", "filter")  # options whose field path goes on after them: --field author, --filter colour


class Parser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose errors offer the names close to an unknown one, under the usage of the
    command the mistake was made in."""

    def _check_value(self, action: argparse.Action, value: Any) -> None:
        if action.choices is None or value in action.choices:
            return
        from remember.spelling import close_to, did_you_mean

        names = [str(c) for c in action.choices]
        offered = did_you_mean(close_to(str(value), names))
        if isinstance(action, argparse._SubParsersAction):
            what = "action" if action.dest == "action" else "command"
            help_line = f" `{self.prog} --help` lists them."
            raise argparse.ArgumentError(None, f"unknown {what} {value!r}.{offered}{help_line}")
        listed = ", ".join(names)
        flag = "/".join(action.option_strings) or action.metavar or action.dest
        raise argparse.ArgumentError(None, f"{flag}: invalid choice: {value!r} (choose from {listed}).{offered}")

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        parsed, extras = super().parse_known_args(args, namespace)
        if extras:  # said here, under this command's usage, rather than by `remember` at the end
            self.error(self._unexpected(extras))
        return parsed, extras

    def _unexpected(self, extras: list[str]) -> str:
        from remember.spelling import close_to, did_you_mean

        options = [o for o in extras if o.startswith("-") and not _number(o)]
        if not options:
            return f"unexpected argument {extras[0]!r}: `{self.prog}` takes no more (quote a text with spaces)."
        given = options[0].split("=", 1)[0]
        known = [s for a in self._actions for s in a.option_strings if s.startswith("--")]
        return f"unknown option {given}.{did_you_mean(close_to(given, known))} `{self.prog} --help` lists them."

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(2, f"{self.prog}: error: {message}\n")


def _number(text: str) -> bool:
    return re.fullmatch(r"-\d+(\.\d*)?", text) is not None


def in_cli_words(error: ValidationFailed, parser: argparse.ArgumentParser) -> str:
    """The error's message with each field named by the flag or argument of ``parser`` that sets it."""
    from remember.service.structured import TemplateContentInvalid

    names = _names(parser)
    template_fields = isinstance(error, TemplateContentInvalid) and "field" in names  # a template's own fields
    if len(error.errors) == 1 and error.errors[0].message == error.message:
        return _said(error.errors[0].field, error.message, names, template_fields)
    headline = error.message.split("\n", 1)[0]
    lines = [headline]
    for e in error.errors:
        label = f"--field {e.field}" if template_fields else _label(e.field, names) or e.field
        said = _said(e.field, e.message, names, template_fields)
        lines.append(f"- {said}" if said.startswith(f"{label} ") else f"- {label}: {said}")
    return "\n".join(lines)


def _names(parser: argparse.ArgumentParser) -> dict[str, str]:
    """Each dest of the parser's own actions, and how a person names it: ``--tag`` or ``ID``."""
    found: dict[str, str] = {}
    for action in parser._actions:
        long = [s for s in action.option_strings if s.startswith("--")]
        if long:
            found[action.dest] = long[0]
        elif not action.option_strings:
            found[action.dest] = str(action.metavar or action.dest.upper())
    return found


def _label(path: str, names: dict[str, str]) -> str | None:
    """The flag or argument that sets the field at ``path``; None when none of the command's does."""
    for cut in _prefixes(path):
        dest = FIELD_DESTS.get(cut, cut)
        if dest in names:
            rest = path[len(cut) :].lstrip(".")
            return f"{names[dest]} {rest}" if rest and dest in OPEN_ENDED and not rest.startswith("[") else names[dest]
    return None


def _prefixes(path: str) -> list[str]:
    """``a.b[2].c`` -> ``a.b[2].c``, ``a.b[2]``, ``a.b``, ``a``: the longest first."""
    ends = [m.start() for m in re.finditer(r"[.\[]", path)]
    return [path, *(path[:end] for end in reversed(ends))]


def _said(path: str, message: str, names: dict[str, str], template_fields: bool) -> str:
    """``message`` with the field's path replaced by its flag where it names the field: at its start
    (``limit must be ...``); and each field named in it as no English word is (``token_budget``, ``template_id``)
    replaced by the flag that sets it."""
    label = None if template_fields else _label(path, names)
    if label is None:
        return message
    if message.startswith(f"{path} "):
        message = label + message[len(path) :]
    return re.sub(r"(?<![\w.\-\[])[a-z]+(?:_[a-z]+)+(?![\w\[])", lambda m: _label(m[0], names) or m[0], message)
