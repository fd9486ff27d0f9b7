"""Reading remember's export file: one JSON value a line, each problem named by its line.

The command line and the dashboard read an export with these, so that a file refused by one is
refused by the other with the same words.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from remember.errors import ValidationFailed


def records_of(lines: Iterable[str]) -> Iterator[Any]:
    """The JSON value of each line that is not blank."""
    for number, line in enumerate(lines, start=1):
        if line.strip():
            yield _json(line, number)


def file_records(path: Path) -> Iterator[Any]:
    """``records_of`` the file at ``path`` (UTF-8)."""
    try:
        with path.open(encoding="utf-8") as handle:
            yield from records_of(handle)
    except UnicodeDecodeError as exc:
        raise ValidationFailed.single("file", "format", f"The file is not UTF-8 text (byte {exc.start}).") from exc
    except OSError as exc:
        raise ValidationFailed.single("file", "unreadable", f"Cannot open {path}: {exc.strerror}.") from exc


def _json(line: str, number: int) -> Any:
    try:
        return json.loads(line, parse_constant=_not_a_number)
    except json.JSONDecodeError as exc:
        message = f"Line {number} is not JSON: {exc.msg}. A remember export has one JSON object a line."
        raise ValidationFailed.single(f"line {number}", "json", message) from exc
    except RecursionError as exc:
        raise ValidationFailed.single(f"line {number}", "depth", f"Line {number} is nested too deeply.") from exc
    except _NotANumber as exc:
        message = f"Line {number} holds {exc}, which is not a JSON number (a remember export never does)."
        raise ValidationFailed.single(f"line {number}", "number", message) from exc


class _NotANumber(ValueError):
    """``NaN`` or ``Infinity`` in a line (Python's JSON reads them; JSON has neither)."""


def _not_a_number(text: str) -> Any:
    raise _NotANumber(text)
