"""Once used, always used: match uids and deal request ids outlive an undo or a delete.

A phone may send a change again long after it was answered; once its deal or match is
gone, a row here makes the late copy record nothing. Only SHA-256 hashes are kept.
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
    """A match uid sent again with other settings, or after its match was deleted."""


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
    """Refuse a start whose ``uid`` was used here for a match deleted since (not ``exists``)
    or started with other ``settings``: a uid names one start."""
    found = db.session.scalar(select(Spent).where(Spent.digest == _digest("uid", owner, uid)))
    if found is None:
        return  # unspent: new, or a match's that was imported, given no uid, or predates 0010
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

    A statement of its own, after the match is locked: on PostgreSQL one that waited for
    the lock would see the tables as of its start, before the undo that held the lock."""
    if match_id is None:
        return False
    digest = _digest("request", match_id, request_id)
    return db.session.connection().execute(_spent_digest(), {"digest": digest}).first() is not None


@functools.cache
def _spent_digest() -> Select[int]:
    """Built once: it is run for every deal with a request id."""
    return select(Spent.id).where(Spent.digest == bindparam("digest"))


def forget_owner(*, owner: str) -> None:
    """Remove every row of this browser's key (erasing it: not even hashes stay)."""
    db.session.execute(delete(Spent).where(Spent.owner_digest == _digest(owner)))
