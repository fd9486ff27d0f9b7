"""The one migration runner: named, append-only steps recorded in ``schema_migrations``.

Never edit or reorder a step that has shipped; add a new one at the end
(``schema.STEPS``). Both backends run the same steps under the same names (so
both report the same schema history): the shared script in their column types,
or a step of their own where the schema differs (search, the value index). Each
opens the transaction they run in: all pending steps are applied in one
transaction or none is. A database that records a step this
code does not know was written by a newer `remember` and is refused.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from remember.clock import utc_now
from remember.errors import SchemaTooNew
from remember.store.sql import fingerprint, schema, suggestion_totals
from remember.store.sql.dialect import Dialect
from remember.store.sql.session import Session

Step = Callable[[Any], None]  # takes the backend's raw connection
Steps = Sequence[tuple[str, Step]]
Run = Callable[[Any, str], None]  # runs a script of several statements in the open transaction

# What a shared step does after its script, given the backend's session.
_AFTER: dict[str, Callable[[Session], None]] = {
    "0009_content_hash": fingerprint.backfill,
    "0013_suggestion_totals": suggestion_totals.backfill,
}


def backend_steps(types: schema.ColumnTypes, run: Run, dialect: Dialect, own: Mapping[str, Step]) -> Steps:
    """A backend's steps: its ``own`` step where it has one, else the shared script in its ``types``."""
    names = [name for name, _ in schema.STEPS]
    if set(own) - set(names) or any(script is None and name not in own for name, script in schema.STEPS):
        raise ValueError(f"a backend needs its own steps for exactly the unshared ones, not {sorted(own)}")
    return tuple(
        (name, own.get(name) or _shared(name, script or "", types, run, dialect)) for name, script in schema.STEPS
    )


def _shared(name: str, script: str, types: schema.ColumnTypes, run: Run, dialect: Dialect) -> Step:
    def step(raw: Any) -> None:
        run(raw, types.render(script))
        after = _AFTER.get(name)
        if after is not None:
            after(Session(raw, dialect))

    return step


def apply_pending(s: Session, steps: Steps, location: str) -> list[str]:
    """Inside the caller's transaction: apply the steps not yet recorded, in order; the names applied."""
    s.run(
        "CREATE TABLE IF NOT EXISTS schema_migrations "
        f"(name TEXT PRIMARY KEY, applied_at {s.dialect.moment_type} NOT NULL)"
    )
    done = {row[0] for row in s.all("SELECT name FROM schema_migrations")}
    refuse_unknown(done, steps, location)
    applied = []
    for name, step in steps:
        if name not in done:
            step(s.raw)
            s.run("INSERT INTO schema_migrations (name, applied_at) VALUES (?, ?)", (name, s.dialect.moment(utc_now())))
            applied.append(name)
    return applied


def refuse_unknown(done: set[str], steps: Steps, location: str) -> None:
    unknown = sorted(done - {name for name, _ in steps})
    if unknown:
        raise SchemaTooNew(
            f"The database at {location} was written by a newer version of remember "
            f"(it has migrations this version does not know: {', '.join(unknown)}). "
            "Upgrade remember (pip install -U remember), or point REMEMBER_DATABASE_URL at another database."
        )
