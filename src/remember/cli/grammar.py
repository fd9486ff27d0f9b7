"""What the command modules share: a group of commands to declare theirs in, and the kinds of handler.

Each ``*_command(s).py`` module has a ``register(commands)`` that declares its commands, each with its
arguments and, beside them, the function that does it (``runs`` or ``runs_alone``); ``main`` calls that
function. The modules import the service layer inside their handlers, not at their top: ``remember serve``
builds the whole grammar, and answers its client before the services are imported.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Protocol, TypeAlias

if TYPE_CHECKING:
    from remember.caller import Caller
    from remember.config import Settings
    from remember.service import Services

Handler: TypeAlias = "Callable[[Services, Caller, argparse.Namespace], int | None]"
"""Does a command over the caller's memories: ``main`` opens the services for it and closes them after.
It returns the exit code, or None for 0."""

StandaloneHandler: TypeAlias = "Callable[[Settings, argparse.Namespace], int | None]"
"""Does a command that opens what it needs itself, or nothing: serve, ui, db upgrade|check|copy."""


class Subparsers(Protocol):
    """What ``ArgumentParser.add_subparsers`` returns (argparse names its class privately)."""

    def add_parser(
        self, name: str, *, help: str | None = ..., description: str | None = ...
    ) -> argparse.ArgumentParser: ...


class Commands:
    """A group of commands (``remember COMMAND``, ``remember template ACTION``) that modules add theirs to.

    It keeps the parsers it makes, so that options every command takes can be given to each once all are
    declared (``every_parser``).
    """

    def __init__(self, subparsers: Subparsers) -> None:
        self._subparsers = subparsers
        self._parsers: list[argparse.ArgumentParser] = []
        self._groups: list[Commands] = []

    def add_parser(self, name: str, *, help: str, description: str) -> argparse.ArgumentParser:
        parser = self._subparsers.add_parser(name, help=help, description=description)
        self._parsers.append(parser)
        return parser

    def add_group(self, name: str, *, help: str, description: str, actions: str = "what to do") -> Commands:
        """A command whose actions are commands of their own (``remember template list``); ``actions``
        is the help of its ACTION argument."""
        parser = self.add_parser(name, help=help, description=description)
        group = Commands(parser.add_subparsers(dest="action", metavar="ACTION", required=True, help=actions))
        self._groups.append(group)
        return group

    def every_parser(self) -> Iterator[argparse.ArgumentParser]:
        """The parser of each command of the group and of each of their actions, at any depth."""
        yield from self._parsers
        for group in self._groups:
            yield from group.every_parser()


def command(commands: Commands, name: str, summary: str) -> argparse.ArgumentParser:
    """A command whose help and description are one summary, and that prints JSON with ``--json``."""
    sub = commands.add_parser(name, help=summary, description=summary)
    sub.add_argument("--json", action="store_true", help="print JSON for scripts")
    return sub


def runs(parser: argparse.ArgumentParser, handler: Handler) -> None:
    """The command of ``parser`` is done by ``handler``, over the services."""
    parser.set_defaults(handler=handler, standalone=False, command_parser=parser)


def runs_alone(parser: argparse.ArgumentParser, handler: StandaloneHandler) -> None:
    """The command of ``parser`` is done by ``handler`` with the settings alone: no services are opened for it."""
    parser.set_defaults(handler=handler, standalone=True, command_parser=parser)
