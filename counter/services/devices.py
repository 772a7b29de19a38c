"""Devices: each phone or browser that holds a key, and the match on its screen.

A device is named by a random token in its cookie; the key it holds is kept here.
Handing the key over, rotating or erasing it changes this row, so a late answer to an
older request cannot bring an old key back. "Forget other devices" and "Erase everything"
give the device a new token too (:mod:`counter.services.keys`): its old token stays
behind as a row of its own that holds nothing, *replaced*, which every copy of the old
cookie is from then on. Each device remembers the match it shows: another device playing
elsewhere on the same key never moves it. A device made by a write without a cookie is
new until its cookie comes back (:mod:`counter.services.newcomers`).
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from sqlalchemy import delete, select, update

from counter.game.refusals import N_, Forbidden, NotFound
from counter.services import newcomers, ranks
from counter.storage import push
from counter.storage.models import DEVICE_LABEL_LENGTH, DeviceLink, Match, db, utcnow
from counter.storage.models import Device as DeviceRow
from counter.storage.transactions import writes

# How stale "last seen" may get before a request writes it again: one write in a while,
# not one per request.
SEEN_EVERY = timedelta(minutes=2)


class DeviceNotFound(NotFound):
    """No device of this key has that number."""


def new_key() -> str:
    """A fresh random browser key."""
    return secrets.token_urlsafe(32)


@dataclass(frozen=True)
class Device:
    """The device asking, as a request sees it."""

    id: int
    token: str
    owner: str
    match_id: int | None
    home: str | None
    replaced: bool = False  # an old token of a device that has a new one: see above
    seen_now: bool = False  # back after a while (SEEN_EVERY): its cookie is sent again


@dataclass(frozen=True)
class DeviceView:
    """One device that holds a key, as the privacy page lists it."""

    id: int
    label: str
    created_at: datetime
    seen_at: datetime
    this_one: bool
    removable: bool  # by the device looking at the list (counter.services.ranks)
    brought_this_one: bool


def _holder(device: DeviceRow) -> Device:
    return Device(
        device.id,
        device.token,
        device.owner,
        device.match_id,
        device.home,
        device.replaced_at is not None,
    )


def find(*, token: str) -> Device | None:
    """The device with this cookie token, or None (never registered, or forgotten);
    noting, now and then, that it was seen."""
    device = db.session.scalar(select(DeviceRow).where(DeviceRow.token == token))
    if device is None:
        return None
    if device.replaced_at is not None:
        return _holder(device)  # never comes back: forgotten within the hour (newcomers)
    if not device.came_back or utcnow() - device.seen_at > SEEN_EVERY:
        _seen(device_id=device.id)
        return replace(_holder(device), seen_now=True)
    return _holder(device)


def replaced(*, token: str) -> bool:
    """Whether ``token`` has been replaced by a new one, now."""
    found = select(DeviceRow.replaced_at).where(DeviceRow.token == token)
    return db.session.scalar(found) is not None


@writes
def _seen(*, device_id: int) -> None:
    seen = update(DeviceRow).where(DeviceRow.id == device_id)
    db.session.execute(seen.values(seen_at=utcnow(), came_back=True))
    db.session.commit()


@writes
def register(*, owner: str | None, label: str) -> Device:
    """A new device, holding ``owner`` (a key of an older cookie, which has come back) or a
    fresh key (new until its cookie comes back). Devices that never came back are forgotten
    meanwhile, a few at a time (:func:`counter.services.newcomers.forget_never_back`)."""
    newcomers.forget_never_back()
    device = DeviceRow(
        token=secrets.token_hex(16),
        owner=owner or new_key(),
        label=label[:DEVICE_LABEL_LENGTH],
        came_back=owner is not None,
    )
    db.session.add(device)
    db.session.commit()
    return _holder(device)


def shows(*, device_id: int | None, match_id: int, started_from: int | None = None) -> None:
    """From now on ``match_id`` is the match on this device's screen (in the caller's
    transaction: it commits with the change that made it so); ``started_from``, the
    match it showed when it started this one."""
    if device_id is None:
        return
    if started_from is not None:
        # The match it left is locked before the device row, as every other write locks its
        # match first: the other way round (the row, then this foreign key's check on a match
        # that a deal holds) two requests of one browser deadlock on PostgreSQL. One deleted
        # meanwhile is none.
        left = select(Match.id).where(Match.id == started_from)
        started_from = db.session.scalar(left.with_for_update(read=True, key_share=True))
    moved = update(DeviceRow).where(DeviceRow.id == device_id)
    db.session.execute(moved.values(match_id=match_id, left_match_id=started_from))


def moved_on(*, owner: str, match_id: int, asking: int | None) -> tuple[int, int] | None:
    """The match another device of this key started while it showed ``match_id``, and
    still shows, with that device's id (the one seen last, if several did)."""
    found = (
        select(DeviceRow.match_id, DeviceRow.id)
        .where(
            DeviceRow.owner == owner,
            DeviceRow.left_match_id == match_id,
            DeviceRow.match_id.is_not(None),
            DeviceRow.id != (asking or 0),
        )
        .order_by(DeviceRow.seen_at.desc(), DeviceRow.id.desc())
        .limit(1)
    )
    row = db.session.execute(found).first()
    return None if row is None or row[0] is None else (row[0], row[1])


