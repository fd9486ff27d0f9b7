"""Prefill figures: field-level recall and precision per built-in on the labelled prefill sets.

Each utterance of ``prefill_dev.jsonl``, ``prefill_test.jsonl`` and
``prefill_fresh.jsonl`` carries the template it fits and the fields a careful
person would fill from it (docs/suggestions.md says how each set was written
and used). Two ways are measured:

- *given the template*: the prefill of the labelled template (what
  ``remember_apply_template`` and ``remember template apply`` fill when the
  caller names the template);
- *through suggest*: the prefill of the first suggestion with MiniLM and no
  client model, counted only when that suggestion is the labelled template
  (its fields are missed otherwise; a wrong template's fields are not
  comparable with the labels and are left out of the precision).

A field is right when its value equals the label: text compared case-folded,
numbers as numbers, dates and moments by their date, lists as sets. A field
filled that the label leaves empty counts against the precision.

A third way reads the built-ins as a user's template with fields of its own
names would be read: every field renamed ``field_1``, ``field_2``... (computed
ones left out), with their kinds and without, so that what the kinds read
apart from the names shows.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench.report import Table
from remember.templates import (
    ResolvedTemplate,
    builtin_lookup,
    builtin_template,
    builtin_templates,
    parse_template,
    resolve,
)
from remember.templates.suggest import EmbedderLike, extract, prefill, suggest

DATA = Path(__file__).resolve().parents[1] / "tests" / "templates" / "suggest" / "data"
NOW = datetime(2026, 2, 11, 18, 30, tzinfo=UTC)


@dataclass
class Tally:
    """Fields right, filled and labelled, over some utterances."""

    right: int = 0
    filled: int = 0
    labelled: int = 0

    def add(self, other: Tally) -> None:
        self.right += other.right
        self.filled += other.filled
        self.labelled += other.labelled

    @property
    def recall(self) -> float:
        return self.right / self.labelled if self.labelled else 1.0

    @property
    def precision(self) -> float:
        return self.right / self.filled if self.filled else 1.0


@dataclass(frozen=True)
class Row:
    text: str
    template: str
    fields: dict[str, Any]


def labelled(name: str) -> list[Row]:
    """The rows of ``prefill_dev`` or ``prefill_test``."""
    lines = (DATA / f"prefill_{name}.jsonl").read_text(encoding="utf-8").splitlines()
    return [Row(row["text"], row["template"], row["fields"]) for row in map(json.loads, lines) if row]


def given_template(row: Row) -> dict[str, Any]:
    """The prefill of the labelled template."""
    definition = builtin_template(row.template)
    assert definition is not None, row.template
    return prefill(extract(row.text, NOW.date()), resolve(definition, builtin_lookup()), NOW)


def renamed(resolved: ResolvedTemplate, *, kinds: bool) -> tuple[ResolvedTemplate, dict[str, str]]:
    """The template with its fields named ``field_1``... (computed ones left out), with or without their kinds;
    and the original name of each new one."""
    fields = [field for field in resolved.fields if not field.is_computed]
    names = {field.name: f"field_{i}" for i, field in enumerate(fields, start=1)}
    raw = []
    for field in fields:
        out = {**field.as_dict(), "name": names[field.name]}
        if not kinds:
            out.pop("kind", None)
        if field.show_if is not None:
            out["conditional"] = {"show_if": _IDENTIFIER.sub(lambda m: names.get(m[0], m[0]), field.show_if)}
        raw.append(out)
    definition = parse_template({"id": f"{resolved.definition.id}:renamed", "name": "Renamed", "fields": raw})
    return resolve(definition), {new: old for old, new in names.items()}


_IDENTIFIER = re.compile(r"'[^']*'|\"[^\"]*\"|[a-z][a-z0-9_]*")  # quoted text is matched whole and left as it is


def given_renamed(row: Row, *, kinds: bool) -> dict[str, Any]:
    """The prefill of the labelled template with its fields renamed, under their original names."""
    definition = builtin_template(row.template)
    assert definition is not None, row.template
    template, original = renamed(resolve(definition, builtin_lookup()), kinds=kinds)
    filled = prefill(extract(row.text, NOW.date()), template, NOW)
    return {original[name]: value for name, value in filled.items()}


def compare(filled: Mapping[str, Any], expected: Mapping[str, Any]) -> tuple[Tally, list[str]]:
    """The tally of one utterance and a line per wrong or missed field."""
    right = [name for name, value in filled.items() if name in expected and same(value, expected[name])]
    problems = [f"+{name}={filled[name]!r}" for name in filled if name not in right]
    problems += [f"-{name}={expected[name]!r}" for name in expected if name not in right]
    return Tally(len(right), len(filled), len(expected)), problems


def same(value: Any, expected: Any) -> bool:
    if isinstance(expected, bool) or isinstance(value, bool):
        return value is expected
    if isinstance(expected, int | float) and isinstance(value, int | float):
        return float(value) == float(expected)
    if isinstance(expected, list) and isinstance(value, list):
        return {_text(v) for v in value} == {_text(v) for v in expected}
    if isinstance(expected, str) and isinstance(value, str):
        if len(expected) == 10 and expected[4] == "-" and expected[7] == "-":
            return value[:10] == expected
        return _text(value) == _text(expected)
    return False


def measure(
    rows: Iterable[Row], embedder: EmbedderLike | None = None, *, through_suggest: bool = False, way: str = ""
) -> dict[str, Any]:
    """Per template and overall tallies, with the problems for inspection.

    ``way`` is ``renamed`` or ``renamed, no kinds`` for the built-ins with their fields renamed.
    """
    per: dict[str, Tally] = {}
    problems: list[str] = []
    templates = builtin_templates()
    for row in rows:
        if through_suggest:
            found = suggest(row.text, templates, now=NOW, embedder=embedder, limit=1)
            filled = found[0].prefill if found and found[0].template_id == row.template else None
        elif way:
            filled = given_renamed(row, kinds=way == "renamed")
        else:
            filled = given_template(row)
        tally, wrong = compare(filled or {}, row.fields)
        if filled is None:
            tally.filled = 0
            wrong = ["(not suggested first)"]
        per.setdefault(row.template, Tally()).add(tally)
        if wrong:
            problems.append(f"{row.template.removeprefix('builtin:')}: {row.text}\n    {' '.join(wrong)}")
    overall = Tally()
    for tally in per.values():
        overall.add(tally)
    return {"per_template": per, "overall": overall, "problems": problems}


def run(quick: bool) -> dict[str, Any]:
    """Print and return recall and precision per template on each set, given the template and through suggest."""
    from remember.search.embedders import MiniLMEmbedder

    del quick  # the sets are small
    embedder = MiniLMEmbedder()
    sets = ("dev", "test", "fresh")
    results = {
        (name, way): measure(labelled(name), embedder, through_suggest=way == "suggest")
        for name in sets
        for way in ("template", "suggest")
    }
    table = Table(
        "Prefill, field level: recall/precision given the template (and through suggest with MiniLM)",
        ["template", *sets, *(f"{name} via suggest" for name in sets)],
    )
    figures = _tabled(table, results, sets, ("template", "suggest"))
    renamed_ways = ("renamed", "renamed, no kinds")
    results = {(name, way): measure(labelled(name), way=way) for name in sets for way in renamed_ways}
    table = Table(
        "Prefill given the template, its fields renamed field_1...: recall/precision with their kinds (and without)",
        ["template", *sets, *(f"{name} without kinds" for name in sets)],
    )
    figures["renamed"] = _tabled(table, results, sets, renamed_ways)
    return figures


def _tabled(
    table: Table, results: dict[tuple[str, str], dict[str, Any]], sets: tuple[str, ...], ways: tuple[str, ...]
) -> dict[str, Any]:
    """Fill and print ``table`` (a row per template, a column per way and set); the figures behind it."""
    figures: dict[str, Any] = {}
    for template in [*sorted(results[sets[0], ways[0]]["per_template"]), "overall"]:
        cells, figures[template] = [], {}
        for way in ways:
            for name in sets:
                result = results[name, way]
                tally: Tally = result["overall"] if template == "overall" else result["per_template"][template]
                cells.append(f"{tally.recall:.2f}/{tally.precision:.2f}")
                figures[template][f"{name}:{way}"] = {"recall": tally.recall, "precision": tally.precision,
                                                      "right": tally.right, "filled": tally.filled,
                                                      "labelled": tally.labelled}  # fmt: skip
        table.add(template.removeprefix("builtin:"), *cells)
    table.print()
    return figures


def _text(value: Any) -> str:
    return " ".join(str(value).casefold().split())
