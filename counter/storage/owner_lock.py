"""One writer at a time per browser key, so that two writes cannot both pass a per-browser cap."""

import hashlib

from sqlalchemy import func, select

from counter.storage.models import db


def lock_owners(*owners: str) -> None:
    """Wait until no other transaction writes for these keys; in one order, so no deadlock."""
    if db.session.get_bind().dialect.name != "postgresql":
        return  # SQLite: the transaction holds the database's only write lock already
    # PostgreSQL's advisory locks are numbered: a signed 64-bit number for each key.
    digests = {hashlib.sha256(owner.encode("utf-8", "replace")).digest() for owner in owners}
    for number in sorted(int.from_bytes(digest[:8], "big", signed=True) for digest in digests):
        db.session.execute(select(func.pg_advisory_xact_lock(number)))
