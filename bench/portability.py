"""Tool schemas that the strictest clients take: the MCP Inspector's schema portability rules, and one more.

The Inspector (``core/json/schemaLint.ts``) walks every subschema of a tool's input and output
schemas and reports:

- ``boolean-schema`` (error): a bare ``true``/``false`` where a schema object belongs (it is idiomatic
  only under ``additionalProperties`` and its like);
- ``type-union`` (warning): ``type`` as an array, e.g. ``["string", "null"]``, which a client that maps
  schemas onto one ``type`` per value (the OpenAPI subset of Gemini's function declarations) rejects;
- ``untyped-schema`` (warning): a schema with no keyword that constrains a value (``{}``, or only a
  description): it accepts anything;
- ``remote-ref`` (warning): a ``$ref`` outside the document.

``untyped-value`` is this project's own, stricter: every value a schema describes (a property, an
item, a branch of ``anyOf``) names its ``type``, or is a ``$ref`` or a choice of such values, because a
client that reads one ``type`` per value has nothing else to go by.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

BOOLEAN_VALUED = {"additionalProperties", "unevaluatedProperties", "additionalItems", "unevaluatedItems"}
ONE = ("items", "contains", "not", "propertyNames", "if", "then", "else", *sorted(BOOLEAN_VALUED), "contentSchema")
MANY = ("allOf", "anyOf", "oneOf", "prefixItems")
NAMED = ("properties", "patternProperties", "dependentSchemas", "dependencies", "$defs", "definitions")
CONSTRAINING = {
    "type", "enum", "const", "multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum",
    "maxLength", "minLength", "pattern", "format", "contentMediaType", "contentEncoding", "contentSchema",
    "maxItems", "minItems", "uniqueItems", "maxContains", "minContains", "maxProperties", "minProperties",
    "required", "dependentRequired", "allOf", "anyOf", "oneOf", "not", "items", "prefixItems", "contains",
    "additionalItems", "unevaluatedItems", "properties", "patternProperties", "additionalProperties",
    "unevaluatedProperties", "propertyNames", "dependentSchemas", "dependencies", "$ref", "$dynamicRef",
    "$recursiveRef",
}  # fmt: skip
JSON_TYPES = {"null", "boolean", "object", "array", "number", "string", "integer"}
# Where a value is described (its type matters to a client); $defs entries are reached through their $ref.
VALUES = {"properties", "items", "prefixItems", "additionalProperties", "anyOf", "oneOf", "$defs", "definitions"}
WARNINGS = ("type-union", "untyped-schema", "remote-ref")  # what the Inspector counts as warnings


@dataclass(frozen=True)
class Finding:
    tool: str
    schema: str  # inputSchema or outputSchema
    path: str
    rule: str

    def __str__(self) -> str:
        return f"{self.tool} {self.schema}.{self.path or '(root)'}: {self.rule}"


def findings(tools: list[dict[str, Any]]) -> list[Finding]:
    """Every non-portable construct in the schemas of a ``tools/list`` answer's tools."""
    found: list[Finding] = []
    for tool in tools:
        for kind in ("inputSchema", "outputSchema"):
            if kind in tool:
                for path, rule in _walk(tool[kind], "", None, 0):
                    found.append(Finding(tool["name"], kind, path, rule))
    return found


def inspector_warnings(found: list[Finding]) -> tuple[int, int]:
    """The Inspector's summary of ``found``: (warnings, tools with a finding)."""
    counted = [f for f in found if f.rule in WARNINGS]
    return len(counted), len({f.tool for f in found if f.rule in WARNINGS or f.rule == "boolean-schema"})


def _walk(node: Any, path: str, keyword: str | None, depth: int) -> Iterator[tuple[str, str]]:
    if depth > 64:
        return
    if isinstance(node, bool):
        if keyword not in BOOLEAN_VALUED:
            yield path, "boolean-schema"
        return
    if not isinstance(node, dict):
        return
    yield from _node(node, path, keyword)
    for child, child_path, child_keyword in _subschemas(node, path):
        yield from _walk(child, child_path, child_keyword, depth + 1)


def _node(node: dict[str, Any], path: str, keyword: str | None) -> Iterator[tuple[str, str]]:
    kind = node.get("type")
    if isinstance(kind, list) and kind and all(k in JSON_TYPES for k in kind) and len(set(kind)) == len(kind):
        yield path, "type-union"
    ref = node.get("$ref")
    if isinstance(ref, str) and ref and not ref.startswith("#"):
        yield path, "remote-ref"
    constrains = any(key in CONSTRAINING for key in node) or ("if" in node and ("then" in node or "else" in node))
    if not constrains and keyword != "not":
        yield path, "untyped-schema"
    elif (keyword is None or keyword in VALUES) and not _typed(node):
        yield path, "untyped-value"


def _typed(node: dict[str, Any]) -> bool:
    if isinstance(node.get("type"), str | list) or isinstance(node.get("$ref"), str):
        return True  # a list of types is reported as type-union
    choice = node.get("anyOf", node.get("oneOf"))
    return isinstance(choice, list) and bool(choice) and all(isinstance(c, dict) for c in choice)


def _subschemas(node: dict[str, Any], path: str) -> Iterator[tuple[Any, str, str]]:
    for key in NAMED:
        named = node.get(key)
        if isinstance(named, dict):
            for name, sub in named.items():
                yield sub, _child(_child(path, key), name), key
    for key in MANY:
        subs = node.get(key)
        if isinstance(subs, list):
            for i, sub in enumerate(subs):
                yield sub, f"{_child(path, key)}[{i}]", key
    for key in ONE:
        if key in node:
            value = node[key]
            if key == "items" and isinstance(value, list):
                for i, sub in enumerate(value):
                    yield sub, f"{_child(path, key)}[{i}]", key
            else:
                yield value, _child(path, key), key


def _child(parent: str, key: str) -> str:
    name = key if re.fullmatch(r"[A-Za-z_$][A-Za-z0-9_$]*", key) else f'["{key}"]'
    return name if not parent else (f"{parent}{name}" if name.startswith("[") else f"{parent}.{name}")


Check = Callable[[list[dict[str, Any]]], list[Finding]]
