"""Migrations, run in a process of their own so that no worker keeps Alembic (~15 MB)."""

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from flask import Flask
from sqlalchemy import Engine, text
from sqlalchemy.exc import SQLAlchemyError

from counter.storage.models import db

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None  # type: ignore[assignment]

MIGRATIONS_DIR = Path(__file__).resolve().parent / "migrations"
DATABASE_VARIABLE = "SANTASE_MIGRATE_DATABASE_URL"
TIMEOUT_S = 600


def register(app: Flask) -> None:
    from flask_migrate import Migrate

    Migrate(app, db, directory=str(MIGRATIONS_DIR))


def latest_revision() -> str:
    """The newest revision, without Alembic: file ``versions/NNNN_*.py`` is ``"NNNN"``."""
    return max(path.name[:4] for path in (MIGRATIONS_DIR / "versions").glob("[0-9]" * 4 + "_*.py"))


def up_to_date(engine: Engine) -> bool:
    try:
        with engine.connect() as connection:
            found = connection.execute(text("SELECT version_num FROM alembic_version")).all()
    except SQLAlchemyError:
        return False
    return [row[0] for row in found] == [latest_revision()]


def upgrade_in_own_process(url: str) -> None:
    finished = subprocess.run(
        [sys.executable, "-m", "counter.storage.migrating"],
        env={**os.environ, DATABASE_VARIABLE: url},  # not on a command line ps shows
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        check=False,
    )
    if finished.returncode != 0:
        raise RuntimeError(f"Migrating the database failed:\n{finished.stderr[-4000:]}")


@contextmanager
def _one_at_a_time(engine: Engine) -> Iterator[None]:
    """One worker at a time migrates an SQLite file (PostgreSQL: an advisory lock in env.py)."""
    path = engine.url.database
    if engine.dialect.name != "sqlite" or not path or path == ":memory:" or fcntl is None:
        yield
        return
    with open(f"{path}.migrate-lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # let go of as the file closes
        yield


def main() -> None:
    from flask_migrate import upgrade

    from counter import create_app

    url = os.environ[DATABASE_VARIABLE]
    settings = {"SQLALCHEMY_DATABASE_URI": url, "AUTO_MIGRATE": False, "SECRET_KEY": "migrating"}
    app = create_app(settings)
    register(app)
    with app.app_context(), _one_at_a_time(db.engine):
        upgrade()
        db.engine.dispose()


if __name__ == "__main__":
    main()
