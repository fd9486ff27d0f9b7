"""Memory templates: typed field schemas, their validation, inheritance and library.

A pure package: no database, no network, no MCP. The service layer reads a
definition (``parse_template``), resolves its parents through a lookup it
supplies (``resolve``), validates content (``validate_content``), exports the
JSON Schema (``to_json_schema``) and renders searchable text (``render_text``).
docs/templates.md describes the semantics.
"""

from remember.templates.changes import definition_changes
from remember.templates.definition import TemplateDefinition, parse_fields, parse_template
from remember.templates.describe import field_summary, field_takes, kind_note
from remember.templates.expr import Expr, evaluate, parse_expression, referenced_names
from remember.templates.fields import FIELD_TYPES, FieldDef, Rules
from remember.templates.inherit import (
    Lookup,
    ResolvedTemplate,
    ancestors,
    check_resolved_fields,
    lookup_from,
    merge_fields,
    resolve,
)
from remember.templates.library import BUILTIN_PREFIX, builtin_lookup, builtin_template, builtin_templates
from remember.templates.lineage import FieldOrigin, field_origins
from remember.templates.reading.attributes import version_text
from remember.templates.reading.fit import check_fields
from remember.templates.render import render_text
from remember.templates.schema import to_json_schema
from remember.templates.validation.content import ValidationResult, validate_content

__all__ = [
    "BUILTIN_PREFIX",
    "FIELD_TYPES",
    "Expr",
    "FieldDef",
    "FieldOrigin",
    "Lookup",
    "ResolvedTemplate",
    "Rules",
    "TemplateDefinition",
    "ValidationResult",
    "ancestors",
    "builtin_lookup",
    "builtin_template",
    "builtin_templates",
    "check_fields",
    "check_resolved_fields",
    "definition_changes",
    "evaluate",
    "field_origins",
    "field_summary",
    "field_takes",
    "kind_note",
    "lookup_from",
    "merge_fields",
    "parse_expression",
    "parse_fields",
    "parse_template",
    "referenced_names",
    "render_text",
    "resolve",
    "to_json_schema",
    "validate_content",
    "version_text",
]
