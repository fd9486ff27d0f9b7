"""What the modules that declare the command line share: a group of commands to declare theirs in."""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from typing import Protocol


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
