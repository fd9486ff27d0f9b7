"""What ``remember hook CLIENT`` answers to one event: the same whether a warm worker answers it over its socket
(``hook_worker.py``) or the hook's own process does (``hook_warm.py``, ``hook_commands.py``).

A hook runs inside the assistant's session: whatever goes wrong, the answer is nothing on stdout and one line on
stderr, so that the session goes on without memories rather than stopping.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from remember.cli.hook_clients import BadEvent, Client, Event

if TYPE_CHECKING:
    from remember.caller import Caller
    from remember.config import Settings
    from remember.service import Services

DEFAULT_BUDGET = 600
HEADER = "Memories from `remember` (the user's long-term memory) that may bear on this; dates are when they happened:"

Recall = Callable[[Event, int], str]
"""The packed lines of memory for an event within a budget of tokens ("" when none is relevant)."""


@dataclass(frozen=True)
class Reply:
    stdout: str = ""  # the client's JSON, printed as it is; empty when no memory is given
    stderr: str = ""  # one line saying why no memory is given, when something was wrong


def reply(client: Client, raw: bytes, budget: int, recall: Recall) -> Reply:
    """The answer to the event in ``raw`` (a hook's stdin), with the memories ``recall`` finds for it."""
    try:
        event = client.read(raw)
        context = recall(event, _checked(budget))
    except BadEvent as exc:
        return skipped(client, str(exc))
    except Exception as exc:  # a hook must never stop the assistant's session
        return skipped(client, f"{type(exc).__name__}: {exc}")
    return Reply(client.answer(event, f"{HEADER}\n{context}")) if context else Reply()


def skipped(client: Client, reason: str) -> Reply:
    return Reply(stderr=f"remember hook {client.name}: no memories given: {' '.join(reason.split())}\n")


def recall_over(services: Services, caller: Caller) -> Recall:
    """Recall from services that stay open (a warm worker's)."""
    from remember.service import recall

    def recalled(event: Event, budget: int) -> str:
        if event.kind == "session":
            return recall.standing(services.memories, caller, budget).text
        return recall.for_prompt(services.search, caller, event.prompt, budget).text

    return recalled


def recall_once(settings: Settings) -> Recall:
    """Recall that opens the services for the one event and closes them after (the hook's own process)."""
    from remember.app import open_services
    from remember.caller import Caller

    def recalled(event: Event, budget: int) -> str:
        services = open_services(settings)
        try:
            return recall_over(services, Caller(settings.user, settings.trust_level))(event, budget)
        finally:
            services.close()

    return recalled


def _checked(budget: int) -> int:
    from remember.service import checks
    from remember.service.question_context import MAX_BUDGET, MIN_BUDGET

    return checks.whole_number("--budget", budget, MIN_BUDGET, MAX_BUDGET)
