"""Devices: each phone or browser holding a key by its cookie's token, and its match shown."""

import secrets
from collections.abc import Collection
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import and_, bindparam, delete, or_, select, update
from sqlalchemy.orm import aliased

from counter.game.refusals import N_, Forbidden, NotFound
from counter.services import newcomers
from counter.storage import push
from counter.storage.models import DEVICE_LABEL_LENGTH, Deal, DeviceLink, Match, db, utcnow
from counter.storage.models import Device as DeviceRow
from counter.storage.transactions import writes

SEEN_EVERY = timedelta(minutes=2)
AT_ONCE = timedelta(minutes=1)  # two New match taps this close were made at the same moment
ONE_SITTING = timedelta(hours=6)  # two new matches of the same players this close: one table's


def new_key() -> str:
    return secrets.token_urlsafe(32)


@dataclass(frozen=True)
class Device:
    """The device asking, as a request sees it."""

    id: int
    token: str
    owner: str
    match_id: int | None
    home: str | None
    replaced: bool = False  # an old token, left holding nothing (counter.services.forgetting)
    seen_now: bool = False  # back after SEEN_EVERY: its cookie is sent again


@dataclass(frozen=True)
class DeviceView:
    id: int
    label: str
    created_at: datetime
    seen_at: datetime
    this_one: bool
    removable: bool  # by the device looking at the list
    brought_this_one: bool


def _holder(row: DeviceRow, *, seen_now: bool = False) -> Device:
    old = row.replaced_at is not None
    return Device(row.id, row.token, row.owner, row.match_id, row.home, old, seen_now)


# Built once: it runs on every request.
_BY_TOKEN = select(DeviceRow).where(DeviceRow.token == bindparam("token"))


def find(*, token: str) -> Device | None:
    """The device with this cookie token, noting now and then that it was seen."""
    device = db.session.scalar(_BY_TOKEN, {"token": token})
    if device is None:
        return None
    seen_now = device.replaced_at is None and (
        not device.came_back or utcnow() - device.seen_at > SEEN_EVERY
    )
    if seen_now:
        _seen(device_id=device.id)
    return _holder(device, seen_now=seen_now)


def replaced(*, token: str) -> bool:
    found = select(DeviceRow.replaced_at).where(DeviceRow.token == token)
    return db.session.scalar(found) is not None


@writes
def _seen(*, device_id: int) -> None:
    seen = update(DeviceRow).where(DeviceRow.id == device_id)
    db.session.execute(seen.values(seen_at=utcnow(), came_back=True))
    db.session.commit()


@writes
def register(*, owner: str | None, label: str) -> Device:
    """A new device, holding ``owner`` (an older cookie's key) or a fresh key."""
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


def shows(*, device_id: int, match_id: int, started_from: int | None = None) -> None:
    """From now on ``match_id`` is on this device's screen, started from ``started_from``."""
    if started_from is not None:
        # Locked before the device row, as every write locks its match first (no deadlock).
        left = select(Match.id).where(Match.id == started_from)
        started_from = db.session.scalar(left.with_for_update(read=True, key_share=True))
    moved = update(DeviceRow).where(DeviceRow.id == device_id)
    db.session.execute(moved.values(match_id=match_id, left_match_id=started_from))


def moved_on(*, owner: str, match_id: int, asking: int | None) -> tuple[int, int] | None:
    """The unfinished match another device (seen last) started from ``match_id`` and shows;
    and that device's id."""
    found = (
        select(DeviceRow.match_id, DeviceRow.id)
        .join(Match, Match.id == DeviceRow.match_id)
        .where(
            DeviceRow.owner == owner,
            DeviceRow.left_match_id == match_id,
            DeviceRow.id != (asking or 0),
            Match.won_by.is_(None),
        )
        .order_by(DeviceRow.seen_at.desc(), DeviceRow.id.desc())
        .limit(1)
    )
    row = db.session.execute(found).first()
    return None if row is None else (row.match_id, row.id)


def started_beside(*, owner: str, match_id: int, asking: int | None) -> tuple[int, int] | None:
    """The unfinished match between the same players that another device started before
    ``match_id`` (still without deals), from the match ``asking`` left for it: two phones at
    one table that tapped New match, one perhaps offline; and that device's id."""
    this, mine, theirs = aliased(DeviceRow), aliased(Match), aliased(Match)
    same_seats = and_(theirs.player1 == mine.player1, theirs.player2 == mine.player2)
    swapped = and_(theirs.player1 == mine.player2, theirs.player2 == mine.player1)
    found = (
        select(theirs.id, DeviceRow.id, theirs.created_at, mine.created_at)
        .join(this, this.left_match_id == DeviceRow.left_match_id)
        .join(theirs, theirs.id == DeviceRow.match_id)
        .join(mine, mine.id == this.match_id)
        .where(
            this.id == (asking or 0),
            this.owner == owner,
            mine.id == match_id,
            ~select(Deal.id).where(Deal.match_id == match_id).exists(),
            DeviceRow.owner == owner,
            theirs.id < match_id,  # starts of one key come one at a time: earlier
            theirs.won_by.is_(None),
            or_(same_seats, swapped),
        )
        .order_by(theirs.id.desc())
        .limit(1)
    )
    row = db.session.execute(found).first()
    if row is None:
        return None
    started, device_id, theirs_at, mine_at = row
    return None if mine_at - theirs_at > ONE_SITTING else (started, device_id)


