"""Alembic's entry point, run by Flask-Migrate with the app's own engine and models."""

from __future__ import annotations

from alembic import context
from flask import current_app
from sqlalchemy import Connection, text

from counter.storage.models import OUTSIDE_TRANSACTIONS, db

LOCK_KEY = 6_606_066  # any constant shared by every app server

config = context.config
# Logging is left to the app (gunicorn, flask run); alembic.ini's logging
# section would otherwise switch off the loggers already set up.


def run_migrations_offline() -> None:
    """Print the SQL instead of running it (``flask db upgrade --sql``)."""
    context.configure(
        url=db.engine.url.render_as_string(hide_password=False),
        target_metadata=db.metadata,
        literal_binds=True,
        render_as_batch=True,
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    configure_args = current_app.extensions["migrate"].configure_args
    with db.engine.connect() as connection:
        sqlite = connection.dialect.name == "sqlite"
        if sqlite:
            # SQLite alters a table by copying it and dropping the original; with
            # foreign keys on, dropping `match` would cascade and delete every deal.
            _sqlite_pragma(connection, "foreign_keys=OFF")
        context.configure(
            connection=connection,
            target_metadata=db.metadata,
            **configure_args,  # Flask-Migrate's: batch mode for SQLite, compare types
        )
        with context.begin_transaction():
            if connection.dialect.name == "postgresql":
                # App servers starting together wait here for the first to finish.
                connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": LOCK_KEY})
            context.run_migrations()
        if sqlite:
            broken = connection.exec_driver_sql("PRAGMA foreign_key_check").fetchall()
            connection.commit()
            _sqlite_pragma(connection, "foreign_keys=ON")
            if broken:
                raise RuntimeError(f"The migration left deals without a match: {broken}")


def _sqlite_pragma(connection: Connection, pragma: str) -> None:
    """Run a PRAGMA that does nothing inside a transaction, outside one."""
    connection.execution_options(**OUTSIDE_TRANSACTIONS)
    connection.exec_driver_sql(f"PRAGMA {pragma}")
    connection.commit()
    connection.execution_options(sqlite_begin="DEFERRED")


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
