"""An acknowledged deal survives a power cut: SQLite syncs the log at every commit, and the
benchmark's floor is held to the same setting."""

from __future__ import annotations

from pathlib import Path

import pytest

from counter import create_app
from counter.storage.models import db

FULL = 2  # what PRAGMA synchronous answers for FULL


def test_the_counter_syncs_every_commit_on_sqlite(tmp_path: Path) -> None:
    app = create_app({"SECRET_KEY": "k" * 32, "SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp_path}/d"})
    with app.app_context():
        synchronous = db.session.connection().exec_driver_sql("PRAGMA synchronous").scalar()
    assert synchronous == FULL


def test_the_benchmark_floor_syncs_every_commit_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from bench import floor

    monkeypatch.setenv("FLOOR_DATABASE_URL", f"sqlite:///{tmp_path}/floor.sqlite")
    app = floor.create_app()
    with app.app_context():
        connection = floor.db.session.connection()
        synchronous = connection.exec_driver_sql("PRAGMA synchronous").scalar()
        mode = connection.exec_driver_sql("PRAGMA journal_mode").scalar()
    assert (synchronous, mode) == (FULL, "wal")
