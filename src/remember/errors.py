"""The one error tree of `remember`.

Every failure the software expects is one of these. Layers raise them; only the
edges (the CLI, the MCP tools) translate them: the CLI prints the message to
stderr and exits non-zero, an MCP tool answers ``isError`` with the message.
A message always says what to do about it.

    RememberError
    ├── NotFound              an id that does not exist for this user
    ├── ValidationFailed      bad input; carries one FieldError per problem
    │   └── TemplateError     a template definition that cannot be used
    ├── AccessDenied          an operation this user may not do (e.g. edit a built-in)
    ├── Conflict              a concurrent change won; retry with fresh data
    ├── ConfigError           bad configuration (environment, flags)
    └── StoreError            the database cannot do what was asked
        ├── SchemaTooNew      the database was written by a newer `remember`
        └── StoreUnavailable  the database cannot be reached right now
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Self


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

    def as_dict(self) -> dict[str, Any]:
        return {"field": self.field, "code": self.code, "message": self.message, "value": self.value}


class RememberError(Exception):
    """Base of every error `remember` raises on purpose."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


class NotFound(RememberError):
    """The thing asked for does not exist (for this user)."""


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


class ConfigError(RememberError):
    """The configuration (environment variables, flags) is unusable."""


class StoreError(RememberError):
    """The database failed to do what was asked."""


class SchemaTooNew(StoreError):
    """The database was migrated by a newer version of `remember`."""


class StoreUnavailable(StoreError):
    """The database cannot be reached right now; retrying later may work."""


def _with_details(message: str, errors: list[FieldError]) -> str:
    """Append every field problem to the headline, unless the headline is the only one."""
    if not errors or (len(errors) == 1 and errors[0].message == message):
        return message
    lines = [message] + [f"- {e.field}: {e.message}" for e in errors]
    return "\n".join(lines)
