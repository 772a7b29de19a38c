"""Erase means erased: no copy of a browser's names, key or request ids stays in the SQLite
database's files (the database, its -wal and -shm)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient

from helpers import api_deal, api_start, key_of, privacy_form

pytestmark = pytest.mark.sqlite_files  # PostgreSQL's files are its own: conftest.py
NAMES = ["Zlatomira", "Радослава"]
REQUEST_IDS = ["erase-me-4f1c9a", "erase-me-77d0be"]


def database_file(app: Flask) -> Path:
    return Path(app.config["SQLALCHEMY_DATABASE_URI"].removeprefix("sqlite:///"))


def checkpoint(app: Flask) -> None:
    """Write the log into the database file, as SQLite does by itself every 1000 pages."""
    with sqlite3.connect(database_file(app)) as connection:
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")


def leftovers(app: Flask, secrets: list[str]) -> dict[str, list[str]]:
    """Which of ``secrets`` each of the database's files holds, as bytes anywhere in it."""
    database = database_file(app)
    found = {}
    for path in (database, Path(f"{database}-wal"), Path(f"{database}-shm")):
        content = path.read_bytes() if path.exists() else b""
        found[path.name] = [secret for secret in secrets if secret.encode() in content]
    return found


def play_and_remember(client: FlaskClient) -> list[str]:
    """Play a little, undo a deal (a request id in the spent table); what to look for."""
    match = api_start(client, players=NAMES, uid="e" * 32)
    for request_id in REQUEST_IDS:
        api_deal(client, match["id"], 1, "normal", request_id=request_id)
    client.delete(f"/api/matches/{match['id']}/deals/last")
    return [*NAMES, *REQUEST_IDS, str(key_of(client))]


def test_the_files_hold_a_browsers_data_before_the_erase(app: Flask, client: FlaskClient) -> None:
    secrets = play_and_remember(client)
    found = leftovers(app, secrets)["counter.sqlite-wal"]
    checkpoint(app)
    assert set(found) >= {*NAMES, REQUEST_IDS[0]}
    assert set(leftovers(app, secrets)["counter.sqlite"]) >= {*NAMES, REQUEST_IDS[0]}


def test_after_an_erase_no_file_of_the_database_holds_a_trace(
    app: Flask, client: FlaskClient
) -> None:
    secrets = play_and_remember(client)
    checkpoint(app)  # the data is in the database file as well as in the log
    other = app.test_client()  # and another browser's writes follow in the log
    api_deal(other, api_start(other)["id"], 2, "normal", request_id="someone-else")
    assert privacy_form(client, action="/privacy/erase", confirmed="1").status_code == 302
    assert leftovers(app, secrets) == {name: [] for name in leftovers(app, [])}
