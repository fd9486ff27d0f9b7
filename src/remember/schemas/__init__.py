"""The JSON shapes of what the edges answer: pydantic models of the services' results.

The MCP tools return them (the SDK derives each tool's output schema from them) and the
dashboard's JSON API answers with the same ones, so a memory, a template or a relationship
reads alike through either edge. One module per concept; each model has an ``of`` that
builds it from what the service returned.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, WithJsonSchema

from remember.jsontypes import DETAIL


def any_of(*types: dict[str, Any]) -> WithJsonSchema:
    """A value of any of ``types``, each with its own ``type``: a schema without one accepts anything and
    strict clients refuse it, and one with a list of types (``["string", "null"]``) is refused by clients
    that read one type per value."""
    return WithJsonSchema({"anyOf": list(types)})


# Any JSON value but null (a result leaves a null out).
AnyValue = Annotated[
    Any, any_of({"type": "string"}, {"type": "number"}, {"type": "boolean"}, {"type": "object"}, {"type": "array"})
]


class Out(BaseModel):
    """A result: its declared fields and nothing else."""

    model_config = ConfigDict(extra="forbid")


def detail(*names: str) -> dict[str, Any]:
    """``json_schema_extra`` naming a result's detail properties: the tool list (``mcp/compact.py``) leaves
    them out of the result schemas it shows, which name a result's main properties only (what a result's
    properties mean is said once, in docs/tools.md). A result still carries them, and a subclass inherits
    the list."""
    return {DETAIL: list(names)}
