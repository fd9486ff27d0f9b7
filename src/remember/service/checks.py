"""Checks of a memory's fields, shared by create and update.

Each check takes the raw value and an error list; it returns the clean value
and appends a FieldError for every problem, so a caller reports all problems
at once. The limits are documented in docs/memories.md.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from datetime import datetime
from typing import Any
from urllib.parse import urlsplit

from remember.clock import from_text, parse_moment, to_text
from remember.errors import FieldError, ValidationFailed, excerpt
from remember.models import MAX_TAG_LENGTH, DeletedMode, normalize_tag

MAX_CONTENT = 100_000
MAX_QUERY = 2_000
MAX_TITLE = 500
MAX_TYPE = 64
MAX_TAGS = 50
MAX_REFERENCES = 50
MAX_URL = 2_048
MAX_REASON = 1_000
MAX_ID = 200
MAX_STRUCTURED_BYTES = 200_000
MAX_JSON_DEPTH = 16
DELETED_MODES: tuple[DeletedMode, ...] = ("exclude", "include", "only")
CONTEXT_TEXT_KEYS = {"conversation_id": 200, "summary": 5_000, "source": 200}
CONTEXT_KEYS = (*CONTEXT_TEXT_KEYS, "participants", "timestamp")

Errors = list[FieldError]


def _fail(errors: Errors, name: str, code: str, message: str, value: Any) -> None:
    errors.append(FieldError(name, code, message, _short(value)))


def _short(value: Any) -> Any:
    """Keep error payloads small when the offending value is huge."""
    if isinstance(value, str) and len(value) > 200:
        return value[:200] + f"... ({len(value)} characters)"
    if isinstance(value, list | dict) and len(json.dumps(value, default=str)) > 500:
        return f"<{type(value).__name__} of {len(value)} items>"
    return value


def text(value: Any, name: str, errors: Errors, *, limit: int, required: bool = False) -> str | None:
    if value is None:
        if required:
            _fail(errors, name, "required", f"{name} is required.", value)
        return None
    if not isinstance(value, str):
        _fail(errors, name, "type", f"{name} must be a text; got {type(value).__name__}.", value)
        return None
    if "\x00" in value:
        _fail(errors, name, "invalid", f"{name} must not contain NUL characters.", value)
        return None
    clean = value.strip()
    if required and not clean:
        _fail(errors, name, "required", f"{name} must not be empty.", value)
        return None
    if len(clean) > limit:
        _fail(errors, name, "max_length", f"{name} is {len(clean)} characters; the limit is {limit}.", value)
        return None
    return clean


def one_line(value: Any, name: str, errors: Errors, *, limit: int) -> str | None:
    """A required text of one line: no line breaks, tabs or other control characters (a name, a kind)."""
    clean = text(value, name, errors, limit=limit, required=True)
    if clean is not None and not clean.isprintable():
        _fail(errors, name, "invalid", f"{name} must be one line of text, without line breaks or tabs.", value)
        return None
    return clean


def memory_type(value: Any, errors: Errors) -> str | None:
    clean = text(value, "type", errors, limit=MAX_TYPE, required=True)
    if clean is None:
        return None
    if not all(ch.isalnum() or ch in " _-" for ch in clean):
        _fail(
            errors,
            "type",
            "invalid",
            "type may hold letters, digits, spaces, _ and - only (e.g. 'book').",
            value,
        )
        return None
    return "_".join(clean.lower().split())


def unit(value: Any, name: str, errors: Errors) -> float | None:
    """A number from 0 to 1 (weight, trust)."""
    ok = isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
    if not ok or not 0 <= value <= 1:
        _fail(errors, name, "range", f"{name} must be a number from 0 to 1; got {excerpt(value)}.", value)
        return None
    return float(value)


def tags(value: Any, errors: Errors) -> tuple[str, ...] | None:
    if not isinstance(value, list | tuple) or len(value) > MAX_TAGS:
        _fail(errors, "tags", "type", f"tags must be a list of at most {MAX_TAGS} texts.", value)
        return None
    clean: list[str] = []
    for i, tag in enumerate(value):
        ok = isinstance(tag, str) and 0 < len(normalize_tag(tag)) <= MAX_TAG_LENGTH and "\x00" not in tag
        if not ok:
            _fail(
                errors,
                f"tags[{i}]",
                "invalid",
                f"Each tag must be a text of 1 to {MAX_TAG_LENGTH} characters.",
                tag,
            )
            continue
        clean.append(normalize_tag(tag))
    return tuple(dict.fromkeys(clean))


def references(value: Any, errors: Errors) -> tuple[str, ...] | None:
    if not isinstance(value, list | tuple) or len(value) > MAX_REFERENCES:
        _fail(
            errors,
            "references",
            "type",
            f"references must be a list of at most {MAX_REFERENCES} URLs.",
            value,
        )
        return None
    clean: list[str] = []
    for i, ref in enumerate(value):
        if not _is_web_url(ref):
            _fail(
                errors,
                f"references[{i}]",
                "invalid",
                f"Each reference must be an http:// or https:// URL of at most {MAX_URL} characters.",
                ref,
            )
            continue
        clean.append(ref.strip())
    return tuple(dict.fromkeys(clean))


def _is_web_url(value: Any) -> bool:
    if not isinstance(value, str) or len(value) > MAX_URL or any(ch.isspace() for ch in value.strip()):
        return False
    parts = urlsplit(value.strip())
    return parts.scheme in ("http", "https") and bool(parts.hostname)


def context(value: Any, errors: Errors) -> tuple[dict[str, Any], str | None] | None:
    """The context object without ``timestamp``, and the timestamp text if given."""
    if not isinstance(value, Mapping):
        _fail(errors, "context", "type", "context must be an object.", value)
        return None
    unknown = sorted(set(value) - set(CONTEXT_KEYS))
    if unknown:
        _fail(
            errors,
            "context",
            "unknown_field",
            f"Unknown context keys {unknown}; known: {list(CONTEXT_KEYS)}.",
            value,
        )
        return None
    clean: dict[str, Any] = {}
    for key, limit in CONTEXT_TEXT_KEYS.items():
        if value.get(key) is not None:
            clean[key] = text(value[key], f"context.{key}", errors, limit=limit)
    if value.get("participants") is not None:
        clean["participants"] = _participants(value["participants"], errors)
    stamp = moment(value.get("timestamp"), "context.timestamp", errors) if value.get("timestamp") else None
    return clean, stamp


def _participants(value: Any, errors: Errors) -> list[str] | None:
    ok = isinstance(value, list) and len(value) <= 50
    if not ok or not all(isinstance(p, str) and 0 < len(p.strip()) <= 200 for p in value):
        _fail(errors, "context.participants", "type", "participants must be a list of at most 50 names.", value)
        return None
    return [p.strip() for p in value]


def moment(value: Any, name: str, errors: Errors) -> str | None:
    """An ISO 8601 date or datetime, returned in the canonical stored form."""
    if not isinstance(value, str) or len(value) > 64:
        _fail(errors, name, "type", f"{name} must be an ISO 8601 date or datetime such as '2026-02-10'.", value)
        return None
    try:
        return to_text(parse_moment(value))
    except ValueError as exc:
        _fail(errors, name, "date", str(exc), value)
        return None


def instant(value: Any, name: str, errors: Errors) -> datetime | None:
    """``moment``, as a datetime."""
    if isinstance(value, datetime):
        return value
    checked = moment(value, name, errors)
    return from_text(checked) if checked is not None else None


def location(value: Any, errors: Errors) -> dict[str, Any] | None:
    if not isinstance(value, Mapping) or not value or set(value) - {"lat", "lon", "address"}:
        _fail(errors, "location", "type", "location must be an object with lat, lon and/or address.", value)
        return None
    clean: dict[str, Any] = {}
    for key, bound in (("lat", 90), ("lon", 180)):
        if key in value:
            v = value[key]
            if not (isinstance(v, int | float) and not isinstance(v, bool) and -bound <= v <= bound):
                _fail(errors, f"location.{key}", "range", f"{key} must be a number from -{bound} to {bound}.", v)
            else:
                clean[key] = float(v)
    if ("lat" in value) != ("lon" in value):
        _fail(errors, "location", "invalid", "Give lat and lon together.", value)
    if "address" in value:
        clean["address"] = text(value["address"], "location.address", errors, limit=MAX_TITLE)
    return clean


def json_object(value: Any, name: str, errors: Errors, *, limit: int) -> dict[str, Any] | None:
    """A JSON object of bounded size and depth."""
    if not isinstance(value, Mapping):
        _fail(errors, name, "type", f"{name} must be an object.", value)
        return None
    if _depth(value) > MAX_JSON_DEPTH:
        _fail(errors, name, "too_deep", f"{name} nests deeper than {MAX_JSON_DEPTH} levels.", value)
        return None
    try:
        size = len(json.dumps(value, ensure_ascii=False, allow_nan=False).encode())
    except (TypeError, ValueError):
        _fail(errors, name, "type", f"{name} must hold only JSON values (no NaN or Infinity).", value)
        return None
    if size > limit:
        _fail(errors, name, "too_large", f"{name} is {size} bytes as JSON; the limit is {limit}.", value)
        return None
    result: dict[str, Any] = json.loads(json.dumps(value))
    return result


def _depth(value: Any, level: int = 0) -> int:
    if level > MAX_JSON_DEPTH:
        return level
    if isinstance(value, Mapping):
        return max((_depth(v, level + 1) for v in value.values()), default=level + 1)
    if isinstance(value, list | tuple):
        return max((_depth(v, level + 1) for v in value), default=level + 1)
    return level


def identifier(value: Any, name: str, errors: Errors) -> str | None:
    if not isinstance(value, str) or not value.strip() or len(value) > MAX_ID:
        _fail(errors, name, "invalid", f"{name} must be an id of 1 to {MAX_ID} characters.", value)
        return None
    return value.strip()


# Checks of call arguments (not memory fields) that raise at once.


def query(value: Any, name: str) -> str:
    """A search text given as parameter ``name``: non-empty, at most MAX_QUERY characters; trimmed."""
    if not isinstance(value, str) or not value.strip():
        raise ValidationFailed.single(name, "required", f"{name} must be a non-empty text: what to look for.", value)
    if len(value) > MAX_QUERY:
        raise ValidationFailed.single(
            name, "max_length", f"{name} is {len(value)} characters; the limit is {MAX_QUERY}."
        )
    return value.strip()


def whole_number(name: str, value: Any, low: int, high: int) -> int:
    """``value`` if it is a whole number from ``low`` to ``high``; else ValidationFailed."""
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise ValidationFailed.single(name, "range", f"{name} must be a whole number from {low} to {high}.", value)
    return value


def share(name: str, value: Any, *, low: float = 0.0) -> float:
    """``value`` if it is a finite number from ``low`` to 1; else ValidationFailed."""
    ok = isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
    if not ok or not low <= value <= 1:
        raise ValidationFailed.single(
            name, "range", f"{name} must be a number from {low:g} to 1; got {excerpt(value)}.", value
        )
    return float(value)


def deleted_mode(mode: Any) -> DeletedMode:
    for known in DELETED_MODES:
        if mode == known:
            return known
    raise ValidationFailed.single("deleted", "invalid", "deleted must be 'exclude', 'include' or 'only'.", mode)


def reason(value: Any) -> str | None:
    """A change's optional reason: trimmed text of at most MAX_REASON characters, or None."""
    errors: Errors = []
    clean = text(value, "reason", errors, limit=MAX_REASON)
    if errors:
        raise ValidationFailed("The reason is not usable.", errors)
    return clean or None
