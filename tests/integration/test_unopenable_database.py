"""An SQLite file that cannot be opened is a database gone: a write waits, with Retry-After,
and a page is a 503 page, as when PostgreSQL is cut off (tests/deploy/test_dependencies.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask

from counter.storage.models import db
from counter.web.browser import SESSION_DEVICE

from apps import make_app

NOT_ANSWERING = "The counter's database is not answering just now; try again in a moment."


@pytest.fixture
def unopenable(tmp_path: Path) -> Iterator[Flask]:
    """The app on an SQLite file in a folder that does not exist."""
    app = make_app(f"sqlite:///{tmp_path / 'gone' / 'counter.sqlite'}")
    yield app
    with app.app_context():
        db.engine.dispose()


def test_a_write_to_a_database_file_that_cannot_be_opened_waits_with_retry_after(
    unopenable: Flask,
) -> None:
    response = unopenable.test_client().post("/api/matches", json={})
    assert response.status_code == 503
    assert response.headers["Retry-After"] == "2"
    assert response.json == {"error": NOT_ANSWERING}


def test_a_page_from_a_database_file_that_cannot_be_opened_is_a_503_page(
    unopenable: Flask,
) -> None:
    browser = unopenable.test_client()
    with browser.session_transaction() as session:  # a browser that has played before
        session[SESSION_DEVICE] = "d" * 32
    response = browser.get("/")
    assert response.status_code == 503
    assert "database is not answering just now" in response.get_data(as_text=True)
