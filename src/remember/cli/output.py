"""Printing results: JSON for scripts, short readable text for people."""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from remember.errors import RememberError
from remember.models import Memory, Page, PreferenceChange

if TYPE_CHECKING:
    from remember.service import Deletion
    from remember.service.dedup import Duplicate
    from remember.service.inference import Accepted, Inference
    from remember.templates.suggest import Suggestion

SNIPPET = 70


def progress(line: str) -> None:
    """Redraw a progress line on stderr, only when it is a terminal (a log file gets no frames)."""
    if sys.stderr.isatty():
        print(f"\r{line}", end="", file=sys.stderr, flush=True)


def progress_done() -> None:
    """End a progress line (on a terminal)."""
    if sys.stderr.isatty():
        print(file=sys.stderr)


def emit(value: Any) -> None:
    print(json.dumps(value, ensure_ascii=False, indent=2))


def memory(
    m: Memory,
    *,
    as_json: bool,
    suggestion: Suggestion | None = None,
    applied: bool = False,
    duplicate: Duplicate | None = None,
) -> None:
    """A memory just written: its fields and text, and what was found about it (a duplicate, a template)."""
    if as_json:
        data = m.as_dict()
        if duplicate is not None:
            data["duplicate"] = duplicate.as_dict()
        if suggestion is not None:
            data["template_suggestion"] = {**suggestion.as_dict(), "applied": applied}
        emit(data)
        return
    header(m)
    if duplicate is not None:
        print(f"{'duplicate:':12}{_duplicate(duplicate)}")
    print()
    print(m.content)
    if suggestion is not None:
        _suggestion(m, suggestion, applied)


def header(m: Memory) -> None:
    """The memory's fields, a line each (those it has)."""
    data = m.as_dict()
    for key in ("id", "title", "type", "tags", "weight", "trust", "template_id", "created_at", "updated_at",
                "version", "deleted_at"):  # fmt: skip
        value = data[key]
        if value not in (None, [], ""):
            print(f"{key.replace('_id', '') + ':':12}{_plain(value)}")
    print(f"{'happened:':12}{data['context']['timestamp']}")


def not_applied(m: Memory, s: Suggestion, problem: RememberError) -> None:
    """Why the suggested template was not applied to a memory just stored (it is kept as free text)."""
    fields = " ".join(f"--field {e.field}=..." for e in getattr(problem, "errors", ()) if e.code == "required")
    print(f"Stored as free text; {s.name} was not applied: {problem}", file=sys.stderr)
    print(f"Apply it with the missing fields: remember template apply {s.template_id} {m.id} {fields}".rstrip(),
          file=sys.stderr)  # fmt: skip


def _suggestion(m: Memory, s: Suggestion, applied: bool) -> None:
    """The best template for a memory just stored, its fields, and how to apply it."""
    verb = "Applied" if applied else "Suggested"
    print(f"\n{verb} template: {s.name} ({s.template_id}), confidence {s.confidence:.2f}; {s.reason}")
    fields = m.structured_content if applied else s.prefill
    for name, value in (fields or {}).items():
        print(f"  {name + ':':24}{_plain(value)}")
    if not applied:
        print(f"Apply it: remember template apply {s.template_id} {m.id}  (or add with --accept-suggestion)")
    elif m.template_validation_errors:
        print(f"{len(m.template_validation_errors)} field(s) still to fill; see `remember get {m.id} --json`.")


def page(p: Page, *, as_json: bool) -> None:
    if as_json:
        emit({"memories": [m.as_dict() for m in p.items], "total": p.total, "limit": p.limit, "offset": p.offset})
        return
    for m in p.items:
        text = (m.title or m.content).replace("\n", " ")
        snippet = text if len(text) <= SNIPPET else text[: SNIPPET - 1] + "…"
        tags = f"  [{', '.join(m.tags)}]" if m.tags else ""
        deleted = "  (deleted)" if m.is_deleted else ""
        print(f"{m.id}  {m.created_at.date().isoformat()}  {m.type:10} {snippet}{tags}{deleted}")
    shown = f"{p.offset + 1}-{p.offset + len(p.items)}" if p.items else "none"
    print(f"-- {shown} of {p.total}" + (f"; next: --offset {p.offset + len(p.items)}" if p.has_more else ""))


def deletion(d: Deletion, *, as_json: bool) -> None:
    if as_json:
        emit({"memory_id": d.memory_id, "permanent": d.permanent})
    elif d.permanent:
        print(f"Erased {d.memory_id} for good.")
    else:
        print(f"Deleted {d.memory_id}; `remember restore {d.memory_id}` brings it back.")


def preferences(values: Mapping[str, Mapping[str, Any]], *, as_json: bool) -> None:
    if as_json:
        emit(values)
        return
    for category, items in values.items():
        for name, value in items.items():
            print(f"{category}.{name} = {json.dumps(value)}")


def preference_change(change: PreferenceChange, *, as_json: bool) -> None:
    if as_json:
        emit(change.as_dict())
    else:
        print(f"{change.path}: {json.dumps(change.old_value)} -> {json.dumps(change.new_value)}")


def _plain(value: Any) -> str:
    if isinstance(value, list):
        return ", ".join(str(v) for v in value)
    return str(value)


def inference(found: Inference, *, as_json: bool) -> None:
    """Proposed templates and fields, as `remember template infer` shows them."""
    proposals = [p.as_dict() for p in found.proposals]
    additions = [a.__dict__ for a in found.additions]
    if as_json:
        emit({"proposals": proposals, "field_additions": additions, "memories_read": found.memories_read})
        return
    for p in proposals:
        fields = ", ".join(f"{f['name']} ({f['type']})" for f in p["fields"]) or "summary only"
        print(f"{p['id']}  {p['name']}: covers {p['covers']} memories; fields: {fields}")
        for example in p["examples"]:
            print(f"    e.g. {example[:SNIPPET]}")
    for a in additions:
        print(f"{a['template_name']} ({a['template_id']}): {a['memories']} of {a['of']} memories state "
              f"{a['field']['name']!r} (e.g. {a['example']}); add it with remember template update")  # fmt: skip
    if not proposals and not additions:
        print(f"Nothing to propose from {found.memories_read} memories.")
    elif proposals:
        print("Accept one: remember template infer --accept ID [--apply]")


def accepted(done: Accepted, *, as_json: bool) -> None:
    if as_json:
        emit({"created_template_id": done.template_id, "applied": done.applied, "skipped": done.skipped})
        return
    print(f"Created {done.template_id}; applied to {len(done.applied)} memories.")
    for skip in done.skipped:
        problems = "; ".join(e["message"] for e in skip["errors"])
        print(f"  {skip['memory_id']} left as it was: {problems}", file=sys.stderr)


def _duplicate(d: Duplicate) -> str:
    what = {"repeat": "the same call again", "same": "the same text", "similar": f"similar ({d.similarity:.2f})"}
    done = {
        "stored": "stored beside it",
        "skipped": "not stored again",
        "merged": "merged into it",
    }
    return f"{what[d.match]} as memory {d.memory_id}: {done[d.action]}"
