"""A tool's annotations, and the shape of a tool module's ``TOOLS``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mcp_types import ToolAnnotations

Tools = list[tuple[Callable[..., Any], ToolAnnotations]]  # each tool of a module, with its annotations


def hints(*, read_only: bool, destructive: bool = False, idempotent: bool = False) -> ToolAnnotations:
    """A tool's annotations, stating only what differs from MCP's defaults (a tool writes, destructively,
    not idempotently, to an open world); whether a write is destructive or idempotent only means
    something for a tool that writes."""
    if read_only:
        return ToolAnnotations(read_only_hint=True, open_world_hint=False)
    return ToolAnnotations(
        destructive_hint=None if destructive else False,
        idempotent_hint=True if idempotent else None,
        open_world_hint=False,
    )


READS = hints(read_only=True, idempotent=True)
WRITES = hints(read_only=False)
