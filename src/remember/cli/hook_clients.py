"""The assistants whose hooks ``remember hook`` answers: each one's event names, what its hook reads on
stdin and prints on stdout, and where its settings live.

Claude Code and Gemini CLI speak the same shape: a JSON object on stdin naming the event
(``hook_event_name``) and, for a prompt, the ``prompt``; on exit 0, a JSON object on stdout whose
``hookSpecificOutput.additionalContext`` is added to what the model reads. Only the names differ.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Literal

MAX_INPUT_BYTES = 1_000_000  # a hook's event is a few kilobytes; more is not an event of ours

Kind = Literal["session", "prompt"]


class BadEvent(ValueError):
    """The input is not an event this client's hook answers; the message says why, in one line."""


@dataclass(frozen=True)
class Event:
    kind: Kind
    name: str  # the client's own name for it, echoed in the answer
    prompt: str = ""


@dataclass(frozen=True)
class Client:
    name: str  # as on the command line: ``remember hook NAME``
    session_event: str
    prompt_event: str
    settings_folder: str  # in the project, and in the home folder for --user

    def read(self, raw: bytes) -> Event:
        """The event in a hook's stdin, or BadEvent."""
        if len(raw) > MAX_INPUT_BYTES:
            raise BadEvent(f"input of {len(raw)} bytes is over {MAX_INPUT_BYTES}; not a hook event")
        try:
            data = json.loads(raw)
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise BadEvent(f"input is not JSON ({exc})") from None
        if not isinstance(data, dict):
            raise BadEvent("input is not a JSON object")
        name = data.get("hook_event_name")
        if name == self.session_event:
            return Event("session", name)
        if name == self.prompt_event:
            prompt = data.get("prompt")
            if not isinstance(prompt, str) or not prompt.strip():
                raise BadEvent(f"{name} without a prompt")
            return Event("prompt", name, prompt)
        raise BadEvent(f"{name!r} is not an event this hook answers ({self.session_event}, {self.prompt_event})")

    def answer(self, event: Event, context: str) -> str:
        """What to print for ``event`` so that ``context`` is added to what the model reads."""
        return json.dumps({"hookSpecificOutput": {"hookEventName": event.name, "additionalContext": context}})


CLIENTS: dict[str, Client] = {
    "claude-code": Client("claude-code", "SessionStart", "UserPromptSubmit", ".claude"),
    "gemini-cli": Client("gemini-cli", "SessionStart", "BeforeAgent", ".gemini"),
}
