"""Devices made without a cookie: forgotten when they record nothing or never come back."""

from collections.abc import Collection
from datetime import timedelta

from sqlalchemy import delete, or_, select

from counter.services import spent
from counter.storage.models import Device as DeviceRow
from counter.storage.models import DeviceLink, Evening, Match, db, utcnow
from counter.storage.transactions import writes

NEVER_BACK_AFTER = timedelta(hours=1)
FORGET_AT_ONCE = 20
HOLDING = (Match, DeviceLink, Evening)  # what a key may hold


@writes
def forget_new(*, device_id: int) -> None:
    """Forget a new device whose first write recorded nothing."""
    device = db.session.get(DeviceRow, device_id)
    if device is None or device.came_back:
        return
    holding = (select(kind.id).where(kind.owner == device.owner) for kind in HOLDING)
    if all(db.session.scalar(each.limit(1)) is None for each in holding):
        db.session.delete(device)
    db.session.commit()


def forget_never_back() -> int:
    """Forget some devices whose cookie never came back, and what only their keys hold."""
    stale = db.session.execute(
        select(DeviceRow.id, DeviceRow.owner, DeviceRow.home)
        .where(~DeviceRow.came_back, DeviceRow.created_at < utcnow() - NEVER_BACK_AFTER)
        .order_by(DeviceRow.id)
        .limit(FORGET_AT_ONCE)
        .with_for_update(skip_locked=True)
    ).all()
    if not stale:
        return 0
    ids = [row.id for row in stale]
    keys = {key for row in stale for key in (row.owner, row.home) if key is not None}
    held = select(DeviceRow.owner, DeviceRow.home).where(
        DeviceRow.id.not_in(ids), or_(DeviceRow.owner.in_(keys), DeviceRow.home.in_(keys))
    )
    keys -= {key for row in db.session.execute(held) for key in row}
    db.session.execute(delete(DeviceRow).where(DeviceRow.id.in_(ids)))
    if keys:
        erase_keys(keys)
    return len(ids)


def erase_keys(keys: Collection[str]) -> int:
    """Delete all that these keys hold, deals and hashes of spent ids too; how many matches."""
    db.session.execute(delete(Evening).where(Evening.owner.in_(keys)))
    matches = db.session.execute(delete(Match).where(Match.owner.in_(keys)))
    db.session.execute(delete(DeviceLink).where(DeviceLink.owner.in_(keys)))
    spent.forget_owners(owners=keys)
    return matches.rowcount  # type: ignore[attr-defined,no-any-return]
