"""Problems found while reading a template definition: collected, never raised one at a time."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from remember.errors import FieldError


@dataclass
class Problems:
    """Collected definition problems; ``bad`` holds the paths of fields that have one."""

    errors: list[FieldError] = field(default_factory=list)
    bad: set[str] = field(default_factory=set)

    def add(self, path: str, code: str, message: str, value: Any = None) -> None:
        self.errors.append(FieldError(path, code, message, value))
        self.bad.add(path)

    def flag(self, raw: dict[str, Any], key: str, path: str) -> bool:
        """``raw[key]`` as a boolean (false when absent); anything else is a problem at ``path``."""
        value = raw.get(key, False)
        if isinstance(value, bool):
            return value
        self.add(path, "invalid", f"{key} must be true or false", value)
        return False
