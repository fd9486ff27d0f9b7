"""Printing results: JSON for scripts, short readable text for people."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from remember.errors import RememberError
from remember.models import Memory, Page, PreferenceChange
from remember.nouns import counted, plural
from remember.space_keys import is_space_key

if TYPE_CHECKING:
    from remember.service import Deletion
    from remember.service.conflicts import Hint
    from remember.service.dedup import Duplicate
    from remember.service.identity import Outcome
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


def public(m: Memory) -> dict[str, Any]:
    """The memory's JSON form, naming its space (the key) when it is a shared space's, as the MCP tools do."""
    data = m.as_dict()
    return {**data, "space": m.user_id} if is_space_key(m.user_id) else data


def space_names(name_of: Callable[[str], str | None], memories: Iterable[Memory]) -> dict[str, str]:
    """The name of each shared space the ``memories`` are in, by key (the key itself if it has no name)."""
    return {key: name_of(key) or key for key in {m.user_id for m in memories} if is_space_key(key)}


def memory(
    m: Memory,
    *,
    as_json: bool,
    space: str | None = None,
    suggestion: Suggestion | None = None,
    applied: bool = False,
    duplicate: Duplicate | None = None,
    same: Outcome | None = None,
    hints: Sequence[Hint] = (),
) -> None:
    """A memory just written: its fields and text, and what was found about it (a duplicate, the memory about
    the same thing, a template)."""
    if as_json:
        data = public(m)
        if duplicate is not None:
            data["duplicate"] = duplicate.as_dict()
        if same is not None:
            data["identity"] = same.as_dict()
        if hints:
            data["conflicts"] = [h.as_dict() for h in hints]
        if suggestion is not None:
            data["template_suggestion"] = {**suggestion.as_dict(), "applied": applied}
        emit(data)
        return
    header(m, space)
    if duplicate is not None:
        print(f"{'duplicate:':12}{_duplicate(duplicate)}")
    if same is not None:
        print(f"{'same thing:':12}{_same(same)}")
    for hint in hints:
        print(f"{'may update:':12}{_hint(hint)}")
    print()
    print(m.content)
    if suggestion is not None:
        _suggestion(m, suggestion, applied)


def header(m: Memory, space: str | None = None) -> None:
    """The memory's fields, a line each (those it has); ``space``: the name of the shared space it is in."""
    data = m.as_dict()
    for key in ("id", "title", "type", "tags", "weight", "trust", "template_id", "created_at", "updated_at",
                "version", "deleted_at"):  # fmt: skip
        value = data[key]
        if value not in (None, [], ""):
            print(f"{key.replace('_id', '') + ':':12}{_plain(value)}")
    if is_space_key(m.user_id):
        print(f"{'space:':12}{space or m.user_id} ({m.user_id})")
        if m.created_by:
            print(f"{'stored by:':12}{m.created_by}")
    print(f"{'happened:':12}{data['context']['timestamp']}")
    for label, value in validity_lines(data):
        print(f"{label:12}{value}")


def validity_lines(data: dict[str, Any]) -> list[tuple[str, str]]:
    """When a memory is true, where that says more than when it happened; what it replaced or was replaced by."""
    lines: list[tuple[str, str]] = []
    if data["valid_from"] != data["context"]["timestamp"]:
        lines.append(("true from:", data["valid_from"]))
    if data["valid_until"]:
        lines.append(("ended:", data["valid_until"]))
    if data["superseded_by"]:
        lines.append(("successor:", data["superseded_by"]))
    if data["supersedes"]:
        lines.append(("replaces:", ", ".join(data["supersedes"])))
    return lines


def _hint(h: Hint) -> str:
    """A memory the new one may update: ``0b6f1a2c (0.91): amount $1200 → $1350``."""
    differs = "; ".join(f"{d.kind} {', '.join(d.before)} → {', '.join(d.after)}" for d in h.differences)
    return f"{h.memory_id[:8]} ({h.similarity:.2f}): {differs} (remember update, or add --supersedes)"


