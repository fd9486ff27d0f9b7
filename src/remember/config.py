"""Settings, read once from ``REMEMBER_*`` environment variables at an entry point.

| variable                   | default                                   |
|----------------------------|-------------------------------------------|
| ``REMEMBER_HOME``          | the platform's user data dir for remember |
| ``REMEMBER_DATABASE_URL``  | ``sqlite:///$REMEMBER_HOME/remember.db``  |
| ``REMEMBER_USER``          | ``local``                                 |
| ``REMEMBER_EMBEDDER``      | ``onnx`` (or ``openai``)                  |
| ``REMEMBER_EMBEDDER_MODEL``, ``REMEMBER_EMBEDDER_URL``, ``REMEMBER_EMBEDDER_API_KEY`` | unset |
| ``REMEMBER_LOG_LEVEL``     | ``WARNING``                               |
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from remember.errors import ConfigError, excerpt

DEFAULT_USER = "local"
USER_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._@+-]{0,127}$")
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
    log_level: str = "WARNING"

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
            log_level=_log_level(env.get("REMEMBER_LOG_LEVEL", "WARNING")),
        )


def _chosen_user(given: str | None, env: Mapping[str, str]) -> str:
    """The user asked for: ``--user`` when given (an empty one is refused, not replaced), else REMEMBER_USER."""
    if given is not None:
        if not given.strip():
            raise ConfigError("--user was given an empty user id; name a user, e.g. --user alice, or leave --user out.")
        return given
    return env.get("REMEMBER_USER") or DEFAULT_USER


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
