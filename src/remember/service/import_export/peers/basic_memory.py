"""A basic-memory folder (and remember's own Markdown export): one Markdown file per note.

A note is YAML frontmatter between ``---`` fences, then Markdown. basic-memory's
fields are ``title`` (default: the file name; in remember's own notes, none), ``type``, ``tags`` (a list or a
comma-separated text) and ``permalink`` (the note's key); any other field is kept
in the memory's structured content. The fields remember writes in its own export
(``weight``, ``trust``, ``references``, ``happened``, ``valid_from``, ``valid_until``, ``context``,
``location``, ``template_id``, ``structured_content``) are read back as they were written, and so is its
bookkeeping (``remember_id``, ``created``, ``updated``, ``version``: ``records.Origin``); in
another note those four are reported. The templates of remember's export come from their own
files (``template_files.py``).

Links: a line ``- relation_type [[Target]] (context)`` is a relation of that type;
any other ``[[Target]]`` (or ``[[Target|label]]``) is a ``links_to``. A target names a
note by its title or its permalink. The relations section remember's export writes
after a memory's text (``markdown.RELATIONS``) gives links and is not part of the text.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

from remember.clock import parse_moment
from remember.errors import excerpt
from remember.service.checks import MAX_ID
from remember.service.drafts import MemoryDraft
from remember.service.import_export.peers import template_files
from remember.service.import_export.peers.markdown import RELATIONS, unescape_text
from remember.service.import_export.peers.records import ImportedLink, ImportedMemory, Origin, Parsed
from remember.service.import_export.peers.sources import MAX_FILE_BYTES, moment, plain_tags, plain_yaml, refused

FRONTMATTER = re.compile(r"\A---[ \t]*\r?\n(.*?)\r?\n---[ \t]*(?:\r?\n|\Z)", re.DOTALL)
RELATION = re.compile(
    r"^[ \t]*[-*][ \t]+([^\[\]\n]+?)[ \t]+\[\[([^\]|\n]+)(?:\|[^\]\n]*)?\]\][ \t]*(?:\(([^)\n]*)\))?[ \t]*$", re.M
)
WIKILINK = re.compile(r"\[\[([^\]|\n]+)(?:\|[^\]\n]*)?\]\]")
OWN = {"weight", "trust", "references", "context", "location", "template_id", "structured_content"}
BOOKKEEPING = ("remember_id", "created", "updated", "version", "template_version")
MAX_FILES = 1_000_000


def read(folder: Path) -> Parsed:
    if not folder.exists():
        raise refused(folder, "there is no such folder.")
    if not folder.is_dir():
        raise refused(folder, "it is not a folder (basic-memory notes are a folder of Markdown files).")
    parsed = Parsed(templates=template_files.read(folder))
    for path in _notes(folder):
        where = str(path.relative_to(folder))
        try:
            _note(parsed, path, where)
        except (ValueError, OSError) as exc:
            parsed.skipped.append((where, str(exc)))
    return parsed


def _notes(folder: Path) -> Iterator[Path]:
    """The Markdown files, in name order, hidden folders (.git, .obsidian) left out."""
    found = 0
    for path in sorted(folder.rglob("*.md")):
        if any(part.startswith(".") for part in path.relative_to(folder).parts):
            continue
        found += 1
        if found > MAX_FILES:
            raise refused(folder, f"it holds more than {MAX_FILES} notes; import it in parts.")
        yield path


def _note(parsed: Parsed, path: Path, where: str) -> None:
    if path.stat().st_size > MAX_FILE_BYTES:
        raise ValueError("larger than the size limit")
    try:
        text = path.read_bytes().decode("utf-8")  # as written: no newline translation
    except UnicodeDecodeError as exc:
        raise ValueError(f"not UTF-8 text (byte {exc.start})") from exc
    fields, body = frontmatter(text)
    own = "remember_id" in fields  # a note of remember's own export
    given = fields.pop("title", None)
    title = str(given) if given else None if own else path.stem  # remember leaves out a title it has not
    key = str(fields.pop("permalink", None) or Path(where).with_suffix("").as_posix())
    origin = _origin(parsed, where, fields) if own else None
    text_part = unescape_text(body.partition(f"\n{RELATIONS}\n")[0]) if own else body
    draft = _draft(parsed, where, title, fields, text_part.strip() or title or path.stem)
    parsed.memories.append(ImportedMemory(key, where, draft, origin))
    parsed.links += links(key, body, where)


def _origin(parsed: Parsed, where: str, fields: dict[str, Any]) -> Origin:
    """The bookkeeping of remember's own note; a value that cannot be read is reported by its name."""
    kept: dict[str, Any] = {}
    for key, reader in ORIGIN.items():
        value = fields.pop(key, None)
        if value is None:
            continue
        try:
            kept[key] = reader(value)
        except (ValueError, TypeError):
            parsed.unmapped.append((where, f"{key} (unreadable)"))
    fields.pop("created_by", None)  # who stored it where it was exported: the import names its own author
    replaced, successor = fields.pop("supersedes", None), fields.pop("superseded_by", None)
    keys = tuple(str(k) for k in replaced) if isinstance(replaced, list) else ()
    if replaced is not None and not isinstance(replaced, list):
        parsed.unmapped.append((where, "supersedes (unreadable)"))
    return Origin(
        kept.get("remember_id"), kept.get("created"), kept.get("updated"), kept.get("version"), keys,
        str(successor) if isinstance(successor, str) else None,
    )  # fmt: skip


