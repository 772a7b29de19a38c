"""A browser's key, which owns its matches: hand it to another device, rotate it, erase it.

A device link hands this browser's key to the device that opens it: once, and
within 15 minutes. The device that takes it brings its own matches along only
when its player chooses; otherwise they wait for it under its own key, where it
goes back if the other device ever forgets it. Rotating the key leaves every
other holder of the old one with nothing of it; erasing deletes everything the
key owns.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from dataclasses import dataclass
from datetime import timedelta

from sqlalchemy import and_, delete, func, select, update
from sqlalchemy.orm import aliased

from counter.game.refusals import N_, Gone
from counter.services import matches as match_store
from counter.services import spent
from counter.services.devices import Device, let_go, match_ids, new_key
from counter.storage import erasure, push
from counter.storage.models import Deal, DeviceLink, Match, db, utcnow
from counter.storage.models import Device as DeviceRow
from counter.storage.owner_lock import lock_owners
from counter.storage.transactions import writes

LINK_LIFETIME = timedelta(minutes=15)
TOKEN_MAX_LENGTH = 64


class LinkUnusable(Gone):
    """A device link that was used already, has expired, or never existed."""


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
def use_device_link(*, token: str, device: Device, bring_own: bool = False) -> str:
    """Spend the link: ``device`` holds the key it carries from now on, which is returned.

    The device's own matches join that key only with ``bring_own``; otherwise they
    stay under its own key, kept as its ``home``. Spent with a conditional update, so
    that of several uses at once only one succeeds, on every database.
    """
    giver = _usable_owner(token)
    owner = device.owner
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
    left: list[int] = []  # the matches of the key this device no longer holds
    if owner != giver:
        left = match_ids(owner=owner)
        home = device.home
        if bring_own:
            lock_owners(owner, giver)  # no import or start adds to either meanwhile
            if _count(owner) + _count(giver) > match_store.MAX_MATCHES_PER_BROWSER:
                raise match_store.TooManyMatches(
                    N_(
                        "Together the two devices keep more than %(most)s matches. Continue "
                        "without bringing this device's own along, or delete some first."
                    ),
                    most=match_store.MAX_MATCHES_PER_BROWSER,
                )
            _move_matches(source=owner, target=giver)
            db.session.execute(delete(DeviceLink).where(DeviceLink.owner == owner))
        elif home is None and _count(owner):
            home = owner
        db.session.execute(
            update(DeviceRow)
            .where(DeviceRow.id == device.id)
            .values(owner=giver, home=home, match_id=None)
        )
    db.session.commit()
    push.recheck(left)  # this device's live pages of them end now
    return giver


def _move_matches(*, source: str, target: str) -> None:
    """Give every match of ``source`` to ``target``.

    A uid both have is one match, imported into both browsers: the copy played in
    last stays, the other goes, so that the match is never counted twice.
    """
    twin = aliased(Match)
    pairs = db.session.execute(
        select(Match.id, Match.played_at, twin.id, twin.played_at)
        .join(twin, and_(twin.uid == Match.uid, twin.owner == target))
        .where(Match.owner == source)
    ).all()
    for moving, moving_played, staying, staying_played in pairs:
        older = moving if moving_played < staying_played else staying
        db.session.execute(delete(Deal).where(Deal.match_id == older))
        db.session.execute(delete(Match).where(Match.id == older))
    db.session.execute(update(Match).where(Match.owner == source).values(owner=target))


def rotated_key(*, owner: str, nonce: str, secret: str) -> str:
    """The key that replaces ``owner`` for the form that carried ``nonce``.

    The same form sent twice (a double tap, a retry) gives the same key, so the
    second rotation finds the matches already under it and loses nothing; no one
    without the site's secret can work it out.
    """
    digest = hmac.new(secret.encode(), f"{owner}\0{nonce}".encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).decode().rstrip("=")


@writes
def rotate_key(*, owner: str, fresh: str, device_id: int) -> str:
    """Give this browser's matches the key ``fresh``: every other device loses them, and
    goes back to its own matches from before it joined.

    Device links and share links made with the old key stop working too.
    """
    lock_owners(owner)  # an import in flight for the old key ends first, or finds it gone
    db.session.execute(update(Match).where(Match.owner == owner).values(share_token=None))
    _move_matches(source=owner, target=fresh)
    db.session.execute(delete(DeviceLink).where(DeviceLink.owner == owner))
    let_go(owner=owner, keep=device_id)
    moved = update(DeviceRow).where(DeviceRow.id == device_id)
    db.session.execute(moved.values(owner=fresh))
    db.session.commit()
    push.recheck(match_ids(owner=fresh))  # the other devices' live pages end now
    return fresh


@dataclass(frozen=True)
class Erased:
    matches: int
    deals: int


@writes
def erase_everything(*, device: Device) -> Erased:
    """Delete every match, deal, share link and device link of this device's key (and of
    its own key from before it joined, if it kept one); it starts afresh with a new key.

    Other devices of the key go back to their own matches, or to none.
    """
    keys = [device.owner] if device.home is None else [device.owner, device.home]
    lock_owners(*keys)  # an import in flight for these keys ends first, or finds them gone
    watched = match_ids(owner=device.owner)
    owned = select(Match.id).where(Match.owner.in_(keys)).scalar_subquery()
    deals = db.session.execute(delete(Deal).where(Deal.match_id.in_(owned)))
    matches = db.session.execute(delete(Match).where(Match.owner.in_(keys)))
    db.session.execute(delete(DeviceLink).where(DeviceLink.owner.in_(keys)))
    let_go(owner=device.owner, keep=device.id)
    db.session.execute(
        update(DeviceRow)
        .where(DeviceRow.id == device.id)
        .values(owner=new_key(), home=None, match_id=None)
    )
    for key in keys:
        spent.forget_owner(owner=key)
    db.session.commit()
    erasure.empty_the_log()
    push.recheck(watched)  # the live pages of every device of the key end now
    return Erased(matches=matches.rowcount, deals=deals.rowcount)  # type: ignore[attr-defined]
