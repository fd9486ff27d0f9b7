"""Asking the user, through the client, for a template's missing required fields.

``remember_create_memory`` has a parameter filled by ``missing_fields`` (an SDK
resolver, run before the tool body): when the memory names a template, the only
problems with its fields are absent required ones, each is a kind a form can ask
for (text, number, whole number, yes/no, choice, date) and the client declares
the elicitation capability, it asks the user for them. The SDK carries the
question in whichever way the negotiated protocol uses. Otherwise nothing is
asked and the tool answers with the list of missing fields.

When the memory is given as text with a template, the form starts from the
prefill: the fields read from the text (``SuggestionService.prefill``) are in
the form with their values as defaults, beside the missing ones, so the user
confirms or corrects them and fills the rest in one answer.
"""

from __future__ import annotations

from typing import Any, Literal

import anyio.to_thread
from mcp.server.mcpserver import Context, Elicit
from pydantic import BaseModel, Field, create_model

from remember.errors import FieldError, RememberError
from remember.mcp.state import member_of, services_of
from remember.templates import FieldDef, ResolvedTemplate

_SIMPLE = {"string": str, "text": str, "number": float, "integer": int, "boolean": bool}
_DATES = {"date": "a date, YYYY-MM-DD", "datetime": "a date and time, YYYY-MM-DDTHH:MM"}


async def missing_fields(
    ctx: Context[Any, Any],
    template_id: str | None = None,
    content: str | dict[str, Any] | None = None,
    structured_content: dict[str, Any] | None = None,
    space: str | None = None,
) -> Elicit[BaseModel] | None:
    """The question to ask for the missing required fields, or None when there is none to ask (nor when the
    memory could not be stored there: the caller only reads that space, or the template is not of it).

    Whether there can be a question is decided on the event loop (a memory without a template, the
    most common create, waits for no thread); the fields are read and checked in a worker thread.
    """
    fields = structured_content if structured_content is not None else content
    text = content if isinstance(content, str) else None
    if template_id is None or not (isinstance(fields, dict) or text) or not _client_can_answer(ctx):
        return None
    return await anyio.to_thread.run_sync(lambda: _question(ctx, template_id, text, fields, structured_content, space))


def _question(
    ctx: Context[Any, Any],
    template_id: str,
    text: str | None,
    fields: str | dict[str, Any] | None,
    structured_content: dict[str, Any] | None,
    space: str | None,
) -> Elicit[BaseModel] | None:
    services = services_of(ctx)
    try:
        caller = services.spaces.writing_with(member_of(ctx), space, template_id)  # where the memory would go
        read = services.suggestions.prefill(caller, template_id, text).values if text else {}
        given = {**read, **(structured_content or {})} if text else dict(fields) if isinstance(fields, dict) else {}
        resolved, result = services.templates.validate(caller, template_id, given)
    except RememberError:
        return None  # the tool body reports it
    missing = _askable_missing(resolved, list(result.errors))
    if not missing:
        return None
    shown = [f for f in resolved.fields if f.name in read and f.name not in (structured_content or {}) and _askable(f)]
    message = f"To remember this as a {resolved.name}, please fill in: {', '.join(f.name for f in missing)}."
    if shown:
        message += f" Read from what you said: {', '.join(f.name for f in shown)} (change them if they are wrong)."
    return Elicit(message, _form([*shown, *missing], {f.name: read[f.name] for f in shown}))


def _client_can_answer(ctx: Context[Any, Any]) -> bool:
    capabilities = ctx.client_capabilities
    return capabilities is not None and capabilities.elicitation is not None


def _askable_missing(resolved: ResolvedTemplate, errors: list[FieldError]) -> list[FieldDef]:
    """The missing top-level fields, when they are the only problems and all can be asked in a form."""
    if not errors or any(e.code != "required" or "." in e.field or "[" in e.field for e in errors):
        return []
    fields = [resolved.field(e.field) for e in errors]
    if not all(f is not None and _askable(f) for f in fields):
        return []
    return [f for f in fields if f is not None]


def _askable(field: FieldDef) -> bool:
    return field.type in _SIMPLE or field.type in _DATES or field.type == "enum"


def _form(fields: list[FieldDef], defaults: dict[str, Any] | None = None) -> type[BaseModel]:
    known = defaults or {}
    specs: dict[str, Any] = {
        f.name: (_python_type(f), Field(known[f.name], description=_describe(f)) if f.name in known else
                 Field(description=_describe(f)))
        for f in fields
    }  # fmt: skip
    model: type[BaseModel] = create_model("MissingFields", **specs)
    return model


def _python_type(field: FieldDef) -> Any:
    if field.type == "enum":
        return Literal[tuple(field.options)]
    return _SIMPLE.get(field.type, str)


def _describe(field: FieldDef) -> str:
    text = field.description or field.name.replace("_", " ")
    if field.type in _DATES:
        text += f" ({_DATES[field.type]})"
    return text
