"""remember: long-term, structured memory for AI assistants, spoken to over MCP."""

from remember.errors import (
    AccessDenied,
    ConfigError,
    Conflict,
    FieldError,
    NotFound,
    RememberError,
    SchemaTooNew,
    StoreDamaged,
    StoreError,
    StoreReadOnly,
    StoreUnavailable,
    TemplateError,
    ValidationFailed,
)

__version__ = "0.1.0"

__all__ = [
    "AccessDenied",
    "ConfigError",
    "Conflict",
    "FieldError",
    "NotFound",
    "RememberError",
    "SchemaTooNew",
    "StoreDamaged",
    "StoreError",
    "StoreReadOnly",
    "StoreUnavailable",
    "TemplateError",
    "ValidationFailed",
    "__version__",
]