def shown_match_id(*, device: Device | None) -> int | None:
    """The match on this device's screen, if it still holds it."""
    if device is None or device.match_id is None:
        return None
    owned = select(Match.id).where(Match.id == device.match_id, Match.owner == device.owner)
    return db.session.scalar(owned)


def list_devices(*, owner: str, this_device: int | None) -> list[DeviceView]:
    """Every device that holds ``owner``, the one seen last first."""
    rows = list(
        db.session.scalars(
            select(DeviceRow)
            .where(DeviceRow.owner == owner)
            .order_by(DeviceRow.seen_at.desc(), DeviceRow.id)
        )
    )
    removable = set()
    if this_device is not None:
        removable = ranks.may_remove(owner=owner, device_id=this_device)
    makers = {row.id: row.brought_by for row in rows}
    now = utcnow()
    return [
        # The device looking at the list is seen now, whenever its row last said so.
        DeviceView(
            row.id,
            row.label,
            row.created_at,
            now if row.id == this_device else row.seen_at,
            row.id == this_device,
            row.id in removable,
            this_device is not None and makers.get(this_device) == row.id,
        )
        for row in rows
    ]


def let_go(*, owner: str, keep: int | None = None, only: int | None = None) -> int:
    """Devices of ``owner`` stop holding it (all but ``keep``, or just ``only``); each goes
    back to its own matches from before it joined, or to none. Returns how many went.

    In the caller's transaction.
    """
    chosen = select(DeviceRow).where(DeviceRow.owner == owner)
    if keep is not None:
        chosen = chosen.where(DeviceRow.id != keep)
    if only is not None:
        chosen = chosen.where(DeviceRow.id == only)
    leaving = list(db.session.scalars(chosen))
    for device in leaving:
        if only is not None:
            ranks.leaves(device_id=device.id)
        device.owner, device.home, device.match_id = device.home or new_key(), None, None
        device.brought_by = None
    return len(leaving)


def holds(*, owner: str, device_id: int | None = None) -> bool:
    """Whether any device still holds ``owner`` (none does once it is erased or rotated), or
    the device ``device_id`` does."""
    held = select(DeviceRow.id).where(DeviceRow.owner == owner)
    if device_id is not None:
        held = held.where(DeviceRow.id == device_id)
    return db.session.scalar(held.limit(1)) is not None


@writes
def forget_device(*, owner: str, asking: int, device_id: int) -> None:
    """One other device of this key no longer has its matches: one that ``asking`` brought,
    or any other if ``asking`` is first (:mod:`counter.services.ranks`)."""
    if device_id not in ranks.may_remove(owner=owner, device_id=asking):
        holds_it = select(DeviceRow.id).where(DeviceRow.id == device_id, DeviceRow.owner == owner)
        if device_id == asking or db.session.scalar(holds_it) is None:
            raise DeviceNotFound(N_("That device no longer has these matches."))
        raise Forbidden(
            N_(
                "This device came by a link, so it may remove only the devices it brought "
                "itself. The device that shared the matches with it decides about the others."
            )
        )
    if let_go(owner=owner, only=device_id) != 1:
        raise DeviceNotFound(N_("That device no longer has these matches."))
    # A link it may have made while it held the key would give the key back to it.
    db.session.execute(delete(DeviceLink).where(DeviceLink.owner == owner))
    db.session.commit()
    push.recheck(match_ids(owner=owner))  # its live pages end now


def match_ids(*, owner: str) -> list[int]:
    return list(db.session.scalars(select(Match.id).where(Match.owner == owner)))
