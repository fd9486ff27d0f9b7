"""The built-in template library: JSON files shipped in ``library/``, read once.

Built-ins have ids ``builtin:<name>``, are ``is_default`` (read-only: users copy
them to customise) and may inherit from one another.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources

from remember.templates.definition import TemplateDefinition, parse_template
from remember.templates.inherit import Lookup, lookup_from

BUILTIN_PREFIX = "builtin:"


@cache
def builtin_templates() -> tuple[TemplateDefinition, ...]:
    """The fifteen built-in templates, checked, in file-name order."""
    folder = resources.files("remember.templates") / "library"
    files = sorted((entry for entry in folder.iterdir() if entry.name.endswith(".json")), key=lambda e: e.name)
    return tuple(parse_template(json.loads(entry.read_text(encoding="utf-8"))) for entry in files)


@cache
def builtin_lookup() -> Lookup:
    """A lookup over the built-ins, for resolving them (and templates derived from them)."""
    return lookup_from(builtin_templates())


def builtin_template(template_id: str) -> TemplateDefinition | None:
    """The built-in with this id (``builtin:book_review``), or None."""
    return builtin_lookup()(template_id)
