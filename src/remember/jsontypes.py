"""The loose input of the edges, named once: JSON values as a client sends them.

A tool's arguments, a request body and a command's ``--filter`` arrive as JSON; the
services take them typed as these and check every value (a wrong type or range is a
``ValidationFailed`` naming the field), so nothing reaches the store unchecked.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TypeAlias

JsonValue: TypeAlias = "str | int | float | bool | Sequence[JsonValue] | Mapping[str, JsonValue] | None"
JsonObject: TypeAlias = Mapping[str, JsonValue]

#: The JSON Schema keyword by which a result model names its detail properties (``schemas.detail``), which
#: the tool list leaves out (``mcp/compact.py``). Here, at the bottom, so that the tool list is read
#: without importing the result models.
DETAIL = "x-detail"
