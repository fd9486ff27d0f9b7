"""What names a space in the store: the personal space is the user's id, a shared space a key no user id can be.

Every row a user owns is keyed by ``user_id``; a shared space's rows are keyed the same way by the space's
key. A user id starts with a letter or a digit (``config.USER_ID``); a space key starts with ``~``, which no
user id may hold anywhere, so the two can never meet, and every query keyed on one owner reads one space.
"""

from __future__ import annotations

import re
import secrets
from typing import Literal

PREFIX = "~"
SPACE_KEY = re.compile(r"^~[0-9a-f]{16}$")
Role = Literal["reader", "writer", "admin"]
ROLES: tuple[Role, ...] = ("reader", "writer", "admin")  # each may do what the ones before it may


def new_key() -> str:
    """A fresh shared space key: ``~`` and 16 hex digits."""
    return PREFIX + secrets.token_hex(8)


def is_space_key(value: str) -> bool:
    """Whether ``value`` names a shared space (a user id never does)."""
    return value.startswith(PREFIX)


def at_least(role: str, needed: Role) -> bool:
    """Whether ``role`` may do what ``needed`` may."""
    return role in ROLES and ROLES.index(role) >= ROLES.index(needed)
