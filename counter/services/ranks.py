"""Which device outranks which on a key: the device that made a link outranks the device
that came by it, and every device that one brought in turn.

A device with no maker holding its key (it started the key, or its makers left it) is
*first*: it may remove any other device, give the key a new one or erase it. A device
that came by a link may remove only the devices it brought, directly or through others;
what it erases or forgets is its own, never the matches of the devices above it.
"""

from __future__ import annotations

from sqlalchemy import select, update

from counter.storage.models import Device as DeviceRow
from counter.storage.models import db


def _makers(owner: str) -> dict[int, int | None]:
    """Each device of ``owner``, with the device that brought it if that one holds it too."""
    found = select(DeviceRow.id, DeviceRow.brought_by).where(DeviceRow.owner == owner)
    rows: dict[int, int | None] = {device: maker for device, maker in db.session.execute(found)}
    return {device: maker if maker in rows else None for device, maker in rows.items()}


def has_maker(*, owner: str, device_id: int) -> bool:
    """Whether the device came by a link from a device that still holds its key."""
    return _makers(owner).get(device_id) is not None


def brought(*, owner: str, device_id: int) -> set[int]:
    """The devices of ``owner`` that ``device_id`` brought, directly or through others."""
    makers = _makers(owner)
    found: set[int] = set()
    while True:
        more = {device for device, maker in makers.items() if maker in found | {device_id}}
        if more <= found:
            return found
        found |= more


def may_remove(*, owner: str, device_id: int) -> set[int]:
    """The other devices of ``owner`` that ``device_id`` may remove."""
    makers = _makers(owner)
    if device_id not in makers:
        return set()
    if makers[device_id] is None:
        return set(makers) - {device_id}
    return brought(owner=owner, device_id=device_id) - {device_id}


def leaves(*, device_id: int) -> None:
    """The devices that ``device_id`` brought are brought by its own maker from now on (or
    by none), as it leaves their key; in the caller's transaction."""
    maker = select(DeviceRow.brought_by).where(DeviceRow.id == device_id).scalar_subquery()
    db.session.execute(
        update(DeviceRow).where(DeviceRow.brought_by == device_id).values(brought_by=maker)
    )
