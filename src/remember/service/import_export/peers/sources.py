"""Reading other servers' files: size limits, JSON, times, and the errors that say what to fix."""

from __future__ import annotations

import datetime as dt
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from remember.clock import parse_moment, to_text
from remember.errors import ValidationFailed, excerpt

MAX_FILE_BYTES = 1 << 30  # a source file larger than this is refused before it is read


def refused(path: Path | str, why: str) -> ValidationFailed:
    return ValidationFailed.single("file", "format", f"Cannot import {path}: {why} Nothing was imported.")


def checked_file(path: Path) -> Path:
    if not path.exists():
        raise refused(path, "there is no such file.")
    if not path.is_file():
        raise refused(path, "it is not a file (this format is read from one file).")
    if path.stat().st_size > MAX_FILE_BYTES:
        raise refused(path, f"it is larger than {MAX_FILE_BYTES >> 20} MB; split it first.")
    return path


def text_of(path: Path) -> str:
    try:
        return checked_file(path).read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise refused(path, f"it is not UTF-8 text (byte {exc.start}).") from exc
    except OSError as exc:
        raise refused(path, f"it cannot be read ({exc.strerror}).") from exc


def json_of(path: Path) -> Any:
    try:
        return json.loads(text_of(path))
    except json.JSONDecodeError as exc:
        raise refused(path, f"it is not JSON (line {exc.lineno}, column {exc.colno}: {exc.msg}).") from exc


def moment(value: Any) -> str:
    """An ISO 8601 text or Unix time (seconds or milliseconds) as remember's timestamp; ValueError if neither."""
    if isinstance(value, bool):
        raise ValueError(f"{excerpt(value)} is not a time")
    if isinstance(value, int | float):
        seconds = value / 1000 if value > 100_000_000_000 else value
        return to_text(datetime.fromtimestamp(seconds, UTC))
    if isinstance(value, str) and value.strip():
        return to_text(parse_moment(value.strip()))
    raise ValueError(f"{excerpt(value)} is not a time")


def plain_tags(value: Any) -> list[str] | None:
    """Tags given as a list or as one comma-separated text; None when there are none."""
    if value is None or value == "":
        return None
    if isinstance(value, str):
        return [t.strip() for t in value.split(",") if t.strip()] or None
    if isinstance(value, list):
        return [str(t) for t in value if str(t).strip()] or None
    raise ValueError(f"tags {excerpt(value)} are neither a list nor a comma-separated text")


def plain_yaml(value: Any) -> Any:
    """YAML's dates as ISO texts, recursively: what JSON (and structured content) holds."""
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, dict):
        return {str(k): plain_yaml(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain_yaml(v) for v in value]
    return value
