"""Structured text typed by people: a YAML or JSON document (JSON is YAML), read safely.

The command line reads template files with it, the dashboard the definitions and sample
content typed in its editor. Only plain data is read (``yaml.safe_load``'s types), and
anchors/aliases are refused: they let a few bytes stand for an enormous tree.
"""

from __future__ import annotations

import json
from typing import Any

from remember.errors import ValidationFailed

MAX_DOCUMENT = 1_000_000  # characters


def parse_document(text: str, *, field: str, what: str, limit: int = MAX_DOCUMENT) -> Any:
    """The value of ``text``; ValidationFailed at ``field`` saying where it breaks."""
    if len(text) > limit:
        raise ValidationFailed.single(field, "too_large", f"{what} is longer than {limit} characters.")
    import yaml  # only documents need it: not loaded when the server starts

    class NoAliases(yaml.SafeLoader):
        def compose_node(self, parent: Any, index: Any) -> Any:
            if self.check_event(yaml.AliasEvent):
                mark = self.peek_event().start_mark  # type: ignore[no-untyped-call]
                raise yaml.MarkedYAMLError("while reading", None, "aliases (*name) are not accepted", mark)
            return super().compose_node(parent, index)

    try:
        return yaml.load(text, Loader=NoAliases)  # a SafeLoader: plain data only
    except yaml.YAMLError as exc:
        raise ValidationFailed.single(field, "yaml", f"{what} is not valid YAML or JSON: {exc}") from exc
    except RecursionError as exc:
        raise ValidationFailed.single(field, "depth", f"{what} is nested too deeply.") from exc


FORMATS = ("yaml", "json")


def write_document(value: Any, form: str) -> str:
    """``value`` as a person would type it: block YAML in the order of its keys, or JSON indented by two."""
    if form == "json":
        return json.dumps(value, indent=2, ensure_ascii=False, default=str)
    import yaml

    text: str = yaml.safe_dump(value, sort_keys=False, allow_unicode=True, default_flow_style=False, width=100)
    return text
