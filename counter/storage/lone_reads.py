"""Reads of one statement that nearly every request makes first, run straight on a pooled
connection: which device is asking, and which version of its match a page would show.

Through the ORM session such a read cost about ten times its SQL: a transaction begun
(SQLite's ``BEGIN``), the session's bookkeeping, the row's types, and a rollback when the
request ends. One statement needs none of that: on its own it sees the database as of
one moment, on SQLite (no transaction open: it reads and is done) as on PostgreSQL (in
autocommit: one round trip, nothing left to roll back). So these run their statement,
compiled once per database, on a connection of the engine's pool, with its values as
given and its row as the driver gives it.

The row's values are the driver's, not the ORM's: an SQLite time is its text (see
:func:`moment`). They are for looking things up and comparing, not for showing. A
database that does not answer raises as the session would (``OperationalError``: a
503, try again), and a connection it dropped is not given out again.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import datetime
from typing import Any

from sqlalchemy import Select, exc
from sqlalchemy.engine import Dialect
from sqlalchemy.pool import PoolProxiedConnection

from counter.storage.models import db


class LoneRead:
    """One SELECT, built on first use by ``build`` and compiled once per database."""

    def __init__(self, build: Callable[[], Select[*tuple[Any, ...]]]) -> None:
        self._build = build
        self._compiled: dict[str, tuple[str, tuple[str, ...] | None, dict[str, Any]]] = {}
        self._lock = threading.Lock()

    def first(self, **values: str | int) -> tuple[Any, ...] | None:
        """The statement's first row with these values (strings and numbers only), or None."""
        engine = db.engine
        dialect = engine.dialect
        sql, parameters = self._sql_for(dialect, values)
        try:
            connection = engine.raw_connection()
        except dialect.loaded_dbapi.Error as error:  # no connection could be made
            raise _as_sqlalchemy(error, sql, parameters, dialect, dropped=True) from error
        try:
            return _first_row(connection, sql, parameters, autocommit=dialect.name == "postgresql")
        except dialect.loaded_dbapi.Error as error:
            dropped = dialect.is_disconnect(error, connection, None)
            if dropped:
                connection.invalidate(error)  # never given out again
            raise _as_sqlalchemy(error, sql, parameters, dialect, dropped=dropped) from error
        finally:
            connection.close()

    def in_session(self, **values: str | int) -> tuple[Any, ...] | None:
        """The same row, read in the session's transaction (and so in its snapshot, with
        the reads before and after it), with the values as the driver gives them."""
        sql, parameters = self._sql_for(db.engine.dialect, values)
        row = db.session.connection().exec_driver_sql(sql, parameters).first()
        return None if row is None else tuple(row)

    def _sql_for(self, dialect: Dialect, values: dict[str, str | int]) -> tuple[str, Any]:
        """The statement's SQL for this database, and its values as the driver takes them:
        by position (SQLite's ``?``) or by name (PostgreSQL's), with those the statement
        holds itself."""
        found = self._compiled.get(dialect.name)
        if found is None:
            with self._lock:
                compiled = self._build().compile(dialect=dialect)
                order = compiled.positiontup
                own = dict(compiled.construct_params(_check=False))
                found = (str(compiled), None if order is None else tuple(order), own)
                self._compiled[dialect.name] = found
        sql, by_position, own = found
        every = {**own, **values}
        return sql, every if by_position is None else tuple(every[name] for name in by_position)


def _first_row(
    connection: PoolProxiedConnection, sql: str, parameters: Any, *, autocommit: bool
) -> tuple[Any, ...] | None:
    """The first row of ``sql``; ``autocommit`` for the time of it (PostgreSQL's driver
    would otherwise open a transaction that the pool then rolls back)."""
    driver: Any = connection.driver_connection
    if autocommit:
        driver.autocommit = True
    try:
        cursor = connection.cursor()
        cursor.execute(sql, parameters)
        row = cursor.fetchone()
        cursor.close()
    finally:
        if autocommit and not driver.closed:
            driver.autocommit = False
    return None if row is None else tuple(row)


def _as_sqlalchemy(
    error: Exception, sql: str, parameters: Any, dialect: Dialect, *, dropped: bool
) -> exc.StatementError:
    """The driver's error as the session would raise it (``OperationalError``: a 503)."""
    return exc.DBAPIError.instance(
        sql,
        parameters,
        error,
        dialect.loaded_dbapi.Error,
        hide_parameters=True,
        dialect=dialect,
        connection_invalidated=dropped,
    )


def moment(value: datetime | str) -> datetime:
    """A time as a lone read gives it (SQLite: its text) as the time it is."""
    return value if isinstance(value, datetime) else datetime.fromisoformat(value)
