"""Fixtures for every kind of test: a fresh app and database per test, and browsers (test
clients) to drive it. The app itself is made as tests/apps.py says.

SQLite by default: the migrations run once into a template file that each
test copies. With TEST_DATABASE_URL set (PostgreSQL), the migrations run once
on that database and every test starts from empty tables.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from flask_migrate import upgrade
from redis.connection import parse_url
from sqlalchemy import text
from sqlalchemy.exc import OperationalError

from counter.storage.models import db

from api_spec import read_spec
from apps import TEST_DATABASE_URL, TEST_REDIS_URL, make_app, stop_app


def pytest_configure(config: pytest.Config) -> None:
    """Refuse a TEST_REDIS_URL on database 0 before any test counts or resets there, and
    workers (pytest-xdist) sharing one PostgreSQL database."""
    if not parse_url(TEST_REDIS_URL).get("db"):
        raise pytest.UsageError(
            f"TEST_REDIS_URL={TEST_REDIS_URL} is Redis database 0; name another, "
            "e.g. redis://127.0.0.1:6379/15"
        )
    if TEST_DATABASE_URL and getattr(config.option, "numprocesses", None):
        raise pytest.UsageError(
            f"TEST_DATABASE_URL={TEST_DATABASE_URL} is one database for every test; "
            "run it without -n"
        )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """A run on PostgreSQL leaves out the tests of SQLite's own files (its data and log,
    the writers' turn beside it): they do not apply.

    Left out, not skipped: CI fails on any skip, so that a browser or a service that is
    missing can never pass for a run.
    """
    if not TEST_DATABASE_URL:
        return
    left_out = [item for item in items if item.get_closest_marker("sqlite_files")]
    if left_out:
        config.hook.pytest_deselected(items=left_out)
        items[:] = [item for item in items if item not in left_out]


@pytest.fixture(scope="session")
def migrated_database(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A database at the latest migration: a template file for SQLite, or TEST_DATABASE_URL."""
    if TEST_DATABASE_URL:
        url = TEST_DATABASE_URL
    else:
        url = f"sqlite:///{tmp_path_factory.mktemp('template') / 'template.sqlite'}"
    with make_app(url).app_context():
        try:
            db.session.execute(text("SELECT 1"))
        except OperationalError as error:
            db.engine.dispose()
            pytest.skip(
                f"TEST_DATABASE_URL={url} does not answer ({error.orig}); start that "
                "database, or unset TEST_DATABASE_URL to run on SQLite."
            )
        db.session.rollback()
        upgrade()
        db.engine.dispose()
    return url


@pytest.fixture
def app(migrated_database: str, tmp_path: Path) -> Iterator[Flask]:
    if TEST_DATABASE_URL:
        url = migrated_database
    else:
        copy = tmp_path / "counter.sqlite"
        shutil.copy(migrated_database.removeprefix("sqlite:///"), copy)
        url = f"sqlite:///{copy}"
    app = make_app(url)
    yield app
    stop_app(app)


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    """One browser: its own cookie jar."""
    return app.test_client()


@pytest.fixture
def other_client(app: Flask) -> FlaskClient:
    """A second browser on the same server."""
    return app.test_client()


@pytest.fixture(scope="session")
def spec() -> dict[str, Any]:
    """The OpenAPI file of the API, read once."""
    return read_spec()
