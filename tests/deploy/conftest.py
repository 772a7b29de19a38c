"""Fixtures of the tests that start servers of their own (gunicorn, Caddy, redis-server)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from counter.storage.models import db

from apps import TEST_DATABASE_URL, empty_tables, make_app


@pytest.fixture
def database_url(tmp_path: Path) -> Iterator[str]:
    """The database a server of the test's own is to use: an SQLite file of the test's own,
    or TEST_DATABASE_URL, emptied afterwards."""
    url = TEST_DATABASE_URL or f"sqlite:///{tmp_path / 'fault.sqlite'}"
    yield url
    if TEST_DATABASE_URL:
        app = make_app(url)
        with app.app_context():
            empty_tables()
            db.engine.dispose()
