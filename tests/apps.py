"""The app each test builds: on the test database (SQLite, or TEST_DATABASE_URL) and the test
Redis, made, emptied and stopped the same way everywhere (tests/conftest.py's fixtures too)."""

from __future__ import annotations

import os

from flask import Flask
from jinja2 import BytecodeCache
from jinja2.bccache import Bucket

from counter import create_app
from counter.storage import migrating, push
from counter.storage.models import db

TEST_DATABASE_URL = os.environ.get("TEST_DATABASE_URL")
# The Redis of every test that needs one. Never database 0, where a Redis on this computer
# keeps what is not the tests' (resetting the limits empties every count of the database
# it is in); and a run beside another (CI runs the SQLite and the PostgreSQL suites at
# once, the PostgreSQL one on database 1) names a database number of its own. Under
# pytest-xdist, worker gwK takes the K-th database below the one named.
_REDIS_URL = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/15")
_WORKER = int(os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw"))
_BASE, _, _DB = _REDIS_URL.rpartition("/")
TEST_REDIS_URL = f"{_BASE}/{int(_DB) - _WORKER}" if _DB.isdigit() else _REDIS_URL
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
