"""User templates in SQLite: definitions, their versions, usage, and the memories made from them."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from typing import Any

from remember.clock import from_text, to_text
from remember.errors import Conflict, NotFound
from remember.models import Compliance, Memory, MemoryChange, TemplateRecord, TemplateUsage
from remember.store.sqlite.connection import Database
from remember.store.sqlite.memories import write_change
from remember.store.sqlite.rows import MEMORY_COLUMNS, dump, memory_from_row

_TEMPLATE_COLUMNS = "user_id, id, definition, created_at, updated_at"


def name_key(name: str) -> str:
    """Template names are unique per user regardless of case and spacing."""
    return " ".join(name.split()).casefold()


class TemplateTables:
    db: Database

    def insert_template(self, record: TemplateRecord) -> None:
        with self.db.write() as conn:
            _refuse_taken_name(conn, record)
            conn.execute(
                "INSERT INTO templates (user_id, id, name, name_key, version, parent_template_id, definition, "
                "created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                _params(record),
            )
            _record_version(conn, record)

    def get_template(self, user_id: str, template_id: str) -> TemplateRecord | None:
        with self.db.read() as conn:
            row = conn.execute(
                f"SELECT {_TEMPLATE_COLUMNS} FROM templates WHERE user_id = ? AND id = ?", (user_id, template_id)
            ).fetchone()
        return _record(row) if row else None

    def list_templates(self, user_id: str) -> list[TemplateRecord]:
        with self.db.read() as conn:
            rows = conn.execute(
                f"SELECT {_TEMPLATE_COLUMNS} FROM templates WHERE user_id = ? ORDER BY name_key", (user_id,)
            ).fetchall()
        return [_record(r) for r in rows]

    def replace_template(
        self, record: TemplateRecord, *, expected_version: str, compliance: Sequence[Compliance]
    ) -> None:
        with self.db.write() as conn:
            row = conn.execute(
                "SELECT version FROM templates WHERE user_id = ? AND id = ?", (record.user_id, record.id)
            ).fetchone()
            if row is None:
                raise NotFound(f"Template {record.id} no longer exists.")
            if row[0] != expected_version:
                raise Conflict(
                    f"Template {record.id} was changed by someone else (now version {row[0]}); "
                    "fetch it again and reapply your change."
                )
            _refuse_taken_name(conn, record)
            conn.execute(
                "UPDATE templates SET name = ?, name_key = ?, version = ?, parent_template_id = ?, definition = ?, "
                "updated_at = ? WHERE user_id = ? AND id = ?",
                (*_params(record)[2:7], to_text(record.updated_at), record.user_id, record.id),
            )
            _record_version(conn, record)
            _write_compliance(conn, record.user_id, compliance)

    def delete_template(self, user_id: str, template_id: str, *, trash: Sequence[MemoryChange]) -> None:
        with self.db.write() as conn:
            for change in trash:
                write_change(conn, change)
            conn.execute("DELETE FROM templates WHERE user_id = ? AND id = ?", (user_id, template_id))

    def set_compliance(self, user_id: str, compliance: Sequence[Compliance]) -> None:
        with self.db.write() as conn:
            _write_compliance(conn, user_id, compliance)

    def template_children(self, user_id: str, template_id: str) -> list[str]:
        with self.db.read() as conn:
            rows = conn.execute(
                "SELECT id FROM templates WHERE user_id = ? AND parent_template_id = ? ORDER BY id",
                (user_id, template_id),
            ).fetchall()
        return [r[0] for r in rows]

    def template_usage(self, user_id: str) -> dict[str, TemplateUsage]:
        with self.db.read() as conn:
            rows = conn.execute(
                "SELECT template_id, count(*), max(created_at) FROM memories "
                "WHERE user_id = ? AND template_id IS NOT NULL GROUP BY template_id",
                (user_id,),
            ).fetchall()
        return {tid: TemplateUsage(tid, count, from_text(last) if last else None) for tid, count, last in rows}

    def memories_of_templates(
        self, user_id: str, template_ids: Sequence[str], *, include_deleted: bool
    ) -> list[Memory]:
        if not template_ids:
            return []
        marks = ", ".join("?" for _ in template_ids)
        deleted = "" if include_deleted else " AND deleted_at IS NULL"
        with self.db.read() as conn:
            rows = conn.execute(
                f"SELECT {MEMORY_COLUMNS} FROM memories WHERE user_id = ? AND template_id IN ({marks}){deleted} "
                "ORDER BY created_at, id",
                [user_id, *template_ids],
            ).fetchall()
        return [memory_from_row(r) for r in rows]


def _params(record: TemplateRecord) -> tuple[Any, ...]:
    return (
        record.user_id,
        record.id,
        record.name,
        name_key(record.name),
        record.version,
        record.parent_template_id,
        dump(dict(record.definition)),
        to_text(record.created_at),
        to_text(record.updated_at),
    )


def _record(row: tuple[Any, ...]) -> TemplateRecord:
    user_id, id_, definition, created, updated = row
    return TemplateRecord(user_id, id_, json.loads(definition), from_text(created), from_text(updated))


def _refuse_taken_name(conn: sqlite3.Connection, record: TemplateRecord) -> None:
    row = conn.execute(
        "SELECT id FROM templates WHERE user_id = ? AND name_key = ? AND id != ?",
        (record.user_id, name_key(record.name), record.id),
    ).fetchone()
    if row:
        raise Conflict(f"You already have a template named {record.name!r} ({row[0]}); choose another name.")


def _record_version(conn: sqlite3.Connection, record: TemplateRecord) -> None:
    conn.execute(
        "REPLACE INTO template_versions (user_id, template_id, version, definition, at) VALUES (?, ?, ?, ?, ?)",
        (record.user_id, record.id, record.version, dump(dict(record.definition)), to_text(record.updated_at)),
    )


def _write_compliance(conn: sqlite3.Connection, user_id: str, compliance: Sequence[Compliance]) -> None:
    conn.executemany(
        "UPDATE memories SET template_compliance = ?, template_validation_errors = ? "
        "WHERE user_id = ? AND id = ? AND version = ?",
        [(int(c.compliant), dump([dict(e) for e in c.errors]), user_id, c.memory_id, c.version) for c in compliance],
    )
