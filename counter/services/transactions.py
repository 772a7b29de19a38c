"""Write transactions: each change is one transaction that takes the write lock up front.

A refusal rolls the transaction back, so a refused request changes nothing. A
write that cannot get the database's lock in time is a :class:`~counter.refusals.Busy`
refusal (503 with Retry-After), never an error page.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from typing import ParamSpec, TypeVar

from flask import current_app
from sqlalchemy.exc import OperationalError

from counter.models import WRITE, db
from counter.refusals import N_, Busy
from counter.services import turns

P = ParamSpec("P")
R = TypeVar("R")


def writes(service: Callable[P, R]) -> Callable[P, R]:
    """Run a service in a write transaction; a refusal rolls back, so it changes nothing."""

    @functools.wraps(service)
    def run(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            with _turn():
                begin_write()
                return service(*args, **kwargs)
        except OperationalError as error:
            db.session.rollback()
            if _lock_timeout(error):
                raise Busy(
                    N_("The counter is busy with another write; nothing was changed. Try again.")
                ) from error
            raise
        except BaseException:
            db.session.rollback()
            raise

    return run


def _turn() -> AbstractContextManager[None]:
    """This write's turn among the writers to the same SQLite file (see turns.py)."""
    turn = turns.turn_of(db.engine)
    if turn is None:
        return nullcontext()
    return turn.taken(current_app.config["WRITE_LOCK_TIMEOUT_MS"] / 1000)


def begin_write() -> None:
    """Start a fresh transaction that may write; on SQLite it waits for the write lock now."""
    db.session.rollback()  # end any read transaction, whose snapshot may be stale
    db.session.connection(execution_options=WRITE)


def _lock_timeout(error: OperationalError) -> bool:
    message = str(error.orig).lower()
    return "database is locked" in message or "lock timeout" in message
