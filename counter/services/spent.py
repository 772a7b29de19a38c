"""Once used, always used: match uids and deal request ids outlive an undo or a delete.

A phone's outbox may send a change again long after it was first answered (a
retry after a lost answer, a tab that wakes up). While the deal or match it made
is there, the service finds it and answers as before; once it was undone or
deleted, a row here says it was used, so the late copy records nothing. Only
SHA-256 hashes are kept: of the key, of the uid or request id with where it was
used, and of the settings a match was started with.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Mapping
from enum import StrEnum

from sqlalchemy import Select, bindparam, delete, select

from counter.game.refusals import N_, Conflict
from counter.game.scoring import Preset
from counter.storage.models import Spent, db


class UidReused(Conflict):
    """A match uid sent again with other settings than the match was started with, or the
    uid of a match deleted since."""


def _digest(*parts: object) -> str:
    return hashlib.sha256("\0".join(str(part) for part in parts).encode()).hexdigest()


def settings_digest(
    *,
    target: int | None,
    names: tuple[str, str] | None,
    rules: Mapping[str, StrEnum] | None,
    preset: Preset | None,
    first_dealer: int | None,
) -> str:
    """A hash of the settings a start asked for (as sent: what was left out stays out)."""
    asked = {
        "target": target,
        "names": names,
        "rules": None if rules is None else {name: str(choice) for name, choice in rules.items()},
        "preset": None if preset is None else preset.label,
        "first_dealer": first_dealer,
    }
    return _digest(json.dumps(asked, sort_keys=True, ensure_ascii=False))


def check_start(*, owner: str, uid: str, settings: str, exists: bool) -> None:
    """Refuse a start with a ``uid`` used here before (``exists``: its match is still there)
    if that match was deleted since, or if it was started with other
    ``settings``: a uid names one start, as a request id names one deal.
    """
    found = db.session.scalar(select(Spent).where(Spent.digest == _digest("uid", owner, uid)))
    if found is None:
        return  # a match imported, or started before uids were kept here, or none
    if not exists:
        raise UidReused(N_("The match with that uid was deleted; nothing was started."))
    if found.settings_digest not in (None, settings):
        raise UidReused(
            N_(
                "That uid already started a match with other settings; nothing was started. "
                "A new match needs a new uid."
            )
        )


def spend_uid(*, owner: str, uid: str, settings: str | None) -> None:
    """Keep ``uid`` as used by this browser, with the settings its match was started with."""
    db.session.add(
        Spent(
            digest=_digest("uid", owner, uid),
            owner_digest=_digest(owner),
            settings_digest=settings,
        )
    )


def spend_uid_of_deleted(*, owner: str, uid: str) -> None:
    """Keep the uid of a match being deleted as used, if its start did not already."""
    digest = _digest("uid", owner, uid)
    if db.session.scalar(select(Spent.id).where(Spent.digest == digest)) is None:
        spend_uid(owner=owner, uid=uid, settings=None)


def spend_request(*, owner: str, match_id: int, request_id: str | None) -> None:
    """Keep the request id of a deal that is being undone or deleted as used in its match."""
    if request_id is not None:
        db.session.add(
            Spent(
                digest=_digest("request", match_id, request_id),
                owner_digest=_digest(owner),
                match_id=match_id,
            )
        )


def request_spent(*, match_id: int | None, request_id: str) -> bool:
    """Whether ``request_id`` recorded a deal in this match that is gone since.

    Its own statement, after the match is locked: on PostgreSQL a statement that waited
    for the lock reads the other tables as they were when it began, before an undo that
    held the lock had spent this id."""
    if match_id is None:
        return False
    digest = _digest("request", match_id, request_id)
    return db.session.connection().execute(_spent_digest(), {"digest": digest}).first() is not None


@functools.cache
def _spent_digest() -> Select[int]:
    """Asked with every deal that has a request id: built once, run on the connection."""
    return select(Spent.id).where(Spent.digest == bindparam("digest"))


def forget_owner(*, owner: str) -> None:
    """Remove every row of this browser's key (erasing it: not even hashes stay)."""
    db.session.execute(delete(Spent).where(Spent.owner_digest == _digest(owner)))
