"""Writing memories as Markdown: one file per memory, its fields as YAML frontmatter.

Readable in any editor and in Obsidian (``tags`` and ``title`` are the fields it
shows), and shaped like a basic-memory note (``title``, ``type``, ``tags``,
``permalink``), so that ``remember import --from basic-memory DIR`` reads it back.
A memory's relationships follow its text as basic-memory relations, in a section of
their own (``RELATIONS``): ``- works_with [[<the other note's permalink>]]``, links
that Obsidian follows; reading the note back relates the memories again and leaves
the section out of the text.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from functools import cache
from pathlib import Path
from typing import Any

from remember.clock import to_text
from remember.errors import ValidationFailed
from remember.models import Memory

_UNSAFE = re.compile(r"[^\w\- ]+")


def slug(text: str) -> str:
    """A file-name-safe form of ``text``: words and dashes, at most 60 characters."""
    words = _UNSAFE.sub(" ", text).split()
    return "-".join(words)[:60].strip("-").lower() or "memory"


def file_name(memory: Memory) -> str:
    return f"{slug(memory.title or memory.content[:60])}-{memory.id[:8]}.md"


RELATIONS = "## Relations (remember)"
# The heading's line in a memory's own text, with any backslashes before it: written with one more, read with one
# less, so that the text never holds the line that starts the section and reads back as it was.
_HEADING_LINE = re.compile(r"^(\\*)" + re.escape(RELATIONS) + r"$", re.M)


def relations_section(relations: Iterable[tuple[str, str]]) -> str:
    """The section that lists (relationship type, the other note's permalink) pairs; empty for none. A type is one
    line (a stored one with a line break has it folded into a space)."""
    lines = [f"- {' '.join(kind.split())} [[{permalink}]]" for kind, permalink in relations]
    return f"\n{RELATIONS}\n\n" + "\n".join(lines) + "\n" if lines else ""


def escape_text(text: str) -> str:
    """A memory's text as the note holds it: a line that is the section's heading gets a backslash before it."""
    return _HEADING_LINE.sub(lambda m: "\\" + m.group(0), text)


def unescape_text(text: str) -> str:
    """The memory's text from a note of remember's export (``escape_text`` undone)."""
    return _HEADING_LINE.sub(lambda m: m.group(0)[1:] if m.group(1) else m.group(0), text)


def note(memory: Memory, relations: Iterable[tuple[str, str]] = (), permalinks: Mapping[str, str] | None = None) -> str:
    """The Markdown file of ``memory``: frontmatter, then its text, then its relations. What it replaced and
    what replaced it are named by the permalinks of their notes (``permalinks``: id -> permalink), for those
    in the export."""
    named = permalinks or {}
    replaced = [named[i] for i in memory.supersedes if i in named]
    fields: dict[str, Any] = {
        "title": memory.title,  # none for an untitled memory: its file name shows instead
        "type": memory.type,
        "tags": list(memory.tags),
        "permalink": file_name(memory).removesuffix(".md"),
        "weight": memory.weight,
        "trust": memory.trust,
        "references": list(memory.references) or None,
        "happened": to_text(memory.occurred_at),
        # when it is true, where that says more than when it happened (docs/memories.md#truth-over-time)
        "valid_from": to_text(memory.starts) if memory.starts != memory.occurred_at else None,
        "valid_until": to_text(memory.valid_until) if memory.valid_until is not None else None,
        "supersedes": replaced or None,
        "superseded_by": named.get(memory.superseded_by) if memory.superseded_by else None,
        "context": dict(memory.context) or None,
        "location": dict(memory.location) if memory.location else None,
        "template_id": memory.template_id,
        "structured_content": memory.as_dict()["structured_content"],
        "remember_id": memory.id,
        "created": to_text(memory.created_at),
        "updated": to_text(memory.updated_at),
        "version": memory.version,
        "created_by": memory.created_by,  # in a shared space, the member who stored it
    }
    head = yaml_text({k: v for k, v in fields.items() if v is not None})
    return f"---\n{head}---\n\n{escape_text(memory.content)}\n{relations_section(relations)}"


def yaml_text(fields: dict[str, Any]) -> str:
    """``fields`` as YAML, in their order, every text read back as it was written."""
    import yaml

    return str(yaml.dump(fields, Dumper=_dumper(), sort_keys=False, allow_unicode=True))


@cache
def _dumper() -> type:
    """YAML's safe dumper, writing a text that holds anything but printable characters double-quoted
    with escapes: plain and single-quoted YAML fold line breaks such as U+0085 into spaces."""
    import yaml

    class Dumper(yaml.SafeDumper):
        pass

    def text(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=None if value.isprintable() else '"')

    Dumper.add_representer(str, text)
    return Dumper


def write_folder(
    folder: Path,
    memories: Iterable[Memory],
    relations: Callable[[Memory], Iterable[tuple[str, str]]],
    permalinks: Mapping[str, str] | None = None,
) -> int:
    """Write one file per memory into ``folder`` (made if missing; an existing file is refused),
    with the relations ``relations`` gives each and its successions named by ``permalinks``."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ValidationFailed.single(
            "folder", "unwritable", f"Cannot make the folder {folder}: {exc.strerror}."
        ) from exc
    written = 0
    for memory in memories:
        write_new(folder / file_name(memory), note(memory, relations(memory), permalinks), written)
        written += 1
    return written


def write_new(path: Path, text: str, written: int) -> None:
    """Write a file of the export that must not exist yet (``written``: how many were written before it)."""
    try:
        with path.open("x", encoding="utf-8", newline="") as handle:
            handle.write(text)
    except FileExistsError as exc:
        raise ValidationFailed.single(
            "folder", "exists", f"{path} exists already; export into an empty folder ({written} files written)."
        ) from exc
