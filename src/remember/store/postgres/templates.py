"""User templates in PostgreSQL: definitions, their versions, usage, and the memories made from them."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from psycopg import errors as pgerrors

from remember.errors import Conflict, NotFound, StoreError
from remember.models import Compliance, Memory, MemoryChange, TemplateRecord, TemplateUsage
from remember.store.postgres.connection import Connection, Database
from remember.store.postgres.memories import write_change
from remember.store.postgres.rows import MEMORY_COLUMNS, jsonb, memory_from_row, utc

_TEMPLATE_COLUMNS = "user_id, id, definition, created_at, updated_at"


def name_key(name: str) -> str:
    """Template names are unique per user regardless of case and spacing."""
    return " ".join(name.split()).casefold()


class TemplateTables:
    db: Database

    def insert_template(self, record: TemplateRecord) -> None:
        with _name_race_is_a_conflict(record), self.db.write() as conn:
            _refuse_taken_name(conn, record)
            conn.execute(
                "INSERT INTO templates (user_id, id, name, name_key, version, parent_template_id, definition, "
                "created_at, updated_at) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)",
                _params(record),
            )
            _record_version(conn, record)

    def get_template(self, user_id: str, template_id: str) -> TemplateRecord | None:
        with self.db.read() as conn:
            row = conn.execute(
                f"SELECT {_TEMPLATE_COLUMNS} FROM templates WHERE user_id = %s AND id = %s", (user_id, template_id)
            ).fetchone()
        return _record(row) if row else None

    def list_templates(self, user_id: str) -> list[TemplateRecord]:
        with self.db.read() as conn:
            rows = conn.execute(
                f"SELECT {_TEMPLATE_COLUMNS} FROM templates WHERE user_id = %s ORDER BY name_key", (user_id,)
            ).fetchall()
        return [_record(r) for r in rows]

    def replace_template(
        self, record: TemplateRecord, *, expected_version: str, compliance: Sequence[Compliance]
    ) -> None:
        with _name_race_is_a_conflict(record), self.db.write() as conn:
            row = conn.execute(
                "SELECT version FROM templates WHERE user_id = %s AND id = %s FOR UPDATE", (record.user_id, record.id)
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
                "UPDATE templates SET name = %s, name_key = %s, version = %s, parent_template_id = %s, "
                "definition = %s, updated_at = %s WHERE user_id = %s AND id = %s",
                (*_params(record)[2:7], record.updated_at, record.user_id, record.id),
            )
            _record_version(conn, record)
            _write_compliance(conn, record.user_id, compliance)

    def delete_template(self, user_id: str, template_id: str, *, trash: Sequence[MemoryChange]) -> None:
        with self.db.write() as conn:
            for change in trash:
                write_change(conn, change)
            conn.execute("DELETE FROM templates WHERE user_id = %s AND id = %s", (user_id, template_id))

    def set_compliance(self, user_id: str, compliance: Sequence[Compliance]) -> None:
        with self.db.write() as conn:
            _write_compliance(conn, user_id, compliance)

    def template_children(self, user_id: str, template_id: str) -> list[str]:
        with self.db.read() as conn:
            rows = conn.execute(
                "SELECT id FROM templates WHERE user_id = %s AND parent_template_id = %s ORDER BY id",
                (user_id, template_id),
            ).fetchall()
        return [r[0] for r in rows]

    def template_usage(self, user_id: str) -> dict[str, TemplateUsage]:
        with self.db.read() as conn:
            rows = conn.execute(
                "SELECT template_id, count(*), max(created_at) FROM memories "
                "WHERE user_id = %s AND template_id IS NOT NULL GROUP BY template_id",
                (user_id,),
            ).fetchall()
        return {tid: TemplateUsage(tid, count, utc(last) if last else None) for tid, count, last in rows}

    def memories_of_templates(
        self, user_id: str, template_ids: Sequence[str], *, include_deleted: bool
    ) -> list[Memory]:
        if not template_ids:
            return []
        deleted = "" if include_deleted else " AND deleted_at IS NULL"
        with self.db.read() as conn:
            rows = conn.execute(
                f"SELECT {MEMORY_COLUMNS} FROM memories WHERE user_id = %s AND template_id = ANY(%s){deleted} "
                "ORDER BY created_at, id",
                (user_id, list(template_ids)),
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
        jsonb(dict(record.definition)),
        record.created_at,
        record.updated_at,
    )


def _record(row: Sequence[Any]) -> TemplateRecord:
    user_id, id_, definition, created, updated = row
    return TemplateRecord(user_id, id_, definition, utc(created), utc(updated))


def _taken(record: TemplateRecord, holder: str) -> Conflict:
    return Conflict(f"You already have a template named {record.name!r} ({holder}); choose another name.")


def _refuse_taken_name(conn: Connection, record: TemplateRecord) -> None:
    row = conn.execute(
        "SELECT id FROM templates WHERE user_id = %s AND name_key = %s AND id <> %s",
        (record.user_id, name_key(record.name), record.id),
    ).fetchone()
    if row:
        raise _taken(record, row[0])


@contextmanager
def _name_race_is_a_conflict(record: TemplateRecord) -> Iterator[None]:
    """Two writers may both find a name free; the unique index lets one in and the other gets Conflict."""
    try:
        yield
    except StoreError as exc:
        cause = exc.__cause__
        if isinstance(cause, pgerrors.UniqueViolation) and cause.diag.constraint_name == "templates_name":
            raise _taken(record, "just created by another request") from exc
        raise


def _record_version(conn: Connection, record: TemplateRecord) -> None:
    conn.execute(
        "INSERT INTO template_versions (user_id, template_id, version, definition, at) VALUES (%s, %s, %s, %s, %s) "
        "ON CONFLICT (user_id, template_id, version) DO UPDATE SET definition = excluded.definition, at = excluded.at",
        (record.user_id, record.id, record.version, jsonb(dict(record.definition)), record.updated_at),
    )


def _write_compliance(conn: Connection, user_id: str, compliance: Sequence[Compliance]) -> None:
    if not compliance:
        return
    conn.execute(
        "UPDATE memories m SET template_compliance = c.compliant, template_validation_errors = c.errors "
        "FROM unnest(%s::text[], %s::boolean[], %s::jsonb[], %s::int[]) AS c(id, compliant, errors, version) "
        "WHERE m.user_id = %s AND m.id = c.id AND m.version = c.version",
        (
            [c.memory_id for c in compliance],
            [c.compliant for c in compliance],
            [jsonb([dict(e) for e in c.errors]) for c in compliance],
            [c.version for c in compliance],
            user_id,
        ),
    )
