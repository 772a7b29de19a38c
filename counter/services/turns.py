"""Writers to one SQLite file take turns, in the order they come, instead of SQLite's
busy handler.

SQLite lets one writer in at a time; a writer that finds the lock taken sleeps and
tries again, a little longer each time (1, 2, 5, 10 … 100 ms). While it sleeps, a
busy process takes the lock again and again, so under load some writes wait a
hundred times longer than the others (the benchmark's p99). Here a write first
waits for its turn: among the threads of a process on a lock, between processes on
an advisory lock of a file beside the database (``flock``), which hands over as soon
as it is free. SQLite's own lock stays what keeps the data safe: the turn only
orders the writers before they ask for it, and a write that waits longer than the
lock timeout goes on to ask SQLite anyway (which then refuses it in time, as before).

PostgreSQL locks rows, and orders its own waiters: no turn there.
"""

from __future__ import annotations

import fcntl
import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import Engine

POLL_S = 0.0002  # how often a process looks whether another process's turn is over


class Turn:
    """The turn to write to one SQLite file, for the threads of this process."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._threads = threading.Lock()
        self._holder = threading.local()

    @contextmanager
    def taken(self, timeout_s: float) -> Iterator[None]:
        """Hold the turn (again, for a write inside a write of the same thread)."""
        if getattr(self._holder, "depth", 0):
            self._holder.depth += 1
            try:
                yield
            finally:
                self._holder.depth -= 1
            return
        ends = time.monotonic() + timeout_s
        threads = self._threads.acquire(timeout=timeout_s)
        descriptor = _file_turn(self.path, ends) if threads else None
        self._holder.depth = 1
        try:
            yield
        finally:
            self._holder.depth = 0
            if descriptor is not None:
                os.close(descriptor)  # and with it the file's lock
            if threads:
                self._threads.release()


def _file_turn(path: str, ends: float) -> int | None:
    """The file's lock, waited for until ``ends``; None if it did not come (or the file
    cannot be made: the write goes on to SQLite's own lock)."""
    try:
        descriptor = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError:
        return None
    while True:
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return descriptor
        except BlockingIOError:
            if time.monotonic() >= ends:
                os.close(descriptor)
                return None
            time.sleep(POLL_S)


_turns: dict[str, Turn] = {}
_made = threading.Lock()


def turn_of(engine: Engine) -> Turn | None:
    """The turn of this engine's SQLite file; None for PostgreSQL or a database in memory."""
    database = engine.url.database
    if engine.dialect.name != "sqlite" or not database or database == ":memory:":
        return None
    with _made:
        return _turns.setdefault(database, Turn(f"{os.path.abspath(database)}-turn"))
