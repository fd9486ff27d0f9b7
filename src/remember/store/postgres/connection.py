"""A pool of PostgreSQL connections shared by the threads of one process.

The MCP SDK runs tools in worker threads; each request borrows a connection
from a ``psycopg_pool.ConnectionPool`` for one transaction and gives it back.
Connections are in autocommit mode: a read is one statement (one snapshot), a
write is an explicit transaction that commits when its block ends.

When the server goes away (restart, failover, network), the failing request
gets StoreUnavailable at once or after ``pool_timeout``; the pool then drops
its dead connections together and keeps trying to open new ones in the
background, so requests work again as soon as the server is back, without
restarting `remember`.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import psycopg
import psycopg_pool
from psycopg import errors as pgerrors
from psycopg.types.json import set_json_loads

from remember.errors import Conflict, StoreError, StoreUnavailable
from remember.store.postgres.url import Target
from remember.store.postgres.vectors import VectorDumper, VectorParam

# Seconds one round of reconnection attempts lasts (with backoff 1, 2, 4 s)
# before the pool starts a fresh round: bounds how long it takes to notice
# that the server is back.
RECONNECT_TIMEOUT = 5.0
# Idle connections are closed after this many seconds (down to pool_min_size).
MAX_IDLE = 300.0

Connection = psycopg.Connection[Any]
logger = logging.getLogger(__name__)


class Database:
    def __init__(self, target: Target) -> None:
        self.target = target
        self.pool: psycopg_pool.ConnectionPool[Connection] = psycopg_pool.ConnectionPool(
            target.conninfo,
            min_size=target.pool.min_size,
            max_size=target.pool.max_size,
            timeout=target.pool.timeout,
            max_idle=MAX_IDLE,
            reconnect_timeout=RECONNECT_TIMEOUT,
            reconnect_failed=_start_again,
            kwargs={"autocommit": True},
            configure=_configure,
            check=self._check,
            name=f"remember {target.location}",
            open=False,
        )

    def open(self) -> None:
        """Start the pool (it fills in the background)."""
        self.pool.open(wait=False)

    def close(self) -> None:
        self.pool.close()

    @contextmanager
    def read(self) -> Iterator[Connection]:
        """A connection for reads; each statement sees its own consistent snapshot."""
        with self.translated(), self.pool.connection() as conn:
            yield conn

    @contextmanager
    def write(self) -> Iterator[Connection]:
        """One write transaction: committed if the block ends, rolled back if it raises."""
        with self.translated(), self.pool.connection() as conn, conn.transaction():
            yield conn

    @contextmanager
    def direct(self) -> Iterator[Connection]:
        """A connection of its own, outside the pool (for migrations at open time)."""
        with self.translated():
            conn = psycopg.connect(self.target.conninfo, autocommit=True)
        try:
            _configure(conn)
            with self.translated():
                yield conn
        finally:
            conn.close()

    @contextmanager
    def translated(self) -> Iterator[None]:
        """Turn psycopg's errors into the project's, with what to do about them."""
        where = self.target.location
        try:
            yield
        except psycopg_pool.PoolTimeout as exc:
            raise StoreUnavailable(
                f"No connection to PostgreSQL at {where} could be opened or freed within "
                f"{self.target.pool.timeout:g} s. Check that the server is running and reachable; if it is, many "
                "requests may be running at once: raise pool_max_size in REMEMBER_DATABASE_URL."
            ) from exc
        except psycopg_pool.PoolClosed as exc:
            raise StoreUnavailable(f"The connection pool to PostgreSQL at {where} is closed.") from exc
        except psycopg.OperationalError as exc:
            self._drop_dead_connections()
            raise StoreUnavailable(
                f"Cannot use PostgreSQL at {where}: {_reason(exc)}. Check that the server is running and "
                "reachable there and that the user, password and database in REMEMBER_DATABASE_URL are right; "
                "remember reconnects by itself once the server is back."
            ) from exc
        except pgerrors.TransactionRollback as exc:
            raise Conflict(f"A concurrent change got in the way ({_reason(exc)}); try again.") from exc
        except pgerrors.UntranslatableCharacter as exc:
            raise StoreError(
                f"PostgreSQL cannot store this text: {_reason(exc)}. Remove NUL characters (\\u0000) from it."
            ) from exc
        except psycopg.Error as exc:
            raise StoreError(f"PostgreSQL at {where} failed: {_reason(exc)}.") from exc

    def _check(self, conn: Connection) -> None:
        """The pool's check before lending a connection; one dead one means the rest are likely dead too."""
        try:
            psycopg_pool.ConnectionPool.check_connection(conn)
        except psycopg.Error:
            self._drop_dead_connections()
            raise

    def _drop_dead_connections(self) -> None:
        if not self.pool.closed:
            self.pool.check()


def _configure(conn: Connection) -> None:
    set_json_loads(_loads, conn)
    conn.adapters.register_dumper(VectorParam, VectorDumper)
    # psycopg prepares a statement run five times; PostgreSQL then plans it once for any parameters.
    # A search's best plan depends on its terms (a word in 50 memories or in 50,000) and filters, so
    # every statement is planned for its own parameters (docs/postgres.md#sizing-the-server).
    conn.execute("SET plan_cache_mode = force_custom_plan")


def _loads(data: str | bytes) -> Any:
    """jsonb comes back with its keys in length order; sort them as the SQLite backend does."""
    return json.loads(data, object_pairs_hook=_sorted_object)


def _sorted_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    return dict(sorted(pairs, key=lambda pair: pair[0]))


def _start_again(pool: psycopg_pool.ConnectionPool[Any]) -> None:
    """A round of reconnection attempts gave up: start another, so the pool never stops trying."""
    if not pool.closed:
        logger.warning("PostgreSQL pool %r: still cannot connect; trying again", pool.name)
        pool.check()


def _reason(exc: psycopg.Error) -> str:
    """libpq's message on one line, without its trailing hints."""
    text = " ".join(str(exc).split())
    return text.rstrip(".") or type(exc).__name__
