"""`remember hook claude-code|gemini-cli` (answer an assistant's hook with the memories it should see)
and `remember hook install`: each command's grammar and what it does.

A hook event usually never reaches this grammar: ``remember``'s entry point hands it to a warm worker, or answers
it, first (``hook_warm.py``); it comes here with options that path does not take. Either way the answer is
``hook_answer.reply``'s.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from remember.cli.grammar import Commands, StandaloneHandler, runs_alone
from remember.cli.hook_answer import DEFAULT_BUDGET, recall_once, reply
from remember.cli.hook_clients import CLIENTS, MAX_INPUT_BYTES, Client

if TYPE_CHECKING:
    from remember.config import Settings


def register(commands: Commands) -> None:
    actions = commands.add_group(
        "hook",
        help="answer an assistant's hooks with relevant memories",
        description="Put relevant memories before an assistant's model without being asked (see docs/hooks.md).",
        actions="the assistant, or install",
    )
    for client in CLIENTS.values():
        sub = actions.add_parser(
            client.name,
            help=f"answer a {client.name} hook event read on stdin",
            description=f"Read a {client.name} hook event ({client.session_event}, {client.prompt_event}) on stdin "
            "and print the memories relevant to it as additional context; nothing when none is.",
        )
        _budget_option(sub)
        runs_alone(sub, _answering(client))
    install = actions.add_parser(
        "install",
        help="add the hook to an assistant's settings.json",
        description="Merge the hook's entries into the assistant's settings.json, keeping what is there.",
    )
    install.add_argument("client", choices=list(CLIENTS), help="the assistant")
    where = install.add_mutually_exclusive_group()
    where.add_argument("--project", metavar="DIR", type=Path, help="this project's settings (default: .)")
    where.add_argument("--home", action="store_true", help="your own settings, for every project (~/.claude, …)")
    _budget_option(install)
    install.add_argument("--json", action="store_true", help="print JSON for scripts")
    runs_alone(install, install_hook)


def _budget_option(sub: argparse.ArgumentParser) -> None:
    sub.add_argument(
        "--budget", type=int, default=DEFAULT_BUDGET, help=f"most tokens of memories, 100-32000 ({DEFAULT_BUDGET})"
    )


def _answering(client: Client) -> StandaloneHandler:
    def answer(settings: Settings, args: argparse.Namespace) -> int:
        raw = sys.stdin.buffer.read(MAX_INPUT_BYTES + 1)
        told = reply(client, raw, args.budget, recall_once(settings))
        if told.stdout:
            print(told.stdout)
        sys.stderr.write(told.stderr)
        return 0

    return answer


def install_hook(_settings: Settings, args: argparse.Namespace) -> None:
    from remember.cli.hook_install import install, settings_path
    from remember.service import checks
    from remember.service.question_context import MAX_BUDGET, MIN_BUDGET

    client = CLIENTS[args.client]
    budget = checks.whole_number("--budget", args.budget, MIN_BUDGET, MAX_BUDGET)
    command = f"remember hook {client.name}" + ("" if budget == DEFAULT_BUDGET else f" --budget {budget}")
    project = None if args.home else (args.project or Path.cwd())
    path = settings_path(client, project, Path.home())
    changed = install(path, client, command)
    if args.json:
        print(json.dumps({"client": client.name, "settings": str(path), "command": command, "changed": changed}))
        return
    state = "Added" if changed else "Already there:"
    print(f"{state} `{command}` on {client.session_event} and {client.prompt_event} in {path}")
