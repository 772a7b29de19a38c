"""Fixtures: a fresh app and database per test, and browsers (test clients) to drive it.

SQLite by default: the migrations run once into a template file that each
test copies. With TEST_DATABASE_URL set (PostgreSQL), the migrations run once
on that database and every test starts from empty tables.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient
from flask_migrate import upgrade
from jinja2 import BytecodeCache
from jinja2.bccache import Bucket
from redis.connection import parse_url
from sqlalchemy import text
from sqlalchemy.exc import OperationalError

from counter import create_app
from counter.storage import migrating, push
from counter.storage.models import db

TEST_DATABASE_URL = os.environ.get("TEST_DATABASE_URL")
# The Redis of every test that needs one. Never database 0, where a Redis on this computer
# keeps what is not the tests' (resetting the limits empties every count of the database
# it is in); and a run beside another (CI runs the SQLite and the PostgreSQL suites at
# once, the PostgreSQL one on database 1) names a database number of its own.
TEST_REDIS_URL = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/15")
SECRET = "test-secret-key-that-is-long-enough"


class CompiledTemplates(BytecodeCache):
    """Templates compiled once for the whole run, not once per test's app.

    Each test builds an app of its own, and each app's Jinja environment would compile the
    same templates again (most of a page test's time). A changed template has another
    checksum, so it is compiled anew.
    """

    def __init__(self) -> None:
        self.compiled: dict[str, bytes] = {}

    def load_bytecode(self, bucket: Bucket) -> None:
        if bucket.key in self.compiled:
            bucket.bytecode_from_string(self.compiled[bucket.key])

    def dump_bytecode(self, bucket: Bucket) -> None:
        self.compiled[bucket.key] = bucket.bytecode_to_string()


COMPILED_TEMPLATES = CompiledTemplates()


def pytest_configure(config: pytest.Config) -> None:
    """Refuse a TEST_REDIS_URL on database 0 before any test counts or resets there."""
    if not parse_url(TEST_REDIS_URL).get("db"):
        raise pytest.UsageError(
            f"TEST_REDIS_URL={TEST_REDIS_URL} is Redis database 0; name another, "
            "e.g. redis://127.0.0.1:6379/15"
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


def empty_tables() -> None:
    """Delete every row of every table of the app in context, children first."""
    for table in reversed(db.metadata.sorted_tables):
        db.session.execute(table.delete())
    db.session.commit()


def make_app(database_url: str, **settings: object) -> Flask:
    """The app on ``database_url``; rate limits are off unless a test turns them on."""
    app = create_app(
        {
            "TESTING": True,
            "SECRET_KEY": SECRET,
            "SQLALCHEMY_DATABASE_URI": database_url,
            "AUTO_MIGRATE": False,
            "RATELIMIT_ENABLED": False,
            **settings,
        }
    )
    app.jinja_env.bytecode_cache = COMPILED_TEMPLATES
    migrating.register(app)  # the tests migrate, and go down and up again, in process
    return app


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


def stop_app(app: Flask) -> None:
    """End what an app holds once its test is over: its live streams first (a stream
    left open would reach the database at its next heartbeat, through a pool that
    nobody closes again), then the rows of a shared database, then its connections."""
    with app.app_context():
        push.hub().close(wait_s=5)
        if TEST_DATABASE_URL:  # a shared database: the next test starts empty
            empty_tables()
        db.session.remove()
        db.engine.dispose()


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    """One browser: its own cookie jar."""
    return app.test_client()


@pytest.fixture
def other_client(app: Flask) -> FlaskClient:
    """A second browser on the same server."""
    return app.test_client()
