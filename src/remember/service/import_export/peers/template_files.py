"""The user's own templates in remember's Markdown export: one YAML file each, in ``remember-templates/``.

A file is the template's definition document, its id included: what `remember template create -f`
reads, and what `remember import --from basic-memory` reads back so that the notes made with the
template find it under the same id. Only YAML files in that folder are read: a basic-memory or
Obsidian folder without it reads as before. A file that is not a definition refuses the whole
import (its notes would otherwise be skipped for want of their template).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from remember.errors import excerpt
from remember.models import TemplateRecord
from remember.service.import_export.peers.markdown import slug, write_new, yaml_text
from remember.service.import_export.peers.records import ImportedTemplate
from remember.service.import_export.peers.sources import plain_yaml, refused
from remember.service.templates import MAX_TEMPLATES

FOLDER = "remember-templates"
MAX_TEMPLATE_BYTES = 1 << 20


def file_name(record: TemplateRecord) -> str:
    """``<name-slug>-<hash of the id>.yaml``: readable, and one file per id whatever the ids hold."""
    return f"{slug(record.name)}-{hashlib.sha256(record.id.encode()).hexdigest()[:8]}.yaml"


def write(folder: Path, records: Iterable[TemplateRecord]) -> int:
    """One file per template under ``folder/remember-templates`` (made when there is one); how many."""
    written = 0
    for record in records:
        if not written:
            (folder / FOLDER).mkdir(exist_ok=True)
        write_new(folder / FOLDER / file_name(record), yaml_text(_readable(record)), written)
        written += 1
    return written


def _readable(record: TemplateRecord) -> dict[str, Any]:
    """The definition with what names it first (the store keeps its keys in any order)."""
    first = {k: record.definition[k] for k in ("id", "name", "version", "description") if k in record.definition}
    return {**first, **record.definition}


def read(folder: Path) -> list[ImportedTemplate]:
    """The template files of an export folder, in name order (none without the folder)."""
    where = folder / FOLDER
    if not where.is_dir():
        return []
    paths = sorted(p for p in where.iterdir() if p.suffix.lower() in (".yaml", ".yml"))
    if len(paths) > MAX_TEMPLATES:
        raise refused(where, f"it holds more than {MAX_TEMPLATES} template files, more than a user may have.")
    return [ImportedTemplate(p.relative_to(folder).as_posix(), _definition(p)) for p in paths]


def _definition(path: Path) -> dict[str, Any]:
    import yaml

    if not path.is_file() or path.stat().st_size > MAX_TEMPLATE_BYTES:
        raise refused(path, f"a template file is a file of at most {MAX_TEMPLATE_BYTES >> 20} MiB.")
    try:
        raw = yaml.safe_load(path.read_bytes().decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise refused(path, f"it is not UTF-8 text (byte {exc.start}).") from exc
    except yaml.YAMLError as exc:
        raise refused(path, f"it is not YAML ({' '.join(str(exc).split())[:200]}).") from exc
    if not isinstance(raw, dict) or not isinstance(raw.get("id"), str) or not raw["id"].strip():
        raise refused(path, f"it is not a template definition with an id, but {excerpt(raw)}.")
    return {str(k): plain_yaml(v) for k, v in raw.items()}
