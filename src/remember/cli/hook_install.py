"""``remember hook install``: the hook's two entries merged into an assistant's ``settings.json``.

What is in the file is kept (other hooks, other settings, key order); an entry of ours already there
(a command starting ``remember hook CLIENT``) is updated in place, so installing twice changes nothing.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from remember.cli.hook_clients import Client
from remember.errors import ConfigError


def settings_path(client: Client, project: Path | None, home: Path) -> Path:
    """The project's settings file (``project`` given), else the one in the home folder."""
    return (project if project is not None else home) / client.settings_folder / "settings.json"


def install(path: Path, client: Client, command: str) -> bool:
    """Merge the hook's entries into the settings at ``path`` (made if missing); whether it changed."""
    settings = _read(path)
    merged = merge(settings, client, command)
    if merged == settings:
        return False
    _write(path, merged)
    return True


def merge(settings: dict[str, Any], client: Client, command: str) -> dict[str, Any]:
    """``settings`` with one command hook running ``command`` on the client's session and prompt events."""
    hooks = settings.get("hooks", {})
    if not isinstance(hooks, dict):
        raise ConfigError('"hooks" in the settings is not an object; fix it, then run the install again')
    out = dict(hooks)
    for event in (client.session_event, client.prompt_event):
        out[event] = _with_ours(hooks.get(event, []), client, command, event)
    return {**settings, "hooks": out}


def _with_ours(groups: Any, client: Client, command: str, event: str) -> list[Any]:
    if not isinstance(groups, list):
        raise ConfigError(f'"hooks.{event}" in the settings is not a list; fix it, then run the install again')
    ours = f"remember hook {client.name}"
    found = False
    out: list[Any] = []
    for group in groups:
        entries = group.get("hooks") if isinstance(group, dict) else None
        if isinstance(entries, list) and any(_is_ours(e, ours) for e in entries):
            found = True
            out.append({**group, "hooks": [{**e, "command": command} if _is_ours(e, ours) else e for e in entries]})
        else:
            out.append(group)
    if not found:
        out.append({"hooks": [{"type": "command", "command": command}]})
    return out


def _is_ours(entry: Any, prefix: str) -> bool:
    return isinstance(entry, dict) and str(entry.get("command", "")).startswith(prefix)


def _read(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    try:
        settings = json.loads(text) if text.strip() else {}
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{path} is not JSON ({exc}); fix it, then run the install again") from None
    if not isinstance(settings, dict):
        raise ConfigError(f"{path} does not hold a JSON object; fix it, then run the install again")
    return settings


def _write(path: Path, settings: dict[str, Any]) -> None:
    """Whole or not at all: a new file beside it, then renamed over it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=".settings.", suffix=".json")
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(json.dumps(settings, indent=2, ensure_ascii=False) + "\n")
    os.replace(temporary, path)
