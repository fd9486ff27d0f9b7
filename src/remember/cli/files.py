"""Reading structured input on the command line: YAML/JSON files and NAME=VALUE fields."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from remember.documents import parse_document
from remember.errors import ValidationFailed, excerpt

MAX_FILE_BYTES = 1_000_000


def read_document(path: str, what: str) -> Any:
    """A YAML or JSON document from ``path`` (``-`` for stdin)."""
    try:
        text = sys.stdin.read(MAX_FILE_BYTES + 1) if path == "-" else _read(Path(path))
    except OSError as exc:
        raise ValidationFailed.single("file", "unreadable", f"Cannot read {path}: {exc.strerror}.") from exc
    if len(text) > MAX_FILE_BYTES:
        raise ValidationFailed.single("file", "too_large", f"{path} is larger than {MAX_FILE_BYTES} bytes.")
    return parse_document(text, field="file", what=f"{path} ({what})", limit=MAX_FILE_BYTES)


def _read(path: Path) -> str:
    with path.open(encoding="utf-8") as handle:
        return handle.read(MAX_FILE_BYTES + 1)


def read_fields(pairs: Sequence[str]) -> dict[str, Any]:
    """``["rating=5", "author=Frank Herbert", "contact_info.email=a@b.c"]`` as a nested object.

    A value is JSON when it parses (``5``, ``true``, ``["a"]``), else plain text.
    """
    out: dict[str, Any] = {}
    for pair in pairs:
        name, sep, raw = pair.partition("=")
        if not sep or not name.strip():
            raise ValidationFailed.single("--field", "invalid", f"--field takes NAME=VALUE; got {excerpt(pair)}.", pair)
        target = out
        *parents, leaf = name.strip().split(".")
        for part in parents:
            target = target.setdefault(part, {})
            if not isinstance(target, dict):
                raise ValidationFailed.single("--field", "invalid", f"{name} mixes a value and nested fields.", pair)
        target[leaf] = loose_json(raw)
    return out


def loose_json(text: str) -> Any:
    """JSON if it parses (20, true, ["a"]), else the plain text itself."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def text_arg(value: str) -> str:
    """A text argument, or standard input when it is ``-``."""
    return sys.stdin.read() if value == "-" else value


def json_arg(text: str | None, name: str) -> Any:
    """The JSON value of option ``name`` (e.g. ``--filter``; None when not given), or an error
    saying where it breaks."""
    if text is None:
        return None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValidationFailed.single(name, "json", f"{name} must be JSON: {exc.msg} at character {exc.pos}.") from exc
