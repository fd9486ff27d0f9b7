"""Settings, read once from ``REMEMBER_*`` environment variables at an entry point.

| variable                   | default                                   |
|----------------------------|-------------------------------------------|
| ``REMEMBER_HOME``          | the platform's user data dir for remember |
| ``REMEMBER_DATABASE_URL``  | ``sqlite:///$REMEMBER_HOME/remember.db``  |
| ``REMEMBER_USER``          | ``local``                                 |
| ``REMEMBER_EMBEDDER``      | ``onnx`` (or ``multilingual``, ``openai``) |
| ``REMEMBER_EMBEDDER_MODEL``, ``REMEMBER_EMBEDDER_URL``, ``REMEMBER_EMBEDDER_API_KEY`` | unset |
| ``REMEMBER_LOG_LEVEL``     | ``INFO`` (remember's own log lines; other |
|                            | libraries' from WARNING unless DEBUG)     |
| ``REMEMBER_TRUST_LEVEL``   | ``1`` (the stdio server's trust level)    |
| ``REMEMBER_VECTOR_INDEX_MIN`` | ``50000`` (SQLite: memories past which a user is searched  |
|                            | through an approximate index; ``off``: exact search for all) |
| ``REMEMBER_KEYWORD_INDEX_MIN`` | ``50000`` (either backend: memories past which a user's    |
|                            | keyword searches use a ranked index; ``off``: the database's |
|                            | own keyword search for all)                                  |

The HTTP server's settings are ``HttpSettings``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from remember.errors import ConfigError, excerpt

DEFAULT_USER = "local"
# Past this many memories, a SQLite user's vectors are searched through an approximate index: exact
# search over an in-memory matrix costs 150 MB per 100,000 vectors and, beside a keyword search on two
# cores, a hybrid search 22.6 / 30.1 ms (p50 / p95) at 50,000 against 12.6 / 19.1 through the index,
# recall@10 0.999 (docs/search.md#vectors-at-scale).
VECTOR_INDEX_MIN = 50_000
# Past this many memories, a SQLite user's unfiltered keyword searches are answered by a ranked index
# (tantivy): FTS5 scores every memory a query's terms find; at 100,000 memories its keyword side took
# 9.1 / 16.5 ms (mean / p95) against the index's 0.5 / 0.9, recall the same (docs/search.md).
KEYWORD_INDEX_MIN = 50_000
# A hook's warm worker (``remember hook``) waits this many seconds for the next event before it exits.
HOOK_KEEP_WARM = 900
USER_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._@+-]{0,127}\Z")  # \Z: no newline after it
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")


@dataclass(frozen=True)
class Settings:
    home: Path
    database_url: str
    user: str
    embedder: str = "onnx"
    embedder_model: str | None = None
    embedder_url: str | None = None
    embedder_api_key: str | None = None
    log_level: str = "INFO"  # remember's own log lines; other libraries' at ``library_log_level``
    trust_level: float = 1.0
    vector_index_min: int | None = VECTOR_INDEX_MIN  # SQLite: users with this many memories use the approximate index
    keyword_index_min: int | None = KEYWORD_INDEX_MIN  # either backend: the ranked keyword index
    hook_keep_warm: int = HOOK_KEEP_WARM  # seconds a hook's warm worker waits for the next event; 0: none
    http: HttpSettings = field(default_factory=lambda: HttpSettings())  # noqa: PLW0108 - defined below

    @property
    def library_log_level(self) -> str:
        """The level of other libraries' log lines (uvicorn, the MCP SDK): WARNING and above, unless
        ``log_level`` asks for fewer lines, or for DEBUG (then everything)."""
        if self.log_level == "DEBUG":
            return "DEBUG"
        return max(self.log_level, "WARNING", key=LOG_LEVELS.index)

    @classmethod
    def from_env(
        cls,
        env: Mapping[str, str] | None = None,
        *,
        user: str | None = None,
        database_url: str | None = None,
    ) -> Settings:
        """Settings from ``env`` (default ``os.environ``); flags given here win."""
        env = os.environ if env is None else env
        home = Path(env.get("REMEMBER_HOME") or _platform_home()).expanduser()
        if database_url is not None and not database_url.strip():
            raise ConfigError("--db was given an empty database URL; give one, e.g. --db sqlite:///notes.db.")
        url = database_url or env.get("REMEMBER_DATABASE_URL") or f"sqlite:///{home / 'remember.db'}"
        return cls(
            home=home,
            database_url=url,
            user=check_user_id(_chosen_user(user, env)),
            embedder=env.get("REMEMBER_EMBEDDER", "onnx"),
            embedder_model=env.get("REMEMBER_EMBEDDER_MODEL") or None,
            embedder_url=env.get("REMEMBER_EMBEDDER_URL") or None,
            embedder_api_key=env.get("REMEMBER_EMBEDDER_API_KEY") or None,
            log_level=_log_level(env.get("REMEMBER_LOG_LEVEL", "INFO")),
            trust_level=_number(env, "REMEMBER_TRUST_LEVEL", 1.0, 0.0, 1.0),
            vector_index_min=_index_min(env, "REMEMBER_VECTOR_INDEX_MIN", VECTOR_INDEX_MIN, "exact search"),
            keyword_index_min=_index_min(
                env, "REMEMBER_KEYWORD_INDEX_MIN", KEYWORD_INDEX_MIN, "the database's own keyword search"
            ),
            hook_keep_warm=int(_number(env, "REMEMBER_HOOK_KEEP_WARM", HOOK_KEEP_WARM, 0, 7 * 86400, whole=True)),
            http=HttpSettings.from_env(env),
        )


def _chosen_user(given: str | None, env: Mapping[str, str]) -> str:
    """The user asked for: ``--user`` when given (an empty one is refused, not replaced), else REMEMBER_USER."""
    if given is not None:
        if not given.strip():
            raise ConfigError("--user was given an empty user id; name a user, e.g. --user alice, or leave --user out.")
        return given
    return env.get("REMEMBER_USER") or DEFAULT_USER


@dataclass(frozen=True)
class HttpSettings:
    """How ``remember serve --http`` listens, whom it lets in, and how much it takes (docs/http.md).

    | variable | default |
    |---|---|
    | ``REMEMBER_HTTP_HOST``, ``REMEMBER_HTTP_PORT`` | ``127.0.0.1``, ``8765`` |
    | ``REMEMBER_PUBLIC_URL`` | ``http://HOST:PORT`` (the URL clients use, e.g. behind a proxy) |
    | ``REMEMBER_HTTP_ALLOWED_HOSTS``, ``REMEMBER_HTTP_ALLOWED_ORIGINS`` | the public URL's (and loopback) |
    | ``REMEMBER_HTTP_MAX_BODY`` | ``1048576`` bytes |
    | ``REMEMBER_HTTP_RATE_LIMIT`` | ``600`` requests per minute per token (``0``: none) |
    | ``REMEMBER_MAX_RESULT_BYTES`` | ``2097152`` |
    | ``REMEMBER_CALL_TIMEOUT`` | ``60`` seconds |
    | ``REMEMBER_OAUTH_ISSUER``, ``REMEMBER_OAUTH_JWKS_URL`` | unset (an external issuer's) |
    | ``REMEMBER_OAUTH_AUDIENCE``, ``REMEMBER_OAUTH_USER_CLAIM`` | the public URL's ``/mcp``, ``sub`` |
    | ``REMEMBER_OAUTH_SERVER`` | ``0`` (``1``: the built-in authorization server) |
    | ``REMEMBER_OAUTH_CLIENT_DOCUMENTS`` | ``public`` (client documents from public addresses; ``any``, ``off``) |
    """

    host: str = "127.0.0.1"
    port: int = 8765
    public_url: str | None = None
    allowed_hosts: tuple[str, ...] = ()
    allowed_origins: tuple[str, ...] = ()
    max_body: int = 1024 * 1024
    rate_limit: int = 600
    max_result_bytes: int = 2 * 1024 * 1024
    call_timeout: float = 60.0
    oauth_issuer: str | None = None
    oauth_jwks_url: str | None = None
    oauth_audience: str | None = None
    oauth_user_claim: str = "sub"
    oauth_server: bool = False
    oauth_client_documents: str = "public"

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> HttpSettings:
        return cls(
            host=env.get("REMEMBER_HTTP_HOST") or "127.0.0.1",
            port=int(_number(env, "REMEMBER_HTTP_PORT", 8765, 0, 65535, whole=True)),
            public_url=(env.get("REMEMBER_PUBLIC_URL") or "").rstrip("/") or None,
            allowed_hosts=_words(env.get("REMEMBER_HTTP_ALLOWED_HOSTS")),
            allowed_origins=_words(env.get("REMEMBER_HTTP_ALLOWED_ORIGINS")),
            max_body=int(_number(env, "REMEMBER_HTTP_MAX_BODY", 1024 * 1024, 1024, 1 << 30, whole=True)),
            rate_limit=int(_number(env, "REMEMBER_HTTP_RATE_LIMIT", 600, 0, 1_000_000, whole=True)),
            max_result_bytes=int(_number(env, "REMEMBER_MAX_RESULT_BYTES", 2 * 1024 * 1024, 1024, 1 << 30, whole=True)),
            call_timeout=_number(env, "REMEMBER_CALL_TIMEOUT", 60.0, 0.1, 86400.0),
            oauth_issuer=env.get("REMEMBER_OAUTH_ISSUER") or None,
            oauth_jwks_url=env.get("REMEMBER_OAUTH_JWKS_URL") or None,
            oauth_audience=env.get("REMEMBER_OAUTH_AUDIENCE") or None,
            oauth_user_claim=env.get("REMEMBER_OAUTH_USER_CLAIM") or "sub",
            oauth_server=(env.get("REMEMBER_OAUTH_SERVER") or "0").lower() in ("1", "true", "yes", "on"),
            oauth_client_documents=_client_documents(env.get("REMEMBER_OAUTH_CLIENT_DOCUMENTS")),
        )

    def with_address(self, host: str | None, port: int | None) -> HttpSettings:
        """These settings with the flags' host and port (either may be None: kept)."""
        from dataclasses import replace

        return replace(self, host=host or self.host, port=self.port if port is None else port)

    @property
    def base_url(self) -> str:
        """The URL clients reach the server at (its public URL, or the address it listens on)."""
        if self.public_url:
            return self.public_url
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    @property
    def on_loopback(self) -> bool:
        return is_loopback(self.host)


def is_loopback(host: str) -> bool:
    import ipaddress

    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _index_min(env: Mapping[str, str], name: str, default: int, otherwise: str) -> int | None:
    """REMEMBER_VECTOR_INDEX_MIN or REMEMBER_KEYWORD_INDEX_MIN: a whole number of memories (1,000 or more),
    or ``off`` (None: ``otherwise`` for everyone)."""
    raw = env.get(name, "")
    if raw.strip().lower() == "off":
        return None
    try:
        return int(_number(env, name, default, 1_000, 10**9, whole=True))
    except ConfigError as exc:
        raise ConfigError(f"{exc.message.removesuffix('.')}, or off ({otherwise} for everyone).") from None


def _number(
    env: Mapping[str, str], name: str, default: float, low: float, high: float, *, whole: bool = False
) -> float:
    raw = env.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = int(raw) if whole else float(raw)
    except ValueError:
        value = None
    if value is None or not low <= value <= high:
        kind = "a whole number" if whole else "a number"
        raise ConfigError(f"{name}={raw!r} is not usable: give {kind} from {low:g} to {high:g}.")
    return value


CLIENT_DOCUMENT_POLICIES = ("public", "any", "off")


def _client_documents(raw: str | None) -> str:
    given = (raw or "public").strip().lower()
    if given not in CLIENT_DOCUMENT_POLICIES:
        raise ConfigError(
            f"REMEMBER_OAUTH_CLIENT_DOCUMENTS={excerpt(raw or '')} is not a policy: use public (fetch client "
            "metadata documents from public addresses only), any (also private networks) or off."
        )
    return given


def _words(raw: str | None) -> tuple[str, ...]:
    return tuple(w for w in (raw or "").replace(",", " ").split() if w)


def check_user_id(user: str) -> str:
    if not USER_ID.match(user):
        raise ConfigError(
            f"User id {excerpt(user)} is not usable: use 1-128 letters, digits or . _ @ + - "
            "(starting with a letter or digit), e.g. --user alice or REMEMBER_USER=alice."
        )
    return user


def _log_level(value: str) -> str:
    level = value.upper()
    if level not in LOG_LEVELS:
        raise ConfigError(f"REMEMBER_LOG_LEVEL={excerpt(value)} is not a level; use one of {', '.join(LOG_LEVELS)}.")
    return level


def _platform_home() -> str:
    from platformdirs import user_data_dir

    return user_data_dir("remember", appauthor=False)
