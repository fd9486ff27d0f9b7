"""A ``postgresql://`` URL, split into what libpq gets and what the pool gets.

libpq understands the URL itself (host, port, database, user, password,
``sslmode``, ``connect_timeout``, ``options``, ...). Three more query
parameters size the connection pool and are taken out before libpq sees them:

- ``pool_min_size`` (default 1): connections kept open while idle;
- ``pool_max_size`` (default 10): the most connections open at once;
- ``pool_timeout`` (default 10): seconds a request waits for a connection
  before it fails with StoreUnavailable.

``connect_timeout`` defaults to 5 seconds, so an unreachable host fails fast.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import psycopg
from psycopg.conninfo import conninfo_to_dict, make_conninfo

from remember.errors import ConfigError

DEFAULT_CONNECT_TIMEOUT = 5
_POOL_PARAMETERS = {"pool_min_size", "pool_max_size", "pool_timeout"}


@dataclass(frozen=True)
class PoolSettings:
    min_size: int = 1
    max_size: int = 10
    timeout: float = 10.0


@dataclass(frozen=True)
class Target:
    """Where to connect: the conninfo for libpq, the pool's sizes, and a name to show people."""

    conninfo: str
    pool: PoolSettings
    location: str


def parse_url(url: str) -> Target:
    """Split ``url``; raise ConfigError with the fix if it cannot be used."""
    try:
        parts = urlsplit(url)
        query = parse_qsl(parts.query, keep_blank_values=True)
        libpq = [(k, v) for k, v in query if k not in _POOL_PARAMETERS]
        raw = conninfo_to_dict(urlunsplit(parts._replace(query=urlencode(libpq))))
        params = {k: str(v) for k, v in raw.items() if v is not None}
    except (ValueError, psycopg.ProgrammingError) as exc:
        raise ConfigError(
            f"The database URL {redact(url)} cannot be used: {exc}. "
            "Write it as postgresql://user:password@host:5432/database (see docs/postgres.md)."
        ) from exc
    pool = _pool_settings({k: v for k, v in query if k in _POOL_PARAMETERS}, url)
    params.setdefault("connect_timeout", str(DEFAULT_CONNECT_TIMEOUT))
    return Target(make_conninfo("", **params), pool, location(params))


def _pool_settings(raw: dict[str, str], url: str) -> PoolSettings:
    try:
        settings = PoolSettings(
            min_size=int(raw.get("pool_min_size", PoolSettings.min_size)),
            max_size=int(raw.get("pool_max_size", PoolSettings.max_size)),
            timeout=float(raw.get("pool_timeout", PoolSettings.timeout)),
        )
    except ValueError:
        settings = PoolSettings(min_size=-1)
    if not (0 <= settings.min_size <= settings.max_size and settings.max_size >= 1 and settings.timeout > 0):
        raise ConfigError(
            f"The pool settings in {redact(url)} cannot be used: pool_min_size and pool_max_size are whole "
            "numbers with 0 <= pool_min_size <= pool_max_size and pool_max_size >= 1, and pool_timeout is a "
            "number of seconds above 0 (e.g. ?pool_min_size=1&pool_max_size=10&pool_timeout=10)."
        )
    return settings


def location(params: dict[str, str]) -> str:
    """``host:port/database`` (no user, no password): safe to show in messages and logs."""
    host = params.get("host") or params.get("hostaddr") or "localhost"
    port = params.get("port") or "5432"
    return f"{host}:{port}/{params.get('dbname') or params.get('user') or 'postgres'}"


def redact(url: str) -> str:
    """The URL with any password replaced by ``***`` (even in a URL that does not parse)."""
    url = re.sub(r"(?i)([?&]password=)[^&]*", r"\1***", url)
    return re.sub(r"^([a-z]+://[^:@/?#]*):[^@/?#]*@", r"\1:***@", url, flags=re.IGNORECASE)
