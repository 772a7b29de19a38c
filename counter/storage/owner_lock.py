"""One writer at a time per browser key, for the writes that a per-browser cap bounds.

A cap (matches, deals) is counted and then added to inside one transaction; two
such transactions for one key at once would each count the same total and
together go past it. On SQLite every write transaction already begins with
``BEGIN IMMEDIATE`` (:data:`counter.storage.models.WRITE`), which lets one writer in at a
time. On PostgreSQL the transaction takes an advisory lock on a number made
from the key, held until it commits or rolls back.
"""

from __future__ import annotations

import hashlib

from sqlalchemy import func, select

from counter.storage.models import db


def _lock_number(owner: str) -> int:
    """A signed 64-bit number for ``owner``: PostgreSQL's advisory locks are numbered."""
    digest = hashlib.sha256(owner.encode("utf-8", "replace")).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


def lock_owners(*owners: str) -> None:
    """Wait until no other transaction writes for these keys; held until this one ends.

    Keys are locked in one order, so two transactions that lock the same two keys
    never wait for each other.
    """
    if db.session.get_bind().dialect.name != "postgresql":
        return  # SQLite: the transaction holds the database's only write lock already
    for number in sorted({_lock_number(owner) for owner in owners}):
        db.session.execute(select(func.pg_advisory_xact_lock(number)))
