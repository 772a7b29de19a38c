"""A browser's key, which owns its matches: hand it to another device by a one-time link."""

import hashlib
import secrets
from dataclasses import dataclass
from datetime import timedelta

from sqlalchemy import and_, delete, func, select, update
from sqlalchemy.orm import aliased

from counter.game.refusals import N_, Gone
from counter.services import matches as match_store
from counter.services.devices import Device, has_maker, leave, match_ids
from counter.storage import push, repository
from counter.storage.models import Deal, DeviceLink, Evening, Match, db, utcnow
from counter.storage.models import Device as DeviceRow
from counter.storage.owner_lock import lock_owners
from counter.storage.transactions import writes

LINK_LIFETIME = timedelta(minutes=15)
TOKEN_MAX_LENGTH = 64


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "replace")).hexdigest()


@writes
def create_device_link(*, device: Device) -> str:
    """A new one-time token for this device's key; only its hash is kept."""
    token = secrets.token_urlsafe(24)
    db.session.add(DeviceLink(token_hash=_hash(token), owner=device.owner, device_id=device.id))
    db.session.commit()
    return token


@dataclass(frozen=True)
class Handover:
    matches: int
    latest: list[tuple[str, str, int, int]]  # names and scores of the newest few
    own_matches: int
    same_key: bool


def _usable_link(token: str, *, spend: bool = False) -> DeviceLink:
    found = select(DeviceLink).where(DeviceLink.token_hash == _hash(token))
    found = found.with_for_update() if spend else found
    link: DeviceLink | None = db.session.scalar(found) if len(token) <= TOKEN_MAX_LENGTH else None
    if link is None:
        raise Gone(N_("This link does not exist. Make a new one on the other device."))
    if link.used_at is not None:
        raise Gone(N_("This link was used already. Make a new one on the other device."))
    if utcnow() - link.created_at > LINK_LIFETIME:
        raise Gone(
            N_("This link has expired (they last 15 minutes). Make a new one on the other device.")
        )
    if spend:
        link.used_at = utcnow()
    return link


def own_key(device: Device) -> str | None:
    """The key of this device's own matches: its ``home`` if it came by a link."""
    return device.home if has_maker(owner=device.owner, device_id=device.id) else device.owner


def preview_device_link(*, token: str, device: Device | None) -> Handover:
    """What taking the link would bring here, without taking it (a GET writes nothing)."""
    giver = _usable_link(token).owner
    owner = None if device is None else device.owner
    own = None if device is None or owner == giver else own_key(device)
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
        matches=repository.count(giver),
        latest=list(db.session.execute(points)),
        own_matches=0 if own is None else repository.count(own),
        same_key=owner == giver,
    )


@writes
def use_device_link(*, token: str, device: Device, bring_own: bool = False) -> str:
    """Spend the link: ``device`` holds its key (returned), its own matches too if ``bring_own``."""
    link = _usable_link(token, spend=True)
    giver, owner = link.owner, device.owner
    left: list[int] = []  # the matches of the key this device no longer holds
    if owner != giver:
        left = match_ids(owner=owner)
        home, own = device.home, own_key(device)
        if own == giver:  # a device that came by a link goes back to its own key
            home = None
        elif bring_own and own is not None:
            lock_owners(own, giver)  # no import or start adds to either meanwhile
            most = match_store.MAX_MATCHES_PER_BROWSER
            if repository.count(own) + repository.count(giver) > most:
                message = N_(
                    "Together the two devices keep more than %(most)s matches. Continue "
                    "without bringing this device's own along, or delete some first."
                )
                raise match_store.TooManyMatches(message, most=most)
            move_matches(source=own, target=giver)
            db.session.execute(delete(DeviceLink).where(DeviceLink.owner == own))
            if own == home:
                home = None
        elif own == owner and home is None and repository.count(owner):
            home = owner
        row = db.session.get(DeviceRow, device.id)
        if row is None:  # forgotten by another device meanwhile: the link stays unspent
            raise Gone(N_("This device is not known here. Reload the page."))
        leave(row, owner=giver, home=home, maker=link.device_id)
        row.match_id = repository.current_id(giver)  # what its counter shows from now on
    db.session.commit()
    push.recheck(left)
    return giver


def move_matches(*, source: str, target: str) -> None:
    """Give every match of ``source`` to ``target``; of a uid both have, the one played last."""
    twin = aliased(Match)
    pairs = db.session.execute(
        select(Match.id, Match.played_at, twin.id, twin.played_at)
        .join(twin, and_(twin.uid == Match.uid, twin.owner == target))
        .where(Match.owner == source)
    ).all()
    for moving, moving_played, staying, staying_played in pairs:
        older = moving if moving_played < staying_played else staying
        db.session.execute(delete(Match).where(Match.id == older))
    db.session.execute(update(Match).where(Match.owner == source).values(owner=target))
    db.session.execute(update(Evening).where(Evening.owner == source).values(owner=target))
