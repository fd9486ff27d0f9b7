"""The known per-user preferences: their paths, types, bounds and defaults.

A preference is addressed by a dot path (``search.default_limit``); its first
segment is its category. Only the paths listed here exist; a value is checked
against its spec before it is stored. docs/preferences.md lists them all.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from remember.errors import StoreError, ValidationFailed, excerpt
from remember.jsontypes import JsonValue

Kind = Literal["bool", "int", "float", "float_or_auto", "str", "str_list", "type"]
AUTO = "auto"  # a float_or_auto preference left to the code that reads it
# A memory type: what `type` accepts (letters, digits, spaces, _ and -), stored in snake case.
TYPE_NAME = re.compile(r"^[^\W][\w \-]{0,63}$")


@dataclass(frozen=True)
class PreferenceSpec:
    path: str
    kind: Kind
    default: Any
    description: str
    minimum: float | None = None
    maximum: float | None = None
    choices: tuple[str, ...] = ()

    @property
    def category(self) -> str:
        return self.path.split(".", 1)[0]


SPECS: tuple[PreferenceSpec, ...] = (
    PreferenceSpec("memory.default_type", "type", "note", "Type given to a memory created without one."),
    PreferenceSpec(
        "memory.default_weight",
        "float",
        0.5,
        "Weight (significance, 0-1) of a memory created without one.",
        0,
        1,
    ),
    PreferenceSpec(
        "memory.on_duplicate",
        "str",
        "keep",
        "What a create does when the user has a memory of the same or a very similar text: keep both "
        "(and say so), skip the new one, or merge it into the existing one. A retried call is never stored twice.",
        choices=("keep", "skip", "merge"),
    ),
    PreferenceSpec(
        "memory.on_identity",
        "str",
        "update",
        "What a create does when a current memory of the same template has the same identity values (the "
        "same person, the same book): update it with the new values (its history keeps the old), store the "
        "new one superseding it, or keep both.",
        choices=("update", "supersede", "keep"),
    ),
    PreferenceSpec("privacy.default_trust", "float", 0.5, "Trust level (0-1) of a memory created without one.", 0, 1),
    PreferenceSpec("search.default_limit", "int", 10, "Results returned by a search without a limit.", 1, 100),
    PreferenceSpec(
        "search.default_alpha",
        "float_or_auto",
        AUTO,
        "Blend of semantic (1) and keyword (0) search when a search gives no alpha; auto: chosen for each "
        "search from its candidates.",
        0,
        1,
    ),
    PreferenceSpec(
        "search.min_score",
        "float",
        0.2,
        "Least cosine similarity (-1 to 1) a memory or relationship no keyword of the query found needs to be "
        "returned by a search; -1 returns every candidate.",
        -1,
        1,
    ),
    PreferenceSpec(
        "search.weight_boost",
        "float",
        0.1,
        "How much a memory's weight moves its search score: score + boost * (weight - 0.5).",
        0,
        1,
    ),
    PreferenceSpec(
        "search.recency_boost",
        "float",
        0.0,
        "How much recency adds to a search score: boost * 0.5 ** (age / half-life); 0 turns it off.",
        0,
        1,
    ),
    PreferenceSpec(
        "search.recency_half_life_days", "float", 30.0, "Age (days) at which the recency boost halves.", 1, 36500
    ),
    PreferenceSpec(
        "spaces.default",
        "str",
        "personal",
        "Where a new memory or relationship goes when none is named: personal, or a shared space's name or key.",
    ),
    PreferenceSpec("templates.auto_suggest", "bool", True, "Suggest templates for new free-text memories."),
    PreferenceSpec(
        "templates.suggestion_threshold",
        "float",
        0.5,
        "Confidence (0-1) a suggestion needs to be shown.",
        0,
        1,
    ),
    PreferenceSpec("templates.max_suggestions", "int", 3, "Most template suggestions returned at once.", 0, 10),
    PreferenceSpec("templates.suppressed_templates", "str_list", [], "Template ids never suggested."),
    PreferenceSpec("templates.suppressed_categories", "str_list", [], "Template categories never suggested."),
)

_BY_PATH: dict[str, PreferenceSpec] = {spec.path: spec for spec in SPECS}
CATEGORIES: tuple[str, ...] = tuple(sorted({spec.category for spec in SPECS}))
MAX_LIST_ITEMS = 200
MAX_TEXT = 200


def spec_for(path: str) -> PreferenceSpec:
    """The spec of ``path``, or a ValidationFailed that lists the known paths."""
    spec = _BY_PATH.get(path)
    if spec is None:
        known = ", ".join(sorted(_BY_PATH))
        raise ValidationFailed.single(
            "preference_path",
            "unknown_preference",
            f"Unknown preference {excerpt(path)}. Known preferences: {known}.",
            path,
        )
    return spec


def check_category(category: str) -> str:
    if category not in CATEGORIES:
        raise ValidationFailed.single(
            "category",
            "unknown_category",
            f"Unknown preference category {excerpt(category)}. Categories: {', '.join(CATEGORIES)}.",
            category,
        )
    return category


def coerce(spec: PreferenceSpec, value: Any) -> Any:
    """``value`` checked against ``spec``; raises ValidationFailed saying what is expected."""
    checked = _coerce_kind(spec, value)
    if spec.choices and checked not in spec.choices:
        raise ValidationFailed.single(
            "value", "options", f"{spec.path} must be one of {', '.join(spec.choices)}; got {excerpt(value)}.", value
        )
    if spec.kind in ("int", "float", "float_or_auto") and checked != AUTO:
        _check_bounds(spec, checked)
    return checked


def defaults() -> dict[str, JsonValue]:
    return {spec.path: _copy(spec.default) for spec in SPECS}


def effective(overrides: Mapping[str, JsonValue]) -> dict[str, JsonValue]:
    """Defaults with the user's stored values on top (unknown stored paths ignored)."""
    values = defaults()
    values.update({path: v for path, v in overrides.items() if path in _BY_PATH})
    return values


