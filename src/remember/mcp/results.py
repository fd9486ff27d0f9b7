"""What a tool call answers a client: its structured result with nothing empty spelled out, and the
same object again as compact JSON text.

A client reads a tool's result into its model's context, either the structured result or the
text copy the server sends beside it for clients that read only text. The SDK writes that copy
as indented JSON of the whole result, every null and empty list included. Here both become the
same object, with only what says something:

- a key the result's schema declares is left out when its value is null, an empty list or an
  empty object (``false``, ``0`` and ``""`` are values and stay), but for the list a tool answers
  with (``ANSWER_LISTS``), which is there even when nothing was found;
- inside a free-form object (a memory's ``context`` or ``structured_content``, the ``why`` of an
  explained hit, the ``previous`` values of a history entry) nothing is touched: there a null is
  what was stored;
- the text is that object as compact JSON, so ``json.loads(text) == structuredContent``.

The output schemas say so (``compact.compact_output``: no declared property is required or null).
"""

from __future__ import annotations

import json
from typing import Any

from mcp_types import CallToolResult, TextContent

from remember.mcp.compact import REF

# The lists a tool answers with (a search's hits, a page, a question's sources, the suggestions,
# the related memories): "found nothing" is said with an empty one.
ANSWER_LISTS = frozenset({"results", "memories", "templates", "sources", "suggestions", "related"})


def in_brief(result: CallToolResult, output_schema: dict[str, Any] | None) -> CallToolResult:
    """``result`` as the client gets it: without empty values where ``output_schema`` declares its keys,
    and its text the structured result as compact JSON. An error or an unstructured result is left alone."""
    if result.is_error or result.structured_content is None or output_schema is None:
        return result
    structured = pruned(result.structured_content, output_schema, output_schema.get("$defs", {}), ANSWER_LISTS)
    text = json.dumps(structured, separators=(",", ":"), ensure_ascii=False)
    content = [TextContent(type="text", text=text)]
    return result.model_copy(update={"structured_content": structured, "content": content})


def pruned(value: Any, schema: Any, defs: dict[str, Any], keep: frozenset[str] = frozenset()) -> Any:
    """``value`` without the null and empty values of the properties ``schema`` declares, at any depth
    (but for ``keep``'s, at the top, when they are lists)."""
    schema = _for(value, schema, defs)
    declared = schema.get("properties")
    if isinstance(value, dict) and isinstance(declared, dict):
        kept = ((key, pruned(item, declared[key], defs) if key in declared else item) for key, item in value.items())
        return {
            key: item for key, item in kept if key not in declared or not empty(item) or (key in keep and item == [])
        }
    if isinstance(value, list) and "items" in schema:
        return [pruned(item, schema["items"], defs) for item in value]
    return value


def empty(value: Any) -> bool:
    """Null, an empty list or an empty object: what a result leaves out."""
    return value is None or (isinstance(value, list | dict) and not value)


def _for(value: Any, schema: Any, defs: dict[str, Any]) -> dict[str, Any]:
    """The part of ``schema`` that describes ``value``: a ``$ref`` followed, the branch of an ``anyOf``
    that declares the properties of an object or the items of a list."""
    if not isinstance(schema, dict):
        return {}
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith(REF):
        return _for(value, defs.get(ref[len(REF) :], {}), defs)
    for branch in schema.get("anyOf", ()):
        found = _for(value, branch, defs)
        if (isinstance(value, dict) and "properties" in found) or (isinstance(value, list) and "items" in found):
            return found
    return schema
