"""The one error tree of `remember`.

Every failure the software expects is one of these. Layers raise them; only the
edges (the CLI, the MCP tools) translate them: the CLI prints the message to
stderr and exits non-zero, an MCP tool answers ``isError`` with the message.
A message always says what to do about it.

    RememberError
    ├── NotFound              an id that does not exist for this user
    │   └── UnknownSpace      a space the user is not a member of (each edge says how to list theirs)
    ├── ValidationFailed      bad input; carries one FieldError per problem
    │   └── TemplateError     a template definition that cannot be used
    ├── AccessDenied          an operation this user may not do (e.g. edit a built-in)
    ├── Conflict              a concurrent change won; retry with fresh data
    ├── LimitReached          a bound on what is kept is reached (e.g. client registrations)
    ├── ConfigError           bad configuration (environment, flags)
    └── StoreError            the database cannot do what was asked
        ├── SchemaTooNew      the database was written by a newer `remember`
        ├── StoreUnavailable  the database cannot be reached right now
        ├── StoreDamaged      the database file is damaged; writes are refused
        └── StoreReadOnly     the database is read-only (file, folder or medium); writes are refused

Errors echo what they were given only as a short excerpt (``excerpt``, ``bounded``):
however large a value a caller sends, the error about it stays small.
"""

from __future__ import annotations

import json
import reprlib
from dataclasses import dataclass
from typing import Any, Self

EXCERPT = 60  # characters of a given value shown back in a message
MAX_VALUE = 200  # characters of JSON a FieldError's ``value`` may hold before it becomes an excerpt
MAX_PATH = 200  # characters of a FieldError's ``field``
MAX_LINE = 1_000  # characters of one line of a message
MAX_DETAILS = 50  # field problems listed in a message (every one stays in ``errors``)
_BIG_INT_BITS = 128


def _short_repr() -> reprlib.Repr:
    shown = reprlib.Repr()
    shown.maxlevel, shown.maxstring, shown.maxother = 3, EXCERPT, EXCERPT
    shown.maxtuple = shown.maxlist = shown.maxdict = shown.maxset = shown.maxfrozenset = 6
    return shown


_REPR = _short_repr()
_ENCODER = json.JSONEncoder(ensure_ascii=False)


def excerpt(value: Any, limit: int = EXCERPT) -> str:
    """``value`` as a message shows it: its ``repr`` when short, else a cut one marked with the full size."""
    if isinstance(value, str):
        if len(value) <= limit:
            return repr(value)
        return f"{value[:limit]!r}… ({len(value)} characters)"
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > _BIG_INT_BITS:
        return f"an integer of {value.bit_length()} bits"
    if isinstance(value, list | tuple | dict | set | frozenset):
        shown = _REPR.repr(value)
        return shown if len(value) <= _REPR.maxlist else f"{shown} ({len(value)} items)"
    return clip(_REPR.repr(value), limit)


def bounded(value: Any) -> Any:
    """``value`` itself when its JSON is short, else its excerpt (a text), for an error's ``value``."""
    if value is None or isinstance(value, bool | float):
        return value
    if isinstance(value, int):
        return value if value.bit_length() <= _BIG_INT_BITS else excerpt(value)
    if isinstance(value, str):
        return value if len(value) <= MAX_VALUE else excerpt(value)
    return value if _short_json(value) else excerpt(value)


def clip(text: str, limit: int = MAX_LINE) -> str:
    """``text`` cut to ``limit`` characters, marked with its full length when cut."""
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text)} characters)"


def _short_json(value: Any) -> bool:
    """Whether ``value`` is JSON of at most MAX_VALUE characters (encoding stops as soon as it is not)."""
    size = 0
    try:
        for chunk in _ENCODER.iterencode(value):
            size += len(chunk)
            if size > MAX_VALUE:
                return False
    except (TypeError, ValueError, RecursionError):
        return False
    return True


@dataclass(frozen=True)
class FieldError:
    """One problem with one input field.

    ``field`` is a path (``contact_info.email``, ``action_items[2].due_date``),
    ``code`` a stable machine-readable identifier (documented in docs/errors.md),
    ``message`` a sentence for a person or a model, ``value`` the offending value.
    """

    field: str
    code: str
    message: str
    value: Any = None

    def __post_init__(self) -> None:
        # Whatever built it, a field error never carries a huge path, message or value.
        object.__setattr__(self, "field", clip(self.field, MAX_PATH))
        object.__setattr__(self, "message", clip(self.message))
        object.__setattr__(self, "value", bounded(self.value))

    def as_dict(self) -> dict[str, Any]:
        return {"field": self.field, "code": self.code, "message": self.message, "value": self.value}


class RememberError(Exception):
    """Base of every error `remember` raises on purpose."""

    def __init__(self, message: str) -> None:
        message = "\n".join(clip(line) for line in message.split("\n"))
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


class NotFound(RememberError):
    """The thing asked for does not exist (for this user)."""


class UnknownSpace(NotFound):
    """A space the user is not a member of, answered as one that does not exist. The message says how to
    find one's spaces in no edge's words; an edge words that with ``listed_by``."""

    def __init__(self, given: Any) -> None:
        self.given = excerpt(given)
        super().__init__(
            f"Unknown space {self.given}: no space of yours has that name or key; a space's admin can invite you."
        )

    def listed_by(self, how: str) -> str:
        """The message, ending with how the edge lists the user's spaces (``remember space list``)."""
        return f"{self.message} List yours with {how}."


class ValidationFailed(RememberError):
    """Input that cannot be accepted; ``errors`` lists every problem found."""

    def __init__(self, message: str, errors: list[FieldError] | None = None) -> None:
        self.errors: list[FieldError] = list(errors or [])
        super().__init__(_with_details(message, self.errors))

    @classmethod
    def single(cls, field_name: str, code: str, message: str, value: Any = None) -> Self:
        return cls(message, [FieldError(field_name, code, message, value)])


class TemplateError(ValidationFailed):
    """A template definition that is invalid (bad field, bad formula, cycle...)."""


class AccessDenied(RememberError):
    """The user may not do this (for example, change a built-in template)."""


class Conflict(RememberError):
    """Another change to the same record won the race."""


class LimitReached(RememberError):
    """A bound on what the server keeps is reached (client registrations, pending authorizations):
    nothing was stored; the message names the bound and when room is made."""


class ConfigError(RememberError):
    """The configuration (environment variables, flags) is unusable."""


class StoreError(RememberError):
    """The database failed to do what was asked."""


class SchemaTooNew(StoreError):
    """The database was migrated by a newer version of `remember`."""


class StoreUnavailable(StoreError):
    """The database cannot be reached right now; retrying later may work."""


class StoreDamaged(StoreError):
    """The database file is damaged: what can be read is served, nothing is written."""


class StoreReadOnly(StoreError):
    """The database can only be read (a read-only file, folder or medium): nothing is written."""


def _with_details(message: str, errors: list[FieldError]) -> str:
    """Append every field problem to the headline, unless the headline is the only one."""
    if not errors or (len(errors) == 1 and errors[0].message == message):
        return message
    lines = [message] + [f"- {e.field}: {e.message}" for e in errors[:MAX_DETAILS]]
    if len(errors) > MAX_DETAILS:
        lines.append(f"- … and {len(errors) - MAX_DETAILS} more problems of the same input")
    return "\n".join(lines)
