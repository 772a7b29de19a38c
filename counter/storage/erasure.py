"""An erase that leaves nothing behind on SQLite, in the database file or in its log."""

from __future__ import annotations

from counter.storage.models import db


def empty_the_log() -> None:
    """On SQLite, copy the write-ahead log (old pages that ``secure_delete`` did not zero) into
    the database and cut it to nothing."""
    if db.engine.dialect.name != "sqlite":
        return
    raw = db.engine.raw_connection()
    try:
        # In autocommit: a checkpoint inside a transaction could not reach the log's end.
        raw.driver_connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # type: ignore[union-attr]
    finally:
        raw.close()
