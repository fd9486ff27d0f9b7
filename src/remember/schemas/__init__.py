"""The JSON shapes of what the edges answer: pydantic models of the services' results.

The MCP tools return them (the SDK derives each tool's output schema from them) and the
dashboard's JSON API answers with the same ones, so a memory, a template or a relationship
reads alike through either edge. One module per concept; each model has an ``of`` that
builds it from what the service returned.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Out(BaseModel):
    """A result: its declared fields and nothing else."""

    model_config = ConfigDict(extra="forbid")
