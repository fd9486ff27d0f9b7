"""Tool schemas as short as they can be and still say everything a client needs, in the form the
strictest clients take.

pydantic's JSON Schemas carry a ``title`` for every property and model (the
property's own name, capitalised), ``anyOf`` with a ``null`` member for every
optional value and ``"default": null`` beside it. Across 21 tools that is half
of what a client reads into its model's context on every conversation. The
compact form keeps every type, constraint, description, enum, non-null default
and required list: an optional parameter is given or left out (its schema does not
list null), titles and null defaults go, and so do ``"additionalProperties": true``
(the default). A result's schema also has the models it uses once written in place,
and no null anywhere a result leaves out (``results.py``). ``type`` is never a list
(``["string", "null"]``): clients that read one type per value refuse it. Calls are
still validated against the full pydantic model.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from mcp_types import Tool

from remember.jsontypes import DETAIL

_NODE_MAPS = ("properties", "$defs", "patternProperties")
_NODE_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
_NODES = ("items", "additionalProperties", "not", "contains")


def compact_tool(tool: Tool) -> Tool:
    """A tool's description as the SDK gives it, with both schemas compact. The input schema also
    says that unknown argument names are refused (the server checks them before a call runs)."""
    output = compact_output(tool.output_schema) if tool.output_schema is not None else None
    given = compact_input({**tool.input_schema, "additionalProperties": False})
    return tool.model_copy(update={"input_schema": given, "output_schema": output})


def compact(schema: dict[str, Any]) -> dict[str, Any]:
    """A compact copy of ``schema`` (the input is left alone)."""
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "title" or (key == "default" and value is None) or (key == "additionalProperties" and value is True):
            continue
        if key in _NODE_MAPS and isinstance(value, dict):
            out[key] = {name: _node(node) for name, node in value.items()}
        elif key in _NODE_LISTS and isinstance(value, list):
            out[key] = [_node(node) for node in value]
        elif key in _NODES and isinstance(value, dict):
            out[key] = compact(value)
        else:
            out[key] = value
    return out


def compact_input(schema: dict[str, Any]) -> dict[str, Any]:
    """The compact form of a tool's parameters: an optional parameter (or an optional property of an
    object parameter) is given or left out, so its schema does not list null as a value too (a null
    sent anyway means "not given")."""
    out: dict[str, Any] = _optional_given(compact(schema))
    if isinstance(out.get("$defs"), dict):
        out["$defs"] = {name: _optional_given(node) for name, node in out["$defs"].items()}
    return out


def _optional_given(node: Any) -> Any:
    if not isinstance(node, dict) or not isinstance(node.get("properties"), dict):
        return node
    required = set(node.get("required", ()))
    properties = {name: sub if name in required else _not_null(sub) for name, sub in node["properties"].items()}
    return {**node, "properties": properties}


def _not_null(node: Any) -> Any:
    if not isinstance(node, dict):
        return node
    kind = node.get("type")
    if isinstance(kind, list) and "null" in kind:
        rest = [k for k in kind if k != "null"]
        return {**node, "type": rest[0] if len(rest) == 1 else rest}
    options = node.get("anyOf")
    if isinstance(options, list) and {"type": "null"} in options:
        rest = [o for o in options if o != {"type": "null"}]
        merged = {k: v for k, v in node.items() if k != "anyOf"}
        return {**rest[0], **merged} if len(rest) == 1 else {**merged, "anyOf": rest}
    return node


def compact_output(schema: dict[str, Any], *, lean: bool = True) -> dict[str, Any]:
    """The compact form of a result's schema, without what only repeats: a result carries only the
    properties it declares, and leaves out those that are null or empty (``results.py``), so no
    property is required or null, and ``"additionalProperties": false`` adds nothing to the property
    names. A result schema keeps its types and drops its prose: what a result's fields mean is said
    once, in the tool's description and the docs, not in every tool that returns a memory or a template.

    ``lean`` (the tool list's form) also leaves out the detail properties a result model names
    (``schemas.detail``): a memory is shown by its main properties in every tool that returns one, not
    by all twenty-two each time. The result still carries them, and is pruned by the whole schema
    (``lean=False``, ``server.py``); a lean schema declares fewer properties and admits the rest."""
    trimmed: dict[str, Any] = _trimmed(compact(_inlined(schema)), lean)
    return trimmed


def _inlined(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` with each ``$defs`` entry that is referred to once written in place of its ``$ref``
    (a name and a reference say nothing a client needs); shared and recursive ones stay."""
    defs = schema.get("$defs")
    if not isinstance(defs, dict):
        return schema
    uses: Counter[str] = Counter()
    _count_refs(schema, uses)
    once = {name for name in defs if uses[REF + name] == 1 and not _refers(defs[name], REF + name)}
    if not once:
        return schema
    out = _replace_refs({k: v for k, v in schema.items() if k != "$defs"}, defs, once)
    rest = {name: _replace_refs(node, defs, once) for name, node in defs.items() if name not in once}
    return {**out, "$defs": rest} if rest else out


REF = "#/$defs/"  # where a schema's own models are


def _count_refs(node: Any, uses: Counter[str]) -> None:
    if isinstance(node, dict):
        if isinstance(node.get("$ref"), str):
            uses[node["$ref"]] += 1
        for value in node.values():
            _count_refs(value, uses)
    elif isinstance(node, list):
        for item in node:
            _count_refs(item, uses)


def _refers(node: Any, ref: str) -> bool:
    uses: Counter[str] = Counter()
    _count_refs(node, uses)
    return uses[ref] > 0


def _replace_refs(node: Any, defs: dict[str, Any], once: set[str]) -> Any:
    if isinstance(node, list):
        return [_replace_refs(item, defs, once) for item in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith(REF) and ref[len(REF) :] in once:
        return _replace_refs({**defs[ref[len(REF) :]], **{k: v for k, v in node.items() if k != "$ref"}}, defs, once)
    return {key: _replace_refs(value, defs, once) for key, value in node.items()}


def _trimmed(node: Any, lean: bool) -> Any:
    if isinstance(node, list):
        return [_trimmed(item, lean) for item in node]
    if not isinstance(node, dict):
        return node
    out = {
        key: value if key in ("enum", "const", "default", "examples") else _trimmed(value, lean)
        for key, value in node.items()
        if not (key == "required" and isinstance(value, list))
        and not (key == "additionalProperties" and value is False)
        and not (key == "description" and isinstance(value, str))
        and key != DETAIL
    }
    if lean and out.get("type") == "array" and _plain(out.get("items")):
        del out["items"]  # a list of texts, numbers or free-form objects: "array" says enough in a result
    if isinstance(out.get("properties"), dict):
        left_out = set(node.get(DETAIL, ())) if lean else set()
        out["properties"] = {name: _not_null(sub) for name, sub in out["properties"].items() if name not in left_out}
    return out


def _plain(items: Any) -> bool:
    """Whether ``items`` is a bare scalar type (``{"type": "string"}``)."""
    return (
        isinstance(items, dict)
        and set(items) == {"type"}
        and items["type"] in ("string", "number", "integer", "object")
    )


def _node(node: Any) -> Any:
    return compact(node) if isinstance(node, dict) else node
