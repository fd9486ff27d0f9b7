"""Arguments a model can act on: a tool call's mistakes explained by name, expectation and value.

The SDK validates a call against the tool's pydantic model and reports
pydantic's own text. Here every mistake becomes one line naming the parameter,
what its schema expects and what was given, and an unknown name comes with the
closest known one ("unknown parameter 'path'; did you mean 'preference_path'?").
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from remember.errors import EXCERPT, bounded, excerpt

MAX_SUGGESTED = 200  # a name longer than this is no typo of a parameter name


def unknown_parameters(tool: str, schema: Mapping[str, Any], arguments: Mapping[str, Any]) -> str | None:
    """A message for the names ``schema`` does not define, or None when every name is known."""
    known = list(schema.get("properties", {}))
    unknown = [name for name in arguments if name not in known]
    if not unknown:
        return None
    lines = [f"- unknown parameter {_quoted(name)}{_suggestion(str(name), known)}" for name in unknown]
    return _message(tool, lines, known)


def explained(tool: str, schema: Mapping[str, Any], error: ValidationError) -> str:
    """pydantic's errors for a call, one line per parameter path."""
    lines: dict[str, str] = {}
    for problem in error.errors():
        path = _path(problem["loc"])
        if path in lines:
            continue  # a union reports once per member: the schema says what any of them is
        lines[path] = _line(path, problem, schema)
    return _message(tool, list(lines.values()), list(schema.get("properties", {})))


def _line(path: str, problem: Any, schema: Mapping[str, Any]) -> str:
    kind = problem["type"]
    if kind == "missing":
        return f"- missing required parameter {_quoted(path)} ({_expected(_schema_at(schema, path), schema)})"
    if kind == "extra_forbidden":
        parent = _schema_at(schema, path.rpartition(".")[0]) if "." in path else schema
        known = list((parent or {}).get("properties", {}))
        return f"- unknown parameter {_quoted(path)}{_suggestion(path.rpartition('.')[2], known)}"
    expected = _expected(_schema_at(schema, path), schema) if _schema_at(schema, path) else problem["msg"].lower()
    return f"- parameter {_quoted(path)} expects {expected}; got {_given(problem.get('input'))}"


def _message(tool: str, lines: list[str], known: list[str]) -> str:
    head = f"{tool} was called with arguments it cannot take:"
    return "\n".join([head, *lines, f"Its parameters: {', '.join(known) or 'none'}."])


def suggestion(name: str, known: list[str]) -> str:
    """``; did you mean 'x'?`` for the closest of ``known`` to ``name``, or nothing."""
    return _suggestion(name, known)


def _suggestion(name: str, known: list[str]) -> str:
    if len(name) > MAX_SUGGESTED:
        return ""
    close = difflib.get_close_matches(name, known, n=1, cutoff=0.5) or [k for k in known if name in k or k in name]
    return f"; did you mean {_quoted(close[0])}?" if close else ""


def _path(loc: tuple[Any, ...]) -> str:
    """``('context', 'timestamp')`` as ``context.timestamp``, ``('tags', 2)`` as ``tags[2]``; union
    member names (pydantic's ``str``, ``dict[str,any]``…) are left out."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif _is_member_name(str(part)):
            continue
        else:
            out += f".{part}" if out else str(part)
    return out


def _is_member_name(part: str) -> bool:
    return part in {"str", "int", "float", "bool", "none", "list", "dict"} or "[" in part or "-" in part


def _schema_at(schema: Mapping[str, Any], path: str) -> Mapping[str, Any] | None:
    node: Mapping[str, Any] | None = schema
    for name in path.replace("[", ".[").split(".") if path else []:
        node = _resolve(node, schema)
        if node is None:
            return None
        if name.startswith("["):
            node = _object_member(node, schema, "items")
        else:
            node = _object_member(node, schema, "properties", name)
    return _resolve(node, schema)


def _object_member(node: Mapping[str, Any], root: Mapping[str, Any], key: str, name: str | None = None) -> Any:
    for candidate in [node, *node.get("anyOf", [])]:
        option = _resolve(candidate, root)
        if option is None or key not in option:
            continue
        return option[key] if name is None else option[key].get(name)
    return None


def _resolve(node: Any, root: Mapping[str, Any]) -> Mapping[str, Any] | None:
    if not isinstance(node, Mapping):
        return None
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        return _resolve(root.get("$defs", {}).get(ref.rsplit("/", 1)[1]), root)
    return node


_NAMES = {
    "string": "a text",
    "number": "a number",
    "integer": "a whole number",
    "boolean": "true or false",
    "array": "a list",
    "object": "an object",
    "null": "null",
}


def _expected(node: Mapping[str, Any] | None, root: Mapping[str, Any]) -> str:
    node = _resolve(node, root)
    if node is None:
        return "a value"
    if "enum" in node:
        return "one of " + ", ".join(_quoted(v) for v in node["enum"])
    if "const" in node:
        return _quoted(node["const"])
    if "anyOf" in node:
        options = [_expected(o, root) for o in node["anyOf"]]
        return " or ".join(dict.fromkeys(options))
    kind = node.get("type")
    if isinstance(kind, list):  # ["string", "null"]
        return " or ".join(_expected({**node, "type": k}, root) if k != "null" else "null" for k in kind)
    if kind == "array" and "items" in node:
        return f"a list of {_plural(_expected(node['items'], root))}"
    if kind == "object" and "properties" in node:
        return f"an object with {', '.join(node['properties'])}"
    return _NAMES.get(str(kind), "a value")


def _plural(expected: str) -> str:
    return {"a text": "texts", "a number": "numbers", "a whole number": "whole numbers", "an object": "objects"}.get(
        expected, expected
    )


def _given(value: Any) -> str:
    kind = {str: "a text", bool: "a boolean", int: "a number", float: "a number", list: "a list", dict: "an object"}
    if value is None:
        return "null"
    return f"{_shown(value)} ({kind.get(type(value), type(value).__name__)})"


def _shown(value: Any) -> str:
    """Short JSON of ``value`` as it was given, or a marked excerpt of a long one."""
    if bounded(value) is value:
        try:
            shown = json.dumps(value, ensure_ascii=False)
        except (TypeError, ValueError):
            shown = repr(value)
        if len(shown) <= EXCERPT:
            return shown
    return excerpt(value)


def _quoted(value: Any) -> str:
    if isinstance(value, str):
        return f"'{value}'" if len(value) <= EXCERPT else excerpt(value)
    return _shown(value)
