"""User templates: definitions, their versions, usage, and the compliance of the memories made from them."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from remember.errors import Conflict, NotFound, StoreError, excerpt
from remember.models import Compliance, MemoryChange, TemplateRecord, TemplateUsage, TemplateVersion, name_key
from remember.store.sql.base import Sql
from remember.store.sql.memories import MemoryTables
from remember.store.sql.prefixes import ids_with_prefix
from remember.store.sql.rows import (
    TEMPLATE_COLUMNS,
    TEMPLATE_INSERT,
    template_from_row,
    template_params,
)
from remember.store.sql.session import Session

VERSION_UPSERT = (
    "INSERT INTO template_versions (user_id, template_id, version, definition, at) VALUES (?, ?, ?, ?, ?) "
    "ON CONFLICT (user_id, template_id, version) DO UPDATE SET definition = excluded.definition, at = excluded.at"
)


class TemplateTables:
    """A user's own templates, their versions, usage, and the compliance of the memories made from them."""

    def __init__(self, sql: Sql, memories: MemoryTables) -> None:
        self.sql = sql
        self.dialect = sql.dialect
        self.memories = memories  # a template deleted with its memories trashes them

    def insert(self, record: TemplateRecord) -> None:
        with self._name_race_is_a_conflict(record), self.sql.writing() as s:
            _refuse_taken_name(s, record)
            s.run(TEMPLATE_INSERT, template_params(self.dialect, record))
            self._record_version(s, record)

    def get(self, user_id: str, template_id: str) -> TemplateRecord | None:
        with self.sql.reading() as s:
            row = s.one(
                f"SELECT {TEMPLATE_COLUMNS} FROM templates WHERE user_id = ? AND id = ?", (user_id, template_id)
            )
        return template_from_row(self.dialect, row) if row else None

    def ids_with_prefix(self, user_id: str, prefix: str, *, limit: int) -> list[str]:
        """Up to ``limit`` ids of the user's own templates that start with ``prefix``, in id order."""
        with self.sql.reading() as s:
            return ids_with_prefix(s, "templates", user_id, prefix, limit)

    def of_user(self, user_id: str) -> list[TemplateRecord]:
        with self.sql.reading() as s:
            rows = s.all(f"SELECT {TEMPLATE_COLUMNS} FROM templates WHERE user_id = ? ORDER BY name_key", (user_id,))
        return [template_from_row(self.dialect, r) for r in rows]

    def replace(self, record: TemplateRecord, *, expected_version: str, compliance: Sequence[Compliance]) -> None:
        with self._name_race_is_a_conflict(record), self.sql.writing() as s:
            row = s.one(
                f"SELECT version FROM templates WHERE user_id = ? AND id = ?{self.dialect.for_update}",
                (record.user_id, record.id),
            )
            if row is None:
                raise NotFound(f"Template {record.id} no longer exists.")
            if row[0] != expected_version:
                raise Conflict(
                    f"Template {record.id} was changed by someone else (now version {row[0]}); "
                    "fetch it again and reapply your change."
                )
            _refuse_taken_name(s, record)
            s.run(
                "UPDATE templates SET name = ?, name_key = ?, version = ?, parent_template_id = ?, definition = ?, "
                "updated_at = ? WHERE user_id = ? AND id = ?",
                (*template_params(self.dialect, record)[2:7], self.dialect.moment(record.updated_at),
                 record.user_id, record.id),
            )  # fmt: skip
            self._record_version(s, record)
            self._write_compliance(s, record.user_id, compliance)

    def delete(self, user_id: str, template_id: str, *, trash: Sequence[MemoryChange]) -> None:
        with self.sql.writing() as s:
            for change in trash:
                self.memories.write_change(s, change)
            s.run("DELETE FROM templates WHERE user_id = ? AND id = ?", (user_id, template_id))

    def set_compliance(self, user_id: str, compliance: Sequence[Compliance]) -> None:
        with self.sql.writing() as s:
            self._write_compliance(s, user_id, compliance)

    def children(self, user_id: str, template_id: str) -> list[str]:
        with self.sql.reading() as s:
            rows = s.all(
                "SELECT id FROM templates WHERE user_id = ? AND parent_template_id = ? ORDER BY id",
                (user_id, template_id),
            )
        return [r[0] for r in rows]

    def usage(self, user_id: str, *, max_trust: float | None = None) -> dict[str, TemplateUsage]:
        within = "" if max_trust is None else " AND trust <= ?"
        with self.sql.reading() as s:
            rows = s.all(
                "SELECT template_id, count(*), max(created_at) FROM memories "
                f"WHERE user_id = ? AND template_id IS NOT NULL{within} GROUP BY template_id",
                (user_id,) if max_trust is None else (user_id, max_trust),
            )
        return {tid: TemplateUsage(tid, count, self.dialect.from_optional_moment(last)) for tid, count, last in rows}

    def versions(self, user_id: str, template_id: str) -> list[TemplateVersion]:
        """Every stored version of one of the user's templates, oldest first."""
        d = self.dialect
        with self.sql.reading() as s:
            rows = s.all(
                "SELECT version, definition, at FROM template_versions WHERE user_id = ? AND template_id = ? "
                "ORDER BY at, version",
                (user_id, template_id),
            )
        return [TemplateVersion(v, d.from_json(definition), d.from_moment(at)) for v, definition, at in rows]

    def _record_version(self, s: Session, record: TemplateRecord) -> None:
        s.run(
            VERSION_UPSERT,
            (record.user_id, record.id, record.version, self.dialect.json(dict(record.definition)),
             self.dialect.moment(record.updated_at)),
        )  # fmt: skip

    def _write_compliance(self, s: Session, user_id: str, compliance: Sequence[Compliance]) -> None:
        s.many(
            "UPDATE memories SET template_compliance = ?, template_validation_errors = ?, identity_key = ? "
            "WHERE user_id = ? AND id = ? AND version = ?",
            [
                (self.dialect.flag(c.compliant), self.dialect.json([dict(e) for e in c.errors]), c.identity_key,
                 user_id, c.memory_id, c.version)
                for c in compliance
            ],
        )  # fmt: skip

    @contextmanager
    def _name_race_is_a_conflict(self, record: TemplateRecord) -> Iterator[None]:
        """Two writers may both find a name free; the unique index lets one in and the other gets Conflict."""
        try:
            yield
        except StoreError as exc:
            if isinstance(exc.__cause__, self.dialect.unique_violation):
                raise _taken(record, "just created by another request") from exc
            raise


def _taken(record: TemplateRecord, holder: str) -> Conflict:
    return Conflict(f"You already have a template named {excerpt(record.name)} ({holder}); choose another name.")


def _refuse_taken_name(s: Session, record: TemplateRecord) -> None:
    holder = s.value(
        "SELECT id FROM templates WHERE user_id = ? AND name_key = ? AND id <> ?",
        (record.user_id, name_key(record.name), record.id),
    )
    if holder:
        raise _taken(record, holder)
