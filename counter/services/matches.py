"""Matches: start one, read them, change their settings, continue or delete one."""

import math
import uuid
from datetime import datetime
from typing import TypedDict, Unpack

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from counter.game import match as played
from counter.game.games import GAMES
from counter.game.names import DEFAULT_NAMES
from counter.game.parsing import RuleChanges
from counter.game.refusals import N_, Conflict
from counter.game.scoring import GameName, Preset, Seat
from counter.services import devices, spent
from counter.services.devices import Device
from counter.services.read_models import MatchPage, MatchView, view
from counter.storage import push, repository
from counter.storage.models import EveningTable, Match, db, utcnow
from counter.storage.owner_lock import lock_owners
from counter.storage.repository import MatchNotFound, Stored
from counter.storage.transactions import writes

PAGE_SIZE = 20
MAX_MATCHES_PER_BROWSER = 2000  # an export of them all still fits one import


class TooManyMatches(Conflict): ...


class Settings(TypedDict, total=False):
    """What a match starts or changes with: a setting not given stays as it is."""

    target: int | None
    names: tuple[str, str] | None
    rules: RuleChanges | None
    preset: Preset | None
    first_dealer: Seat | None
    game: GameName | None


def get_match(*, owner: str | None, match_id: int) -> MatchView:
    return view(repository.load(owner, match_id))


def current_match(*, owner: str | None, device: Device | None = None) -> MatchView | None:
    shown = shown_id(owner=owner, device=device)
    return None if shown is None else get_match(owner=owner, match_id=shown)


def count(*, owner: str | None) -> int:
    return repository.count(owner)


def owns(*, owner: str, match_id: int) -> bool:
    found = select(Match.id).where(Match.id == match_id, Match.owner == owner)
    return db.session.scalar(found) is not None


def shown_id(*, owner: str | None, device: Device | None) -> int | None:
    """The match on this device's screen, else the one this browser played in last."""
    return devices.shown_match_id(device=device) or repository.current_id(owner)


def list_matches(*, owner: str | None, page: int = 1, per_page: int = PAGE_SIZE) -> MatchPage:
    pages = max(1, math.ceil(count(owner=owner) / per_page))
    if not 1 <= page <= pages:
        message = N_("There is no page %(page)s; the history has %(pages)s.")
        raise MatchNotFound(message, page=page, pages=pages)
    found = repository.page(owner, offset=(page - 1) * per_page, limit=per_page)
    shown = [view(one, with_deals=False) for one in found]
    return MatchPage(matches=shown, page=page, pages=pages)


@writes
def start_match(
    *,
    owner: str,
    uid: str | None = None,
    device: Device | None = None,
    default_names: tuple[str, str] = DEFAULT_NAMES,
    **settings: Unpack[Settings],
) -> tuple[MatchView, bool]:
    """Start a match on ``device``'s screen, or find the one this ``uid`` started; and if new."""
    lock_owners(owner)
    asked = spent.settings_digest(settings)
    if uid is not None:
        found = _with_uid(owner, uid)
        spent.check_start(owner=owner, uid=uid, settings=asked, exists=found is not None)
        if found is not None:
            return found, False
    # The match this device showed; not the key's latest, which may be another phone's start.
    previous = devices.shown_match_id(device=device)
    try:
        stored = _start(owner, device, default_names, uid=uid, previous=previous)
        stored.match.change(**settings)
        repository.save(stored, at=stored.match.created_at)
        if uid is not None:
            spent.spend_uid(owner=owner, uid=uid, settings=asked)
        db.session.commit()
    except IntegrityError:  # the same uid, sent twice at once
        db.session.rollback()
        found = None if uid is None else _with_uid(owner, uid)
        if found is None:
            raise
        return found, False
    if device is not None and previous is not None:
        push.moved(match_id=previous, to=stored.row.id, by=device.id)
    return view(stored), True


def _start(
    owner: str,
    device: Device | None,
    default_names: tuple[str, str],
    uid: str | None = None,
    previous: int | None = None,
) -> Stored:
    """A new match with the players, game and house rules played last, else the defaults."""
    lock_owners(owner)  # the cap is counted by one writer of this browser at a time
    if repository.count(owner) >= MAX_MATCHES_PER_BROWSER:
        message = N_(
            "This browser keeps at most %(most)s matches. Export them, then delete "
            "the ones you no longer need."
        )
        raise TooManyMatches(message, most=MAX_MATCHES_PER_BROWSER)
    match = played.Match(uid=uid or uuid.uuid4().hex, names=default_names, created_at=utcnow())
    if (latest_id := repository.current_id(owner)) is not None:
        latest = db.session.get_one(Match, latest_id)
        match.game = GAMES[latest.game]
        match.names, match.rules = (latest.player1, latest.player2), latest.rules
        match.target = match.game.target
    stored = repository.add(owner, match, at=match.created_at)
    if device is not None:
        devices.shows(device_id=device.id, match_id=stored.row.id, started_from=previous)
    return stored


def for_writing(
    *,
    owner: str,
    match_id: int | None,
    device: Device | None,
    default_names: tuple[str, str] = DEFAULT_NAMES,
) -> Stored:
    """The match a change goes into, locked, on ``device``'s screen from now on; or a new one."""
    if match_id is None:
        return _start(owner, device, default_names)
    stored = repository.load(owner, match_id, for_update=True)
    if device is not None and device.match_id != match_id:
        devices.shows(device_id=device.id, match_id=match_id)
    return stored


def saved(stored: Stored, at: datetime | None = None) -> MatchView:
    repository.save(stored, at=at or utcnow())
    db.session.commit()
    push.changed(stored.row.id)
    return view(stored)


def _with_uid(owner: str, uid: str) -> MatchView | None:
    match_id = db.session.scalar(select(Match.id).where(Match.owner == owner, Match.uid == uid))
    return None if match_id is None else get_match(owner=owner, match_id=match_id)


@writes
def change_match(
    *,
    owner: str,
    match_id: int | None,
    play_on: bool = False,
    device: Device | None = None,
    default_names: tuple[str, str] = DEFAULT_NAMES,
    **settings: Unpack[Settings],
) -> MatchView:
    """Change the settings; with no ``match_id`` the browser's first match starts with them."""
    stored = for_writing(owner=owner, match_id=match_id, device=device, default_names=default_names)
    stored.match.change(play_on=play_on, **settings)
    return saved(stored)


@writes
def resume_match(*, owner: str, match_id: int, device: Device | None = None) -> MatchView:
    """Make an unfinished match the one on ``device``'s screen again."""
    stored = for_writing(owner=owner, match_id=match_id, device=device)
    if stored.match.winner is not None:
        raise Conflict(N_("This match is over; start a new one, or undo its last deal to play on."))
    repository.save(stored, at=utcnow())
    db.session.commit()
    return view(stored)


@writes
def delete_match(*, owner: str, match_id: int) -> MatchView:
    stored = repository.load(owner, match_id, for_update=True)
    if db.session.scalar(select(EveningTable.id).where(EveningTable.match_id == match_id)):
        raise Conflict(N_("This match was played at a table of an evening; it stays with it."))
    deleted = view(stored)
    spent.spend_uid(owner=owner, uid=stored.match.uid)
    db.session.delete(stored.row)
    db.session.commit()
    push.deleted(match_id)
    return deleted
