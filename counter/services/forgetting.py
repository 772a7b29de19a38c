"""Forget other devices, erase everything: each gives the asking device a new cookie token."""

from __future__ import annotations

import base64
import hashlib
import hmac
from dataclasses import dataclass
from datetime import timedelta

from sqlalchemy import delete, select, update

from counter.game.refusals import N_, Conflict
from counter.services import keys as handover
from counter.services import ranks
from counter.services.devices import DeviceNotFound, let_go, match_ids, new_key
from counter.services.newcomers import erase_keys
from counter.storage import erasure, push
from counter.storage.models import Device as DeviceRow
from counter.storage.models import DeviceLink, Match, db, utcnow
from counter.storage.owner_lock import lock_owners
from counter.storage.transactions import writes

GRACE = timedelta(minutes=1)  # the same form sent again within it gets the same token


def _signed(secret: str, *parts: str) -> bytes:
    return hmac.new(secret.encode(), "\0".join(parts).encode(), hashlib.sha256).digest()


def _done_already(token: str, fresh: str) -> bool:
    if db.session.scalar(select(DeviceRow.id).where(DeviceRow.token == fresh)) is None:
        return False
    replaced = db.session.scalar(select(DeviceRow.replaced_at).where(DeviceRow.token == token))
    if replaced is not None and utcnow() - replaced <= GRACE:
        return True
    raise Conflict(N_("This form was sent already. Open What we keep again to start over."))


def _asking(token: str, fresh: str) -> DeviceRow | None:
    """The asking device, locked after its key; None if the same form was carried out."""
    if _done_already(token, fresh):
        return None
    keys = db.session.execute(
        select(DeviceRow.owner, DeviceRow.home).where(DeviceRow.token == token)
    ).first()
    if keys is None:
        raise DeviceNotFound(N_("This device is not known here. Reload the page."))
    lock_owners(*(key for key in keys if key is not None))
    # A statement after the lock sees, on PostgreSQL, what was committed meanwhile.
    mine = select(DeviceRow).where(DeviceRow.token == token, DeviceRow.owner == keys.owner)
    row: DeviceRow | None = db.session.scalar(mine.with_for_update())
    if row is None and _done_already(token, fresh):
        return None
    if row is None:
        raise Conflict(N_("This device's matches changed meanwhile. Reload the page."))
    return row


def _give_token(row: DeviceRow, fresh: str) -> None:
    """The old token becomes a device of its own that holds nothing, soon forgotten."""
    old, row.token, row.seen_at = row.token, fresh, utcnow()
    db.session.flush()
    copies = DeviceRow(token=old, owner=new_key(), label=row.label, came_back=False)
    copies.replaced_at = utcnow()
    db.session.add(copies)


@writes
def forget_others(*, token: str, nonce: str, secret: str) -> str:
    """Forget the devices this one may remove and every copy of its cookie; its new token.
    First on its key, it moves the key's matches to a new key (links of the old stop)."""
    fresh = _signed(secret, "forget", token, nonce).hex()[:32]
    row = _asking(token, fresh)
    if row is None:
        return fresh
    owner = row.owner
    if ranks.has_maker(owner=owner, device_id=row.id):
        brought = ranks.brought(owner=owner, device_id=row.id)
        for device in brought:
            let_go(owner=owner, only=device)
        db.session.execute(delete(DeviceLink).where(DeviceLink.device_id.in_(brought | {row.id})))
    else:
        key = base64.urlsafe_b64encode(_signed(secret, owner, nonce)).decode().rstrip("=")
        db.session.execute(update(Match).where(Match.owner == owner).values(share_token=None))
        handover.move_matches(source=owner, target=key)
        db.session.execute(delete(DeviceLink).where(DeviceLink.owner == owner))
        let_go(owner=owner, keep=row.id)
        row.owner = key
    _give_token(row, fresh)
    db.session.commit()
    push.recheck(match_ids(owner=row.owner))
    return fresh


@dataclass(frozen=True)
class Erased:
    token: str
    matches: int | None  # None: the form was carried out already
    deals: int


@writes
def erase_everything(*, token: str, nonce: str, secret: str) -> Erased:
    """Delete what this device may erase, and start it afresh: a new key, a new token.
    First on its key, all the key holds; brought by another, its own key from before."""
    fresh = _signed(secret, "erase", token, nonce).hex()[:32]
    row = _asking(token, fresh)
    if row is None:
        return Erased(fresh, None, 0)
    owner = row.owner
    watched = match_ids(owner=owner)
    if ranks.has_maker(owner=owner, device_id=row.id):
        erased = [] if row.home is None else [row.home]
        db.session.execute(delete(DeviceLink).where(DeviceLink.device_id == row.id))
        ranks.leaves(device_id=row.id)
        row.brought_by = None
    else:
        erased = [owner] if row.home is None else [owner, row.home]
        let_go(owner=owner, keep=row.id)
    matches, deals = erase_keys(erased)
    row.owner, row.home, row.match_id = new_key(), None, None
    _give_token(row, fresh)
    db.session.commit()
    erasure.empty_the_log()
    push.recheck(watched)
    return Erased(fresh, matches, deals)
