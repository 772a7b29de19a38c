"""What an erase leaves behind nowhere: on SQLite, neither the database file nor its log.

Every connection runs with ``secure_delete`` on (:func:`counter.storage.models.tune_engine`),
so that SQLite overwrites with zeros what it deletes instead of leaving it in
free space. Its write-ahead log still holds whole copies of the pages as they
were written; after an erase the log is written into the database and emptied.
PostgreSQL keeps deleted rows until its autovacuum reclaims them.
"""

from __future__ import annotations

from counter.storage.models import db


def empty_the_log() -> None:
    """On SQLite, copy the write-ahead log into the database and cut it to nothing."""
    if db.engine.dialect.name != "sqlite":
        return
    raw = db.engine.raw_connection()
    try:
        # Outside any transaction (the connection is in autocommit): a checkpoint within
        # one could not reach the end of the log.
        raw.driver_connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # type: ignore[union-attr]
    finally:
        raw.close()
