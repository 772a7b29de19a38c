"""Forget other devices, and erase everything: what a device may take away, and the new
cookie token both give it.

Both give the asking device a new cookie token, so that every copy of its old cookie (a
backup, a borrowed phone's copy) is another device from then on, one that holds nothing
(:mod:`counter.services.devices`). The new token is worked out from the old one and the
form's nonce: the same form sent again within :data:`GRACE` (a double tap, or a retry
racing the first) finds the work done and is given the same token; after that it is
refused, and no other request with the old cookie is ever given the new token.

A device that is first on its key (:mod:`counter.services.ranks`) forgets every other
device by giving the key a new one, and erases everything the key owns. A device that
came by a link forgets only the devices it brought, and erases only what is its own: it
leaves the key, which the devices above it keep with every match.
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass
from datetime import timedelta

from sqlalchemy import delete, select, update

from counter.game.refusals import N_, Conflict
from counter.services import keys as handover
from counter.services import ranks, spent
from counter.services.devices import DeviceNotFound, let_go, match_ids, new_key
from counter.storage import erasure, push
from counter.storage.models import Deal, DeviceLink, Evening, Match, db, utcnow
from counter.storage.models import Device as DeviceRow
from counter.storage.owner_lock import lock_owners
from counter.storage.transactions import writes

# How long the same form, sent again with the old cookie, is given the new token.
GRACE = timedelta(minutes=1)


def new_token(*, token: str, nonce: str, secret: str, step: str) -> str:
    """The cookie token that replaces ``token`` for the form of ``step`` that carried
    ``nonce``; no one without the site's secret can work it out."""
    message = f"{step}\0{token}\0{nonce}".encode()
    return hmac.new(secret.encode(), message, hashlib.sha256).hexdigest()[:32]


def _done_already(token: str, fresh: str) -> bool:
    """Whether this form was carried out already: sent again within :data:`GRACE`, it finds
    it so; later, it is refused."""
    if db.session.scalar(select(DeviceRow.id).where(DeviceRow.token == fresh)) is None:
        return False
    replaced = db.session.scalar(select(DeviceRow.replaced_at).where(DeviceRow.token == token))
    if replaced is not None and utcnow() - replaced <= GRACE:
        return True
    raise Conflict(N_("This form was sent already. Open What we keep again to start over."))


def _asking(token: str, fresh: str) -> DeviceRow | None:
    """The asking device, locked, with its key's lock (taken first, as every write of the key
    takes it); None if the same form was carried out meanwhile."""
    if _done_already(token, fresh):
        return None
    keys = db.session.execute(
        select(DeviceRow.owner, DeviceRow.home).where(DeviceRow.token == token)
    ).first()
    if keys is None:
        raise DeviceNotFound(N_("This device is not known here. Reload the page."))
    owner = keys.owner
    # An import in flight for these keys ends first, or finds them gone.
    lock_owners(*(key for key in keys if key is not None))
    # On PostgreSQL, a statement of its own after the lock: it sees what was committed
    # meanwhile (the same form, sent twice at once, rotated this very row).
    mine = select(DeviceRow).where(DeviceRow.token == token, DeviceRow.owner == owner)
    row: DeviceRow | None = db.session.scalar(mine.with_for_update())
    if row is None and _done_already(token, fresh):
        return None
    if row is None:
        raise Conflict(N_("This device's matches changed meanwhile. Reload the page."))
    return row


def _give_token(row: DeviceRow, fresh: str) -> None:
    """The device's cookie token is ``fresh`` from now on; its old one is a device of its
    own, holding nothing, forgotten within the hour (counter.services.newcomers)."""
    old = row.token
    row.token, row.seen_at = fresh, utcnow()
    db.session.flush()
    copies = DeviceRow(token=old, owner=new_key(), label=row.label, came_back=False)
    copies.replaced_at = utcnow()
    db.session.add(copies)


@writes
def forget_others(*, token: str, nonce: str, secret: str) -> str:
    """Forget the other devices this one may remove, and every copy of its cookie; returns
    its new cookie token.

    First on its key, it gives the key a new one: every other device loses the matches
    and goes back to its own from before it joined; device links and share links made
    with the old key stop working. Brought by another, it forgets the devices it brought.
    """
    fresh = new_token(token=token, nonce=nonce, secret=secret, step="forget")
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
        key = handover.rotated_key(owner=owner, nonce=nonce, secret=secret)
        db.session.execute(update(Match).where(Match.owner == owner).values(share_token=None))
        handover.move_matches(source=owner, target=key)
        db.session.execute(delete(DeviceLink).where(DeviceLink.owner == owner))
        let_go(owner=owner, keep=row.id)
        row.owner = key
    _give_token(row, fresh)
    db.session.commit()
    push.recheck(match_ids(owner=row.owner))  # the live pages of those forgotten end now
    return fresh


@dataclass(frozen=True)
class Erased:
    token: str
    matches: int | None  # None: the same form carried out already
    deals: int


@writes
def erase_everything(*, token: str, nonce: str, secret: str) -> Erased:
    """Delete what this device may erase, and start it afresh: a new key, a new token.

    First on its key: every match, deal, share link and device link of the key (and of
    its own key from before it joined, if it kept one); other devices of the key go back
    to their own matches, or to none. Brought by another: its own key from before it
    joined, and the links it made; it leaves the key, whose matches stay.
    """
    fresh = new_token(token=token, nonce=nonce, secret=secret, step="erase")
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
    owned = select(Match.id).where(Match.owner.in_(erased)).scalar_subquery()
    db.session.execute(delete(Evening).where(Evening.owner.in_(erased)))
    deals = db.session.execute(delete(Deal).where(Deal.match_id.in_(owned)))
    matches = db.session.execute(delete(Match).where(Match.owner.in_(erased)))
    db.session.execute(delete(DeviceLink).where(DeviceLink.owner.in_(erased)))
    row.owner, row.home, row.match_id = new_key(), None, None
    _give_token(row, fresh)
    for key in erased:
        spent.forget_owner(owner=key)
    db.session.commit()
    erasure.empty_the_log()
    push.recheck(watched)  # the live pages of every device that lost them end now
    return Erased(fresh, matches.rowcount, deals.rowcount)  # type: ignore[attr-defined]
