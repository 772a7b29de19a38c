"""Writers to one SQLite file take turns, instead of waiting in SQLite's busy handler.

SQLite lets one writer in at a time; a writer that finds the lock taken sleeps and
tries again, a little longer each time (1, 2, 5, 10 … 100 ms). While it sleeps, a
busy process takes the lock again and again, so under load some writes wait a
hundred times longer than the others (the benchmark's p99). Here a write first
waits for its turn: among the threads of a process on a lock, between processes on
an advisory lock of a file beside the database (``flock``, looked at every 0.2 ms), so
a waiting write goes in as soon as the lock is free, with no long sleep to miss it in.
Neither is strictly first come, first served, but no writer sleeps while others take
turns. SQLite's own lock stays what keeps the data safe: the turn only orders the
writers before they ask for it. A turn that does not come within the lock timeout is
refused as busy (503, try again), as SQLite's lock was.

PostgreSQL locks rows, and orders its own waiters: no turn there.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import Engine

try:
    import fcntl
except ImportError:  # Windows: one local process, and SQLite's own lock
    fcntl = None  # type: ignore[assignment]

POLL_S = 0.0002  # how often a process looks whether another process's turn is over


class NoTurn(Exception):
    """The turn did not come within the time given: the writers before hold it too long."""


class Turn:
    """The turn to write to one SQLite file, for the threads of this process."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._threads = threading.Lock()
        self._holder = threading.local()

    @contextmanager
    def taken(self, timeout_s: float) -> Iterator[None]:
        """Hold the turn (again, for a write inside a write of the same thread); NoTurn if
        it does not come within ``timeout_s``."""
        if getattr(self._holder, "depth", 0):
            self._holder.depth += 1
            try:
                yield
            finally:
                self._holder.depth -= 1
            return
        ends = time.monotonic() + timeout_s
        if not self._threads.acquire(timeout=timeout_s):
            raise NoTurn
        descriptor = None
        try:
            descriptor = _file_turn(self.path, ends)
            self._holder.depth = 1
            yield
        finally:
            self._holder.depth = 0
            if descriptor is not None:
                os.close(descriptor)  # and with it the file's lock
            self._threads.release()


def _file_turn(path: str, ends: float) -> int | None:
    """The file's lock, waited for until ``ends`` (NoTurn after); None if the file cannot
    be locked at all (a file system without locks): SQLite's own lock then orders the
    writers, as it would without turns."""
    try:
        descriptor = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError:
        return None
    while True:
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return descriptor
        except BlockingIOError:
            if time.monotonic() < ends:
                time.sleep(POLL_S)
                continue
            os.close(descriptor)
            raise NoTurn from None
        except OSError:  # a file system without locks
            os.close(descriptor)
            return None
        except BaseException:
            os.close(descriptor)
            raise


_turns: dict[str, Turn] = {}
_made = threading.Lock()


def turn_of(engine: Engine) -> Turn | None:
    """The turn of this engine's SQLite file; None for PostgreSQL or a database in memory."""
    database = engine.url.database
    if engine.dialect.name != "sqlite" or not database or database == ":memory:" or fcntl is None:
        return None
    with _made:
        return _turns.setdefault(database, Turn(f"{os.path.abspath(database)}-turn"))
