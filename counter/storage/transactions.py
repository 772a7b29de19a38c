"""Write transactions: each change is one transaction that takes the write lock up front.

A refusal rolls the transaction back, so a refused request changes nothing. A
write that cannot get the database's lock in time, or that the database ends to break a
deadlock, is a :class:`~counter.game.refusals.Busy` refusal (503 with Retry-After), never an
error page.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import ParamSpec, TypeVar

from sqlalchemy.exc import OperationalError

from counter.game.refusals import N_, Busy
from counter.storage import push
from counter.storage.models import WRITE, db

P = ParamSpec("P")
R = TypeVar("R")


BUSY = N_("The counter is busy with another write; nothing was changed. Try again.")


def writes(service: Callable[P, R]) -> Callable[P, R]:
    """Run a service in a write transaction; a refusal rolls back, so it changes nothing.

    The write's announcements to live pages go out once it is over
    (:func:`counter.storage.push.after_writing`): a Redis slow to answer never holds up the
    next write."""

    @functools.wraps(service)
    def run(*args: P.args, **kwargs: P.kwargs) -> R:
        with push.after_writing():
            try:
                begin_write()
                return service(*args, **kwargs)
            except OperationalError as error:
                db.session.rollback()
                if _lock_timeout(error):
                    raise Busy(BUSY) from error
                raise
            except BaseException:
                db.session.rollback()
                raise

    return run


def begin_write() -> None:
    """Start a fresh transaction that may write; on SQLite it waits for the write lock now."""
    db.session.rollback()  # end any read transaction, whose snapshot may be stale
    db.session.connection(execution_options=WRITE)


def _lock_timeout(error: OperationalError) -> bool:
    """A lock not had in time, or a deadlock that the database ended this write to break:
    the database answers, it is busy."""
    message = str(error.orig).lower()
    return any(cause in message for cause in ("database is locked", "lock timeout", "deadlock"))