def started_at_once(*, first: int, second: int) -> bool:
    found = select(Match.created_at).where(Match.id.in_((first, second))).order_by(Match.id)
    times = db.session.scalars(found).all()
    return len(times) == 2 and times[1] - times[0] <= AT_ONCE


def shown_match_id(*, device: Device | None) -> int | None:
    if device is None or device.match_id is None:
        return None
    owned = select(Match.id).where(Match.id == device.match_id, Match.owner == device.owner)
    return db.session.scalar(owned)


def list_devices(*, owner: str, this_device: int | None) -> list[DeviceView]:
    listed = select(DeviceRow).where(DeviceRow.owner == owner)
    rows = db.session.scalars(listed.order_by(DeviceRow.seen_at.desc(), DeviceRow.id)).all()
    removable = may_remove(owner=owner, device_id=this_device or 0)
    maker = next((row.brought_by for row in rows if row.id == this_device), None)
    return [
        DeviceView(
            row.id,
            row.label,
            row.created_at,
            utcnow() if row.id == this_device else row.seen_at,
            row.id == this_device,
            row.id in removable,
            row.id == maker,
        )
        for row in rows
    ]


def leave(row: DeviceRow, *, owner: str, home: str | None = None, maker: int | None = None) -> None:
    """The device holds ``owner`` now, brought by ``maker``; its links to the old key stop."""
    # The devices it brought pass to its own maker.
    brought = update(DeviceRow).where(DeviceRow.brought_by == row.id)
    db.session.execute(brought.values(brought_by=row.brought_by))
    db.session.execute(delete(DeviceLink).where(DeviceLink.device_id == row.id))
    row.owner, row.home, row.match_id, row.brought_by = owner, home, None, maker


def _makers(owner: str) -> dict[int, int | None]:
    """Each device of ``owner``, with its maker if that one holds the key too."""
    found = select(DeviceRow.id, DeviceRow.brought_by).where(DeviceRow.owner == owner)
    rows: dict[int, int | None] = {device: maker for device, maker in db.session.execute(found)}
    return {device: maker if maker in rows else None for device, maker in rows.items()}


def has_maker(*, owner: str, device_id: int) -> bool:
    return _makers(owner).get(device_id) is not None


def may_remove(*, owner: str, device_id: int) -> set[int]:
    """Any other device if this one is first on the key, else those it brought (or they did)."""
    makers = _makers(owner)
    if device_id not in makers:
        return set()
    mine = set(makers) if makers[device_id] is None else {device_id}
    while more := {device for device, maker in makers.items() if maker in mine} - mine:
        mine |= more
    return mine - {device_id}


def let_go(*, owner: str, devices: Collection[int]) -> int:
    """These devices of ``owner`` go home or to a new key, holding nothing of it; how many."""
    chosen = select(DeviceRow).where(DeviceRow.owner == owner, DeviceRow.id.in_(devices))
    leaving = list(db.session.scalars(chosen))
    for device in leaving:
        leave(device, owner=device.home or new_key())
    return len(leaving)


def holds(*, owner: str, device_id: int | None = None) -> bool:
    makers = _makers(owner)
    return bool(makers) if device_id is None else device_id in makers


@writes
def forget_device(*, owner: str, asking: int, device_id: int) -> None:
    """Another device, one ``asking`` may remove, no longer holds this key."""
    removable = device_id in may_remove(owner=owner, device_id=asking)
    if not removable and device_id != asking and holds(owner=owner, device_id=device_id):
        message = N_(
            "This device came by a link, so it may remove only the devices it brought "
            "itself. The device that shared the matches with it decides about the others."
        )
        raise Forbidden(message)
    if not removable or let_go(owner=owner, devices={device_id}) != 1:
        raise NotFound(N_("That device no longer has these matches."))
    # A link it may have made while it held the key would give the key back to it.
    db.session.execute(delete(DeviceLink).where(DeviceLink.owner == owner))
    db.session.commit()
    push.recheck(match_ids(owner=owner))


def match_ids(*, owner: str) -> list[int]:
    return list(db.session.scalars(select(Match.id).where(Match.owner == owner)))
