"""The preferences page's API: ``GET /api/preferences`` and ``PATCH /api/preferences``.

``GET`` answers every preference's effective value by category (as
``remember_get_preferences``) and what each one accepts, for the form.
``PATCH`` with ``{"values": {"search.default_limit": 20, ...}, "reason": "..."}``
checks every value first with the same rules as ``remember_update_preferences``
and changes none when any is refused: each problem names its preference's path
as its ``field``, so the page shows it next to that control.
"""

from __future__ import annotations

from typing import Any

from starlette.routing import Route

from remember import preferences as known
from remember.errors import FieldError, RememberError, ValidationFailed
from remember.schemas.preferences import PreferenceChangeOut
from remember.service import checks
from remember.web.context import WebContext
from remember.web.responses import Call, endpoint

MAX_CHANGES = len(known.SPECS)


def routes(ctx: WebContext) -> list[Route]:
    return [
        Route("/api/preferences", endpoint(ctx, read), methods=["GET"]),
        Route("/api/preferences", endpoint(ctx, change), methods=["PATCH"]),
    ]


def read(call: Call) -> dict[str, Any]:
    category = call.text("category")
    return {
        "preferences": call.services.preferences.get(call.caller, category),
        "specs": [_spec(s) for s in known.SPECS if category is None or s.category == category],
    }


def change(call: Call) -> dict[str, Any]:
    body = call.json_object()
    values = body.get("values")
    if not isinstance(values, dict) or not values:
        raise ValidationFailed.single(
            "values", "type", 'Send {"values": {"search.default_limit": 20}}: the preferences to change.'
        )
    if len(values) > MAX_CHANGES:
        raise ValidationFailed.single("values", "max_items", f"Change at most {MAX_CHANGES} preferences at once.")
    reason = checks.reason(body.get("reason"))
    _check_all(values)
    service = call.services.preferences
    changes = [service.update(call.caller, path, value, reason=reason) for path, value in values.items()]
    return {"changes": [PreferenceChangeOut.model_validate(c.as_dict()) for c in changes]}


def _check_all(values: dict[str, Any]) -> None:
    """Every value checked before any is stored; every problem reported under its path."""
    problems: list[FieldError] = []
    for path, value in values.items():
        try:
            known.coerce(known.spec_for(path), value)
        except RememberError as problem:
            message = problem.message
            problems.append(FieldError(path, _code(problem), message, value))
    if problems:
        raise ValidationFailed("No preference was changed: fix the values marked.", problems)


def _code(problem: RememberError) -> str:
    errors = problem.errors if isinstance(problem, ValidationFailed) else []
    return errors[0].code if errors else "invalid"


def _spec(spec: known.PreferenceSpec) -> dict[str, Any]:
    return {
        "path": spec.path,
        "category": spec.category,
        "kind": spec.kind,
        "default": spec.default,
        "description": spec.description,
        "minimum": spec.minimum,
        "maximum": spec.maximum,
        "choices": list(spec.choices),
    }