def _memory_id(value: Any) -> str:
    if not isinstance(value, str) or not 0 < len(value) <= MAX_ID or not value.isprintable() or value != value.strip():
        raise ValueError("not a memory id")
    return value


def _version(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError("not a version")
    return value


def _moment(value: Any) -> datetime:
    if not isinstance(value, str):
        raise ValueError("not a time")
    return parse_moment(value)


ORIGIN: dict[str, Callable[[Any], Any]] = {
    "remember_id": _memory_id,
    "created": _moment,
    "updated": _moment,
    "version": _version,
}


def frontmatter(text: str) -> tuple[dict[str, Any], str]:
    """The frontmatter fields (plain JSON values) and the Markdown after them."""
    import yaml

    match = FRONTMATTER.match(text)
    if match is None:
        return {}, text
    try:
        fields = yaml.safe_load(match.group(1)) or {}
    except yaml.YAMLError as exc:
        raise ValueError(f"its frontmatter is not YAML ({' '.join(str(exc).split())[:200]})") from exc
    if not isinstance(fields, dict):
        raise ValueError(f"its frontmatter is not a mapping of fields but {excerpt(fields)}")
    return {str(k): plain_yaml(v) for k, v in fields.items()}, text[match.end() :]


def _draft(parsed: Parsed, where: str, title: str | None, fields: dict[str, Any], content: str) -> MemoryDraft:
    kind = fields.pop("type", None)
    tags = plain_tags(fields.pop("tags", None))
    own = {k: fields.pop(k) for k in sorted(OWN & set(fields))}
    context = dict(own.pop("context", None) or {})
    when = fields.pop("happened", None) or fields.pop("date", None)
    if when is not None:
        context["timestamp"] = moment(when)
    given = [fields.pop(k, None) for k in ("valid_from", "valid_until")]
    since, until = (moment(v) if v is not None else None for v in given)
    parsed.unmapped += [(where, k) for k in BOOKKEEPING if fields.pop(k, None) is not None]
    structured = own.pop("structured_content", None)
    if fields:  # basic-memory's custom fields (its entity_metadata)
        structured = {**fields, **(structured or {})}
    return MemoryDraft(
        content=content,
        title=title,
        type=str(kind) if kind is not None else None,
        tags=tags,
        context=context or None,
        structured_content=structured or None,
        valid_from=since,
        valid_until=until,
        **own,
    )


def links(title: str, body: str, where: str) -> list[ImportedLink]:
    found: list[ImportedLink] = []
    typed: set[tuple[int, int]] = set()
    for m in RELATION.finditer(body):
        kind, target, note = m.group(1).strip(), m.group(2).strip(), m.group(3)
        found.append(ImportedLink(title, target, kind, note.strip() if note else None, where))
        typed.add(m.span(2))
    for m in WIKILINK.finditer(body):
        if not any(start <= m.start(1) < end for start, end in typed):
            found.append(ImportedLink(title, m.group(1).strip(), "links_to", None, where))
    return found
