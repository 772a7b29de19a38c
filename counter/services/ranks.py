"""Which device outranks which on a key: the one that made a link, the ones it brought."""

from __future__ import annotations

from sqlalchemy import select, update

from counter.storage.models import Device as DeviceRow
from counter.storage.models import db


def _makers(owner: str) -> dict[int, int | None]:
    """Each device of ``owner``, with its maker if that one holds the key too."""
    found = select(DeviceRow.id, DeviceRow.brought_by).where(DeviceRow.owner == owner)
    rows: dict[int, int | None] = {device: maker for device, maker in db.session.execute(found)}
    return {device: maker if maker in rows else None for device, maker in rows.items()}


def has_maker(*, owner: str, device_id: int) -> bool:
    return _makers(owner).get(device_id) is not None


def brought(*, owner: str, device_id: int) -> set[int]:
    """The devices that ``device_id`` brought, directly or through others."""
    makers = _makers(owner)
    found: set[int] = set()
    while True:
        more = {device for device, maker in makers.items() if maker in found | {device_id}}
        if more <= found:
            return found
        found |= more


def may_remove(*, owner: str, device_id: int) -> set[int]:
    """A first device (no maker on the key) may remove any other; one that came by a link,
    only those it brought."""
    makers = _makers(owner)
    if device_id not in makers:
        return set()
    mine = set(makers) if makers[device_id] is None else brought(owner=owner, device_id=device_id)
    return mine - {device_id}


def leaves(*, device_id: int) -> None:
    """The devices that ``device_id`` brought pass to its own maker, as it leaves."""
    maker = select(DeviceRow.brought_by).where(DeviceRow.id == device_id).scalar_subquery()
    db.session.execute(
        update(DeviceRow).where(DeviceRow.brought_by == device_id).values(brought_by=maker)
    )
