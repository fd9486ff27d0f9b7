from __future__ import annotations

from pathlib import Path

import pytest

from remember.config import KEYWORD_INDEX_MIN, VECTOR_INDEX_MIN, Settings
from remember.errors import ConfigError


def test_defaults_put_the_database_under_home(tmp_path: Path) -> None:
    s = Settings.from_env({"REMEMBER_HOME": str(tmp_path)})
    assert s.database_url == f"sqlite:///{tmp_path / 'remember.db'}"
    assert s.user == "local"


def test_platform_home_is_used_without_remember_home() -> None:
    s = Settings.from_env({})
    assert "remember" in str(s.home)


def test_flags_beat_environment(tmp_path: Path) -> None:
    env = {"REMEMBER_USER": "alice", "REMEMBER_DATABASE_URL": "sqlite:///a.db"}
    s = Settings.from_env(env, user="bob", database_url="sqlite:///b.db")
    assert (s.user, s.database_url) == ("bob", "sqlite:///b.db")
    assert Settings.from_env(env).user == "alice"


@pytest.mark.parametrize("user", ["", "-x", "a b", "x" * 129, "../etc", "al\nice"])
def test_bad_user_ids_are_refused(user: str) -> None:
    with pytest.raises(ConfigError, match="--user"):
        Settings.from_env({"REMEMBER_USER": user} if user else {}, user=user or " ")


def test_bad_log_level_is_refused() -> None:
    with pytest.raises(ConfigError, match="REMEMBER_LOG_LEVEL"):
        Settings.from_env({"REMEMBER_LOG_LEVEL": "loud"})


@pytest.mark.parametrize("user", ["", "  "])
def test_an_empty_user_flag_is_refused_not_replaced(tmp_path: Path, user: str) -> None:
    with pytest.raises(ConfigError, match="--user was given an empty user id"):
        Settings.from_env({"REMEMBER_HOME": str(tmp_path), "REMEMBER_USER": "bob"}, user=user)


def test_an_empty_database_flag_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="--db was given an empty database URL"):
        Settings.from_env({"REMEMBER_HOME": str(tmp_path)}, database_url="")


def test_the_approximate_vector_index_serves_large_users_unless_turned_off(tmp_path: Path) -> None:
    assert Settings.from_env({"REMEMBER_HOME": str(tmp_path)}).vector_index_min == VECTOR_INDEX_MIN == 50_000
    asked = Settings.from_env({"REMEMBER_HOME": str(tmp_path), "REMEMBER_VECTOR_INDEX_MIN": "200000"})
    assert asked.vector_index_min == 200_000
    for off in ("off", " OFF "):
        assert (
            Settings.from_env({"REMEMBER_HOME": str(tmp_path), "REMEMBER_VECTOR_INDEX_MIN": off}).vector_index_min
            is None
        )


@pytest.mark.parametrize("value", ["lots", "10", "2.5", "-1"])
def test_a_bad_vector_index_minimum_says_what_to_give(tmp_path: Path, value: str) -> None:
    with pytest.raises(ConfigError, match=r"REMEMBER_VECTOR_INDEX_MIN=.*a whole number from 1000 .*, or off"):
        Settings.from_env({"REMEMBER_HOME": str(tmp_path), "REMEMBER_VECTOR_INDEX_MIN": value})
    with pytest.raises(
        ConfigError,
        match=r"REMEMBER_KEYWORD_INDEX_MIN=.*from 1000 .*, or off \(the database.s own keyword search for everyone\)",
    ):
        Settings.from_env({"REMEMBER_HOME": str(tmp_path), "REMEMBER_KEYWORD_INDEX_MIN": value})


def test_the_ranked_keyword_index_serves_large_users_unless_turned_off(tmp_path: Path) -> None:
    assert Settings.from_env({"REMEMBER_HOME": str(tmp_path)}).keyword_index_min == KEYWORD_INDEX_MIN == 50_000
    env = {"REMEMBER_HOME": str(tmp_path), "REMEMBER_KEYWORD_INDEX_MIN": "120000"}
    assert Settings.from_env(env).keyword_index_min == 120_000
    assert Settings.from_env(env | {"REMEMBER_KEYWORD_INDEX_MIN": "off"}).keyword_index_min is None


def test_the_client_document_policy_is_one_of_three() -> None:
    from remember.config import HttpSettings

    assert HttpSettings.from_env({}).oauth_client_documents == "public"
    assert HttpSettings.from_env({"REMEMBER_OAUTH_CLIENT_DOCUMENTS": " Any "}).oauth_client_documents == "any"
    with pytest.raises(ConfigError, match=r"public .* any .* or off"):
        HttpSettings.from_env({"REMEMBER_OAUTH_CLIENT_DOCUMENTS": "everywhere"})
