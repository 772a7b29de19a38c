"""Write transactions: each change is one transaction that takes the write lock up front."""

import functools
from collections.abc import Callable
from typing import ParamSpec, TypeVar

from sqlalchemy.exc import OperationalError

from counter.game.refusals import N_, Busy
from counter.storage import push
from counter.storage.models import WRITE, db

P = ParamSpec("P")
R = TypeVar("R")
# A lock not had in time, or a deadlock the database ended this write to break.
LOCKED = ("database is locked", "lock timeout", "deadlock")
BUSY = N_("The counter is busy with another write; nothing was changed. Try again.")


def writes(service: Callable[P, R]) -> Callable[P, R]:
    """Run a service in a write transaction: a refusal rolls back, a lock not had is Busy (503)."""

    @functools.wraps(service)
    def run(*args: P.args, **kwargs: P.kwargs) -> R:
        with push.after_writing():
            try:
                begin_write()
                return service(*args, **kwargs)
            except OperationalError as error:
                db.session.rollback()
                if any(cause in str(error.orig).lower() for cause in LOCKED):
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
