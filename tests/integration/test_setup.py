"""Start-up: the app as the environment configures it, its database created and migrated
on the first start, and the migrations. (The settings alone: tests/unit/test_config.py.)"""

from __future__ import annotations

import sqlite3
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from flask import Flask
from flask_migrate import downgrade, upgrade

from counter import create_app
from counter.storage import migrating
from counter.storage.models import db


def test_the_environment_sets_the_database_and_the_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SANTASE_DATABASE_URL", f"sqlite:///{tmp_path / 'env.sqlite'}")
    monkeypatch.setenv("SANTASE_SECRET_KEY", "a-key-from-the-environment")
    app = create_app()
    assert app.config["SQLALCHEMY_DATABASE_URI"] == f"sqlite:///{tmp_path / 'env.sqlite'}"
    assert app.config["SECRET_KEY"] == "a-key-from-the-environment"
    assert (tmp_path / "env.sqlite").exists()  # migrated on start


def test_the_old_names_are_read_for_one_more_release_and_said_to_be_old(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path / 'old.sqlite'}")
    monkeypatch.setenv("FLASK_SECRET_KEY", "a-key-by-its-old-name")
    app = create_app()
    assert app.config["SQLALCHEMY_DATABASE_URI"] == f"sqlite:///{tmp_path / 'old.sqlite'}"
    assert app.config["SECRET_KEY"] == "a-key-by-its-old-name"
    assert "FLASK_SECRET_KEY is an old name: call it SANTASE_SECRET_KEY" in caplog.text
    assert "DATABASE_URL is an old name: call it SANTASE_DATABASE_URL" in caplog.text


def test_the_new_names_win_over_the_old(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DATABASE_URL", "sqlite:///ignored.sqlite")
    monkeypatch.setenv("SANTASE_DATABASE_URL", f"sqlite:///{tmp_path / 'new.sqlite'}")
    app = create_app()
    assert app.config["SQLALCHEMY_DATABASE_URI"] == f"sqlite:///{tmp_path / 'new.sqlite'}"


def test_the_server_creates_its_database_on_first_start(tmp_path: Path) -> None:
    path = tmp_path / "fresh.sqlite"
    app = create_app({"SECRET_KEY": "k" * 32, "SQLALCHEMY_DATABASE_URI": f"sqlite:///{path}"})
    response = app.test_client().post("/api/matches", json={})
    assert response.status_code == 201
    tables = {row[0] for row in sqlite3.connect(path).execute("SELECT name FROM sqlite_master")}
    assert {"match", "deal", "alembic_version"} <= tables


def test_the_database_file_the_server_creates_is_its_owners_alone(tmp_path: Path) -> None:
    """As the secret key is: it holds the players' names (and its log, a copy of them)."""
    path = tmp_path / "private.sqlite"
    app = create_app({"SECRET_KEY": "k" * 32, "SQLALCHEMY_DATABASE_URI": f"sqlite:///{path}"})
    assert app.test_client().post("/api/matches", json={}).status_code == 201
    files = [path, path.with_name(f"{path.name}-wal"), path.with_name(f"{path.name}-shm")]
    assert {file.name: stat.S_IMODE(file.stat().st_mode) for file in files} == {
        file.name: 0o600 for file in files
    }


@pytest.mark.slow  # a Python of its own, which imports and starts the whole app
def test_a_server_that_migrates_on_start_never_loads_alembic(tmp_path: Path) -> None:
    """Alembic stays in the process that migrated, not in every worker for its whole life."""
    path = tmp_path / "lean.sqlite"
    script = f"""
import sys
from counter import create_app
app = create_app({{"SECRET_KEY": "k" * 32, "SQLALCHEMY_DATABASE_URI": "sqlite:///{path}"}})
assert app.test_client().post("/api/matches", json={{}}).status_code == 201
print(sorted(name for name in sys.modules if name.split(".")[0] in ("alembic", "flask_migrate")))
"""
    started = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    assert started.stdout.strip() == "[]"


def test_a_failed_migration_stops_the_start_with_its_reason(tmp_path: Path) -> None:
    (tmp_path / "not-a-database.sqlite").write_text("this is not SQLite")
    url = f"sqlite:///{tmp_path / 'not-a-database.sqlite'}"
    with pytest.raises(RuntimeError, match="Migrating the database failed"):
        create_app({"SECRET_KEY": "k" * 32, "SQLALCHEMY_DATABASE_URI": url})


def test_sqlite_runs_in_wal_mode_with_a_busy_timeout(tmp_path: Path) -> None:
    app = create_app({"SECRET_KEY": "k" * 32, "SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp_path}/w"})
    with app.app_context():
        connection = db.session.connection()
        mode = connection.exec_driver_sql("PRAGMA journal_mode").scalar()
        timeout = connection.exec_driver_sql("PRAGMA busy_timeout").scalar()
    assert (mode, timeout) == ("wal", 5000)


def test_the_migrations_build_exactly_the_models(app: Flask) -> None:
    with app.app_context(), db.engine.connect() as connection:
        differences = compare_metadata(MigrationContext.configure(connection), db.metadata)
    assert differences == []


def test_the_migrations_go_down_and_up_again(tmp_path: Path) -> None:
    path = tmp_path / "roundtrip.sqlite"
    app = create_app({"SECRET_KEY": "k" * 32, "SQLALCHEMY_DATABASE_URI": f"sqlite:///{path}"})
    migrating.register(app)
    with app.app_context():
        downgrade(revision="base")
        db.engine.dispose()
        upgrade()
        db.engine.dispose()
    assert app.test_client().post("/api/matches", json={}).status_code == 201
