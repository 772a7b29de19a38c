"""The settings worked out from what the environment gives: the secret key, the database
URL and its engine's options, each setting's type (the app itself is built in
tests/integration/test_setup.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from counter.config import database_url, engine_options, from_environment, secret_key


def test_a_secret_key_is_generated_once_into_the_instance_folder(tmp_path: Path) -> None:
    first = secret_key(None, tmp_path)
    assert len(first) == 64
    assert secret_key(None, tmp_path) == first
    assert (tmp_path / "secret_key").stat().st_mode & 0o077 == 0


@pytest.mark.parametrize("placeholder", ["dev", "change-me", " secret ", ""])
def test_a_placeholder_secret_key_is_refused(tmp_path: Path, placeholder: str) -> None:
    with pytest.raises(RuntimeError, match="placeholder"):
        secret_key(placeholder, tmp_path)


@pytest.mark.parametrize(
    ("given", "used"),
    [
        ("postgres://u@h/db", "postgresql+psycopg://u@h/db"),
        ("postgresql://u@h/db", "postgresql+psycopg://u@h/db"),
        ("postgresql+psycopg://u@h/db", "postgresql+psycopg://u@h/db"),
        ("sqlite:///x.sqlite", "sqlite:///x.sqlite"),
    ],
)
def test_database_urls_are_sent_to_psycopg_3(given: str, used: str) -> None:
    assert database_url(given) == used


@pytest.mark.parametrize(("raw", "value"), [("1", 1), ("false", False), ("0.5", 0.5)])
def test_a_setting_whose_default_is_a_number_or_a_switch_is_read_as_one(
    raw: str, value: object
) -> None:
    settings, _old = from_environment({"SANTASE_LIVE_HEARTBEAT_S": raw}, {"LIVE_HEARTBEAT_S": 15})
    assert settings == {"LIVE_HEARTBEAT_S": value}


def test_what_the_flask_command_sets_is_no_old_name_of_ours() -> None:
    environ = {"FLASK_RUN_FROM_CLI": "true", "FLASK_APP": "counter", "FLASK_DEBUG": "1"}
    assert from_environment(environ, {}) == ({}, [])


def test_a_number_setting_that_is_no_number_is_refused() -> None:
    with pytest.raises(RuntimeError, match="SANTASE_TRUSTED_PROXIES is 'one'"):
        from_environment({"SANTASE_TRUSTED_PROXIES": "one"}, {"TRUSTED_PROXIES": 0})


def test_only_postgresql_gets_the_short_connect_timeout_and_the_pre_ping() -> None:
    assert engine_options("sqlite:///counter.sqlite", {}) == {"hide_parameters": True}
    assert engine_options("postgresql+psycopg://db.example/santase", {}) == {
        "hide_parameters": True,
        "connect_args": {"connect_timeout": 3},
        "pool_pre_ping": True,
    }
