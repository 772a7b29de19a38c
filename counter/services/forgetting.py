"""Forget other devices, erase everything: each gives the asking device a new cookie token."""

from __future__ import annotations

import hmac
from datetime import timedelta

from sqlalchemy import delete, select, update

from counter.game.refusals import N_, Conflict, NotFound
from counter.services import keys as handover
from counter.services import ranks
from counter.services.devices import leave, let_go, match_ids, new_key
from counter.services.newcomers import erase_keys
from counter.storage import push
from counter.storage.models import Device as DeviceRow
from counter.storage.models import DeviceLink, Match, db, empty_the_log, utcnow
from counter.storage.owner_lock import lock_owners
from counter.storage.transactions import writes

GRACE = timedelta(minutes=1)  # the same form sent again within it gets the same token


def _fresh_token(secret: str, *parts: str) -> str:
    """The new token, the same for the same form sent again with the same old cookie."""
    return hmac.digest(secret.encode(), "\0".join(parts).encode(), "sha256").hex()[:32]


def _done_already(token: str, fresh: str) -> bool:
    if db.session.scalar(select(DeviceRow.id).where(DeviceRow.token == fresh)) is None:
        return False
    replaced = db.session.scalar(select(DeviceRow.replaced_at).where(DeviceRow.token == token))
    if replaced is not None and utcnow() - replaced <= GRACE:
        return True
    raise Conflict(N_("This form was sent already. Open What we keep again to start over."))


def _asking(token: str, fresh: str) -> DeviceRow | None:
    """The asking device, locked after its key; None if the same form was carried out."""
    keys = db.session.execute(
        select(DeviceRow.owner, DeviceRow.home).where(DeviceRow.token == token)
    ).first()
    if keys is None:
        raise NotFound(N_("This device is not known here. Reload the page."))
    lock_owners(*filter(None, keys))
    # A statement after the lock sees, on PostgreSQL, what was committed meanwhile.
    mine = select(DeviceRow).where(DeviceRow.token == token, DeviceRow.owner == keys.owner)
    row: DeviceRow | None = db.session.scalar(mine.with_for_update())
    if _done_already(token, fresh):
        return None
    if row is None:
        raise Conflict(N_("This device's matches changed meanwhile. Reload the page."))
    return row


def _give_token(row: DeviceRow, fresh: str, watched: list[int]) -> None:
    """The old token becomes a device of its own that holds nothing, soon forgotten."""
    old, row.token, row.seen_at = row.token, fresh, utcnow()
    db.session.flush()
    copies = DeviceRow(token=old, owner=new_key(), label=row.label, came_back=False)
    copies.replaced_at = utcnow()
    db.session.add(copies)
    db.session.commit()
    push.recheck(watched)


@writes
def forget_others(*, token: str, nonce: str, secret: str) -> str:
    """Forget the devices this one may remove and every copy of its cookie; its new token.
    First on its key, it moves the key's matches to a new key (links of the old stop)."""
    fresh = _fresh_token(secret, "forget", token, nonce)
    row = _asking(token, fresh)
    if row is None:
        return fresh
    owner = row.owner
    let_go(owner=owner, devices=ranks.may_remove(owner=owner, device_id=row.id))
    if ranks.has_maker(owner=owner, device_id=row.id):
        db.session.execute(delete(DeviceLink).where(DeviceLink.device_id == row.id))
    else:
        row.owner = new_key()
        db.session.execute(update(Match).where(Match.owner == owner).values(share_token=None))
        handover.move_matches(source=owner, target=row.owner)
        db.session.execute(delete(DeviceLink).where(DeviceLink.owner == owner))
    _give_token(row, fresh, match_ids(owner=row.owner))
    return fresh


@writes
def erase_everything(*, token: str, nonce: str, secret: str) -> tuple[str, int | None]:
    """Delete what this device may erase, and start it afresh: its new token, and how many
    matches went (None: the same form was carried out already). First on its key, all the
    key holds; brought by another, its own key from before."""
    fresh = _fresh_token(secret, "erase", token, nonce)
    row = _asking(token, fresh)
    if row is None:
        return fresh, None
    owner, watched = row.owner, match_ids(owner=row.owner)
    erased = [] if row.home is None else [row.home]
    if not ranks.has_maker(owner=owner, device_id=row.id):
        erased.append(owner)
        let_go(owner=owner, devices=ranks.may_remove(owner=owner, device_id=row.id))
    matches = erase_keys(erased)
    leave(row, owner=new_key())
    _give_token(row, fresh, watched)
    empty_the_log()
    return fresh, matches
