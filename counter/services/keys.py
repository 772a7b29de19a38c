"""A browser's key, which owns its matches: hand it to another device, rotate it, erase it.

A device link hands this browser's key to the device that opens it: once, and
within 15 minutes. The device that takes it keeps its own matches too: they
join the key it adopts. Rotating the key leaves every other holder of the old
one with nothing; erasing deletes everything the key owns.
"""

from __future__ import annotations

import hashlib
import secrets
import uuid
from dataclasses import dataclass
from datetime import timedelta

from sqlalchemy import delete, func, select, update

from counter.models import Deal, DeviceLink, Match, db, utcnow
from counter.refusals import N_, Gone
from counter.services.transactions import writes

LINK_LIFETIME = timedelta(minutes=15)
TOKEN_MAX_LENGTH = 64


class LinkUnusable(Gone):
    """A device link that was used already, has expired, or never existed."""


def new_key() -> str:
    """A fresh random browser key."""
    return secrets.token_urlsafe(32)


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "replace")).hexdigest()


@writes
def create_device_link(*, owner: str) -> str:
    """A new one-time token for this browser's key; only its hash is stored."""
    token = secrets.token_urlsafe(24)
    db.session.add(DeviceLink(token_hash=_hash(token), owner=owner))
    db.session.commit()
    return token


@dataclass(frozen=True)
class Handover:
    """What a device link brings: the other browser's matches, and this browser's own."""

    matches: int
    latest: list[tuple[str, str, int, int]]  # names and scores of the newest few
    own_matches: int
    same_key: bool


def _usable_owner(token: str) -> str:
    if len(token) <= TOKEN_MAX_LENGTH:
        link = db.session.scalars(
            select(DeviceLink).where(DeviceLink.token_hash == _hash(token))
        ).one_or_none()
    else:
        link = None
    if link is None:
        raise LinkUnusable(N_("This link does not exist. Make a new one on the other device."))
    if link.used_at is not None:
        raise LinkUnusable(N_("This link was used already. Make a new one on the other device."))
    if utcnow() - link.created_at > LINK_LIFETIME:
        raise LinkUnusable(
            N_("This link has expired (they last 15 minutes). Make a new one on the other device.")
        )
    return link.owner


def preview_device_link(*, token: str, owner: str | None) -> Handover:
    """What taking the link would bring here, without taking it (a GET writes nothing)."""
    giver = _usable_owner(token)
    points = (
        select(
            Match.player1,
            Match.player2,
            func.coalesce(func.sum(Deal.points).filter(Deal.player == 1), 0),
            func.coalesce(func.sum(Deal.points).filter(Deal.player == 2), 0),
        )
        .outerjoin(Deal, Deal.match_id == Match.id)
        .where(Match.owner == giver)
        .group_by(Match.id)
        .order_by(Match.played_at.desc(), Match.id.desc())
        .limit(3)
    )
    return Handover(
        matches=_count(giver),
        latest=[
            (first, second, int(one), int(two))
            for first, second, one, two in db.session.execute(points)
        ],
        own_matches=0 if owner is None or owner == giver else _count(owner),
        same_key=owner == giver,
    )


def _count(owner: str) -> int:
    return db.session.scalar(select(func.count()).where(Match.owner == owner)) or 0


@writes
def use_device_link(*, token: str, owner: str | None) -> str:
    """Spend the link and return the key it carries; this browser's matches join that key.

    Spent with a conditional update, so that of several uses at once only one
    succeeds, on every database.
    """
    giver = _usable_owner(token)
    spent = db.session.execute(
        update(DeviceLink)
        .where(
            DeviceLink.token_hash == _hash(token),
            DeviceLink.used_at.is_(None),
            DeviceLink.created_at >= utcnow() - LINK_LIFETIME,
        )
        .values(used_at=utcnow())
    )
    if spent.rowcount != 1:  # type: ignore[attr-defined]
        raise LinkUnusable(N_("This link was used already. Make a new one on the other device."))
    if owner is not None and owner != giver:
        _move_matches(source=owner, target=giver)
        db.session.execute(delete(DeviceLink).where(DeviceLink.owner == owner))
    db.session.commit()
    return giver


def _move_matches(*, source: str, target: str) -> None:
    """Give every match of ``source`` to ``target``; a uid both have gets a new one first."""
    taken = select(Match.uid).where(Match.owner == target).scalar_subquery()
    for match_id in db.session.scalars(
        select(Match.id).where(Match.owner == source, Match.uid.in_(taken))
    ).all():
        db.session.execute(update(Match).where(Match.id == match_id).values(uid=uuid.uuid4().hex))
    db.session.execute(update(Match).where(Match.owner == source).values(owner=target))


@writes
def rotate_key(*, owner: str) -> str:
    """A new key for this browser's matches: every other device holding the old one loses them."""
    fresh = new_key()
    _move_matches(source=owner, target=fresh)
    db.session.execute(delete(DeviceLink).where(DeviceLink.owner == owner))
    db.session.commit()
    return fresh


@dataclass(frozen=True)
class Erased:
    matches: int
    deals: int


@writes
def erase_everything(*, owner: str) -> Erased:
    """Delete every match, deal, share link and device link of this browser's key."""
    owned = select(Match.id).where(Match.owner == owner).scalar_subquery()
    deals = db.session.execute(delete(Deal).where(Deal.match_id.in_(owned)))
    matches = db.session.execute(delete(Match).where(Match.owner == owner))
    db.session.execute(delete(DeviceLink).where(DeviceLink.owner == owner))
    db.session.commit()
    return Erased(matches=matches.rowcount, deals=deals.rowcount)  # type: ignore[attr-defined]
