"""The built-ins declare the kind of every field prefill reads, and a field's name alone is read as its kind is."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from remember.templates import builtin_lookup, builtin_templates, parse_template, resolve
from remember.templates.kinds import KINDS
from remember.templates.suggest import extract, prefill
from remember.templates.suggest.counts import COUNTS
from remember.templates.suggest.datefields import ROLES, TENSES
from remember.templates.suggest.field_kinds import BY_NAME, kind_by_name
from remember.templates.suggest.flags import VERDICTS
from remember.templates.suggest.prefill import THING_NAMES
from remember.templates.suggest.readers import GOAL_NUMBERS, TEXT_READERS

from .conftest import NOW

DATA = Path(__file__).parent / "data"
# Read by the first extractors (``prefill._propose``) or apart from TEXT_READERS (``readers._text``).
FIRST = frozenset({"person", "venue", "destination", "company", "title", "rating", "money", "currency", "price_range",
                   "url"})  # fmt: skip


def test_every_builtin_field_with_a_reader_declares_its_kind():
    for definition in builtin_templates():
        for field in definition.fields:
            implied = None if field.is_computed else kind_by_name(field.name)
            assert field.kind == implied, (definition.id, field.name, field.kind, implied)


def test_every_kind_has_a_reader_and_every_name_a_kind():
    readers = {*TEXT_READERS, *COUNTS, *GOAL_NUMBERS, *ROLES, *TENSES, *VERDICTS, *THING_NAMES, *FIRST}
    assert set(KINDS) == readers
    assert set(BY_NAME.values()) <= set(KINDS)


def _without_kinds(raw: dict[str, Any]) -> dict[str, Any]:
    fields = [{k: v for k, v in f.items() if k != "kind"} for f in raw["fields"]]
    return {**raw, "fields": fields, "id": f"{raw['id']}:plain"}


def test_the_builtins_without_their_kinds_are_read_the_same_by_their_names():
    # A user's template written before kinds, with the built-ins' field names, keeps its prefill exactly.
    lines = [line for path in sorted(DATA.glob("*.jsonl")) for line in path.read_text(encoding="utf-8").splitlines()]
    texts = [json.loads(line)["text"] for line in lines if line.strip()]
    pairs = []
    for definition in builtin_templates():
        plain = parse_template(_without_kinds(definition.as_dict()))
        assert not any(f.kind for f in plain.fields)
        pairs.append((resolve(definition, builtin_lookup()), resolve(plain, builtin_lookup())))
    filled = 0
    for text in texts:
        found = extract(text, NOW.date())
        for declared, plain in pairs:
            expected = prefill(found, declared, NOW)
            assert prefill(found, plain, NOW) == expected, (declared.definition.id, text)
            filled += len(expected)
    assert filled > 1000