def _same(o: Outcome) -> str:
    """What a create did with the memory about the same thing: ``updated 0b6f1a2c: company: Google → Meta``."""
    changed = "; ".join(f"{c.field}: {_plain(c.before)} → {_plain(c.after)}" for c in o.changes) or "nothing new"
    return f"{o.action} {o.memory_id[:8]} (same {', '.join(o.fields)}): {changed}"


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
        print(f"{counted(len(m.template_validation_errors), 'field')} still to fill; see `remember get {m.id} --json`.")


# The date a listing of memories shows: the one it is ordered by (created unless sorted otherwise; what
# --since and --until filter), under its name.
DATES: dict[str, tuple[str, str]] = {
    "created_at": ("CREATED", "created_at"),
    "weight": ("CREATED", "created_at"),
    "updated_at": ("UPDATED", "updated_at"),
    "occurred_at": ("HAPPENED", "occurred_at"),
}


def page(p: Page, *, as_json: bool, sort_by: str = "created_at", spaces: Mapping[str, str] | None = None) -> None:
    """A page of memories: a table with a header (the date column is the one the page is ordered by); a SPACE
    column when some are of a shared space (``spaces``: their names by key)."""
    if as_json:
        emit({"memories": [public(m) for m in p.items], "total": p.total, "limit": p.limit, "offset": p.offset})
        return
    title, column = DATES[sort_by]
    weight = sort_by == "weight"
    names = spaces or {}
    rows = [
        [m.id, getattr(m, column).date().isoformat(), *([f"{m.weight:g}"] if weight else []),
         *([space_of(m, names)] if names else []), m.type, _about(m)]
        for m in p.items
    ]  # fmt: skip
    if rows:
        table(["ID", title, *(["WEIGHT"] if weight else []), *(["SPACE"] if names else []), "TYPE", "TITLE OR TEXT"],
              rows)  # fmt: skip
    footer(p.offset, len(p.items), p.total, "memory")


def space_of(m: Memory, names: Mapping[str, str]) -> str:
    """The name of the space ``m`` is in, as a listing shows it (``personal`` for one's own)."""
    return names.get(m.user_id, m.user_id) if is_space_key(m.user_id) else "personal"


def footer(offset: int, shown: int, total: int, noun: str) -> None:
    """Which of how many a page showed, and how to see the next: ``-- 1-20 of 45 memories; next: --offset 20``."""
    if not total:
        print(f"No {plural(noun)}.")
    elif not shown:
        print(f"-- none of {counted(total, noun)} at --offset {offset}; the last starts at --offset {total - 1}")
    else:
        more = f"; next: --offset {offset + shown}" if offset + shown < total else ""
        print(f"-- {offset + 1}-{offset + shown} of {counted(total, noun)}{more}")


def _about(m: Memory) -> str:
    """The memory's title (or text) on one line, cut short; its tags; whether it is in the trash."""
    text = " ".join((m.title or m.content).split())
    snippet = text if len(text) <= SNIPPET else text[: SNIPPET - 1] + "…"
    tags = f"  [{', '.join(m.tags)}]" if m.tags else ""
    return f"{snippet}{tags}" + ("  (deleted)" if m.is_deleted else "")


def table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> None:
    """Rows under a header, each column as wide as its widest cell (the last one as long as it is)."""
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header) - 1)]
    for row in [header, *rows]:
        cells = [f"{cell:<{width}}" for cell, width in zip(row, widths, strict=False)]
        print("  ".join([*cells, row[-1]]).rstrip())


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
        print(f"{p['id']}  {p['name']}: covers {counted(p['covers'], 'memory')}; fields: {fields}")
        for example in p["examples"]:
            print(f"    e.g. {example[:SNIPPET]}")
    for a in additions:
        print(f"{a['template_name']} ({a['template_id']}): {a['memories']} of {counted(a['of'], 'memory')} state "
              f"{a['field']['name']!r} (e.g. {a['example']}); add it with remember template update")  # fmt: skip
    if not proposals and not additions:
        print(f"Nothing to propose from {counted(found.memories_read, 'memory')}.")
    elif proposals:
        print("Accept one: remember template infer --accept ID [--apply]")


def accepted(done: Accepted, *, as_json: bool) -> None:
    if as_json:
        emit({"created_template_id": done.template_id, "applied": done.applied, "skipped": done.skipped})
        return
    print(f"Created {done.template_id}; applied to {counted(len(done.applied), 'memory')}.")
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
