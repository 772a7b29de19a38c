"""Forget other devices, erase everything: each gives the asking device a new cookie token."""

import hmac
from datetime import timedelta

from sqlalchemy import delete, select, update

from counter.game.refusals import N_, Conflict, NotFound
from counter.services import keys as handover
from counter.services.devices import has_maker, leave, let_go, match_ids, may_remove, new_key
from counter.services.newcomers import erase_keys
from counter.storage import push
from counter.storage.models import Device as DeviceRow
from counter.storage.models import DeviceLink, Match, db, empty_the_log, utcnow
from counter.storage.owner_lock import lock_owners
from counter.storage.transactions import writes

GRACE = timedelta(minutes=1)  # the same form sent again within it gets the same token


def _asking(*, form: str, token: str, nonce: str, secret: str) -> tuple[str, DeviceRow | None]:
    """Its new token, and the asking device locked after its key (None: form carried out)."""
    # The same form sent again with the same old cookie gets the same new token.
    parts = "\0".join((form, token, nonce)).encode()
    fresh = hmac.digest(secret.encode(), parts, "sha256").hex()[:32]
    found = select(DeviceRow.owner, DeviceRow.home).where(DeviceRow.token == token)
    keys = db.session.execute(found).first()
    if keys is None:
        raise NotFound(N_("This device is not known here. Reload the page."))
    lock_owners(*filter(None, keys))
    # A statement after the lock sees, on PostgreSQL, what was committed meanwhile.
    mine = select(DeviceRow).where(DeviceRow.token == token, DeviceRow.owner == keys.owner)
    row: DeviceRow | None = db.session.scalar(mine.with_for_update())
    if db.session.scalar(select(DeviceRow.id).where(DeviceRow.token == fresh)) is not None:
        replaced = db.session.scalar(select(DeviceRow.replaced_at).where(DeviceRow.token == token))
        if replaced is None or utcnow() - replaced > GRACE:
            raise Conflict(N_("This form was sent already. Open What we keep again to start over."))
        return fresh, None
    if row is None:
        raise Conflict(N_("This device's matches changed meanwhile. Reload the page."))
    return fresh, row


def _give_token(row: DeviceRow, fresh: str, watched: list[int]) -> None:
    """The old token becomes a device of its own that holds nothing, soon forgotten; saved."""
    old, row.token, row.seen_at = row.token, fresh, utcnow()
    db.session.flush()  # the old token is free before a row takes it
    copies = DeviceRow(token=old, owner=new_key(), label=row.label, came_back=False)
    copies.replaced_at = utcnow()
    db.session.add(copies)
    db.session.commit()
    push.recheck(watched)


@writes
def forget_others(*, token: str, nonce: str, secret: str) -> str:
    """Forget the devices this one may remove and every copy of its cookie; its new token."""
    fresh, row = _asking(form="forget", token=token, nonce=nonce, secret=secret)
    if row is None:
        return fresh
    owner = row.owner
    let_go(owner=owner, devices=may_remove(owner=owner, device_id=row.id))
    if has_maker(owner=owner, device_id=row.id):
        db.session.execute(delete(DeviceLink).where(DeviceLink.device_id == row.id))
    else:  # first on its key: the matches move to a new key, and links of the old stop
        row.owner = new_key()
        db.session.execute(update(Match).where(Match.owner == owner).values(share_token=None))
        handover.move_matches(source=owner, target=row.owner)
        db.session.execute(delete(DeviceLink).where(DeviceLink.owner == owner))
    _give_token(row, fresh, match_ids(owner=row.owner))
    return fresh


@writes
def erase_everything(*, token: str, nonce: str, secret: str) -> tuple[str, int | None]:
    """Erase what this device may; its new token, and how many matches went (None: done before)."""
    fresh, row = _asking(form="erase", token=token, nonce=nonce, secret=secret)
    if row is None:
        return fresh, None
    owner, watched = row.owner, match_ids(owner=row.owner)
    erased = [] if row.home is None else [row.home]  # its own key from before it came by a link
    if not has_maker(owner=owner, device_id=row.id):  # first on its key: all the key holds
        erased.append(owner)
        let_go(owner=owner, devices=may_remove(owner=owner, device_id=row.id))
    matches = erase_keys(erased)
    leave(row, owner=new_key())
    _give_token(row, fresh, watched)
    empty_the_log()
    return fresh, matches