def nest(flat: Mapping[str, JsonValue]) -> dict[str, dict[str, JsonValue]]:
    """``{"search.default_limit": 10}`` -> ``{"search": {"default_limit": 10}}``."""
    out: dict[str, dict[str, JsonValue]] = {}
    for path, value in flat.items():
        category, name = path.split(".", 1)
        out.setdefault(category, {})[name] = value
    return out


# Typed reads of one value of ``effective``'s mapping, for the code that uses it. Every stored value
# was checked against its spec, so a value of another kind means the database was changed by hand.


def number(values: Mapping[str, JsonValue], path: str) -> float:
    value = values[path]
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    raise _not_usable(path, value)


def number_or_auto(values: Mapping[str, JsonValue], path: str) -> float | None:
    """A float_or_auto preference: its number, or None for ``auto``."""
    value = values[path]
    return None if value == AUTO else number(values, path)


def whole(values: Mapping[str, JsonValue], path: str) -> int:
    value = values[path]
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    raise _not_usable(path, value)


def flag(values: Mapping[str, JsonValue], path: str) -> bool:
    value = values[path]
    if isinstance(value, bool):
        return value
    raise _not_usable(path, value)


def text(values: Mapping[str, JsonValue], path: str) -> str:
    value = values[path]
    if isinstance(value, str):
        return value
    raise _not_usable(path, value)


def texts(values: Mapping[str, JsonValue], path: str) -> tuple[str, ...]:
    value = values[path]
    if isinstance(value, list):
        items = tuple(v for v in value if isinstance(v, str))
        if len(items) == len(value):
            return items
    raise _not_usable(path, value)


def _not_usable(path: str, value: JsonValue) -> StoreError:
    return StoreError(
        f"The stored preference {path} is {excerpt(value)}, not {_describe(spec_for(path))}: "
        f"set it again (remember prefs set {path} VALUE)."
    )


def _coerce_kind(spec: PreferenceSpec, value: Any) -> Any:
    kind = spec.kind
    if kind == "bool" and isinstance(value, bool):
        return value
    if kind == "int" and isinstance(value, int) and not isinstance(value, bool):
        return value
    if kind in ("float", "float_or_auto") and _is_finite(value):
        return float(value)
    if kind == "float_or_auto" and isinstance(value, str) and value.strip().lower() == AUTO:
        return AUTO
    if kind == "str" and isinstance(value, str) and 0 < len(value.strip()) <= MAX_TEXT:
        return value.strip()
    if kind == "type" and isinstance(value, str) and TYPE_NAME.match(value.strip()):
        return "_".join(value.strip().lower().split())
    if kind == "str_list" and _is_str_list(value):
        return list(dict.fromkeys(v.strip() for v in value))
    raise ValidationFailed.single(
        "value", "type", f"{spec.path} must be {_describe(spec)}; got {excerpt(value)}.", value
    )


def _is_finite(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _is_str_list(value: Any) -> bool:
    return (
        isinstance(value, list)
        and len(value) <= MAX_LIST_ITEMS
        and all(isinstance(v, str) and 0 < len(v.strip()) <= MAX_TEXT for v in value)
    )


def _check_bounds(spec: PreferenceSpec, value: float) -> None:
    too_low = spec.minimum is not None and value < spec.minimum
    too_high = spec.maximum is not None and value > spec.maximum
    if too_low or too_high:
        raise ValidationFailed.single(
            "value", "range", f"{spec.path} must be {_describe(spec)}; got {excerpt(value)}.", value
        )


def _describe(spec: PreferenceSpec) -> str:
    names = {
        "bool": "true or false",
        "int": "a whole number",
        "float": "a finite number",
        "float_or_auto": "auto or a finite number",
        "str": f"a non-empty text of at most {MAX_TEXT} characters",
        "str_list": f"a list of at most {MAX_LIST_ITEMS} non-empty texts",
        "type": "a type of letters, digits, spaces, _ and - (e.g. 'book')",
    }
    text = names[spec.kind]
    if spec.minimum is not None and spec.maximum is not None:
        text += f" from {_num(spec.minimum)} to {_num(spec.maximum)}"
    return text


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else str(x)


def _copy(value: Any) -> Any:
    return list(value) if isinstance(value, list) else value
