"""Matches: start one, read them, change their settings, continue or delete one."""

from __future__ import annotations

import math
from typing import Any

from sqlalchemy import delete, select
from sqlalchemy.exc import IntegrityError

from counter.game import parsing, scoring
from counter.game.parsing import RuleChanges, changed_rules
from counter.game.refusals import N_, Conflict
from counter.game.scoring import Preset, Seat
from counter.services import devices, queries, series, spent
from counter.services.defaults import default_names
from counter.services.devices import Holder
from counter.services.queries import MatchNotFound, Summary
from counter.services.read_models import (
    MatchPage,
    MatchView,
    PlayerView,
    deal_result,
    full_view,
    standing,
)
from counter.storage import push
from counter.storage.models import Deal, Match, db, utcnow
from counter.storage.owner_lock import lock_owners
from counter.storage.transactions import writes

PAGE_SIZE = 20
# Years of matches at a table; an export of them all still fits one import.
MAX_MATCHES_PER_BROWSER = 2000


class TooManyMatches(Conflict):
    """A browser that already keeps as many matches as the counter allows one."""


class MatchIsFinished(Conflict):
    """Continuing was asked of a match that already has a winner."""


def get_match(*, owner: str | None, match_id: int) -> MatchView:
    """One of this browser's matches, with its deals."""
    return full_view(*queries.load(owner, match_id))


def current_match(*, owner: str | None, device: Holder | None = None) -> MatchView | None:
    """The match on this device's screen; for a device that has none yet, the match
    this browser played in last. With its deals."""
    shown = devices.shown_match_id(device=device)
    if shown is not None:
        return full_view(*queries.load(owner, shown))
    found = queries.load_current(owner)
    return None if found is None else full_view(*found)


def shown_version(
    *, owner: str | None, device: Holder | None = None, snapshot: bool = False
) -> tuple[Any, ...] | None:
    """The version (:func:`queries.version`, ``snapshot`` as there) of the match
    :func:`current_match` gives, its id first; None when that is no match yet."""
    if device is not None and device.match_id is not None:
        found = queries.version(owner, device.match_id, snapshot=snapshot)
        if found is not None:
            return found
    return queries.version(owner, None, snapshot=snapshot)


def shown_on(*, token: str) -> tuple[Holder | None, tuple[Any, ...] | None]:
    """The device with this cookie token, and the version :func:`shown_version` gives
    for it: one lone read, and a second only for a device with no match of its own."""
    found = queries.device_and_version(token)
    if found is None:
        return None, None
    row, version = found
    device = devices.holder_of(row)
    return device, version if version is not None else queries.version(device.owner, None)


def owns(*, owner: str, match_id: int) -> bool:
    """Whether the match is still this key's."""
    found = select(Match.id).where(Match.id == match_id, Match.owner == owner)
    return db.session.scalar(found) is not None


def shown_id(*, owner: str | None, device: Holder | None) -> int | None:
    """The id of the match on this device's screen (or the one played in last)."""
    return devices.shown_match_id(device=device) or queries.current_id(owner)


def played(match: Match) -> None:
    """The match is played in now: its tally is worked out from its deals (loaded), as of
    now (see Match.tallied_at). Every write through the ORM ends with it; a deal and an undo,
    which write with Core statements, keep the tally themselves (services/deals.py)."""
    results = [deal_result(deal) for deal in match.deals]
    match.tally = scoring.tally(parsing.seat(match.first_dealer), results)
    match.played_at = match.tallied_at = utcnow()


def pin(device: Holder | None, match_id: int) -> None:
    """The device that played in this match shows it from now on (in the caller's transaction)."""
    if device is not None and device.match_id != match_id:
        devices.shows(device_id=device.id, match_id=match_id)


def list_matches(*, owner: str | None, page: int = 1, per_page: int = PAGE_SIZE) -> MatchPage:
    """A page of this browser's matches, newest first, as summaries without deals."""
    total = 0 if owner is None else queries.count(owner)
    pages = max(1, math.ceil(total / per_page))
    if not 1 <= page <= pages:
        raise MatchNotFound(
            N_("There is no page %(page)s; the history has %(pages)s."), page=page, pages=pages
        )
    rows = [] if owner is None else queries.page_summaries(owner, (page - 1) * per_page, per_page)
    games = (
        []
        if owner is None
        else series.games_on_page(owner, [(row.id, row.names, row.won_by) for row in rows])
    )
    return MatchPage(
        matches=[_summary(row, each) for row, each in zip(rows, games, strict=True)],
        page=page,
        pages=pages,
        total=total,
    )


def _summary(row: Summary, games: tuple[int, int]) -> MatchView:
    """A match of a history page, from its kept tally and winner."""
    return MatchView(
        id=row.id,
        uid=row.uid,
        target=row.target,
        players=(
            PlayerView(1, row.names[0], row.scores[0], games[0]),
            PlayerView(2, row.names[1], row.scores[1], games[1]),
        ),
        winner=row.won_by,
        deal_count=row.deal_count,
        created_at=row.created_at,
        finished_at=None if row.won_by is None else row.last_deal_at,
        played_at=row.played_at,
        rules=row.rules,
        first_dealer=row.first_dealer,
    )


@writes
def start_match(
    *,
    owner: str,
    uid: str | None = None,
    target: int | None = None,
    names: tuple[str, str] | None = None,
    rules: RuleChanges | None = None,
    preset: Preset | None = None,
    first_dealer: Seat | None = None,
    device: Holder | None = None,
) -> tuple[MatchView, bool]:
    """Store a new match and make it the one on ``device``'s screen; returns it and whether
    it is new.

    Names not given are those of the match played last, then the defaults; house
    rules not given are its rules (the browser's last choice), a preset gives
    rules and target together. The same ``uid`` again (a retried or repeated
    request, a phone that started the match offline) answers the match it started.
    """
    lock_owners(owner)  # the cap below is counted by one writer of this browser at a time
    asked = spent.settings_digest(
        target=target, names=names, rules=rules, preset=preset, first_dealer=first_dealer
    )
    if uid is not None:
        found = _with_uid(owner, uid)
        spent.check_start(owner=owner, uid=uid, settings=asked, exists=found is not None)
        if found is not None:
            return found, False
    previous = None if device is None else shown_id(owner=owner, device=device)
    check_room(owner)
    current = queries.current_id(owner)
    latest = None if current is None else db.session.get_one(Match, current)
    # House rules not given are those of the match played last: the browser's last choice.
    base = scoring.DEFAULT_RULES if latest is None else latest.rules
    if preset is not None:
        base = preset.rules
    chosen_rules = base if rules is None else changed_rules(base, rules)
    if names is None:
        names = default_names() if latest is None else latest.names
    if target is None:
        target = scoring.DEFAULT_TARGET if preset is None else preset.target
    dealer: Seat = 1 if first_dealer is None else first_dealer
    match = Match(
        owner=owner,
        player1=names[0],
        player2=names[1],
        target=target,
        first_dealer=dealer,
        rules=chosen_rules,
        deals=[],
    )
    played(match)
    if uid is not None:
        match.uid = uid
        spent.spend_uid(owner=owner, uid=uid, settings=asked)
    db.session.add(match)
    try:
        db.session.flush()
        if device is not None:
            devices.shows(device_id=device.id, match_id=match.id, started_from=previous)
        db.session.commit()
    except IntegrityError:
        # The same uid, sent twice at once (a retry racing its first try): it is there now.
        db.session.rollback()
        found = None if uid is None else _with_uid(owner, uid)
        if found is None:
            raise
        return found, False
    if device is not None and previous is not None:
        push.moved(match_id=previous, to=match.id, by=device.id)
    return full_view(match, series.games_before(owner, match.names, match.id)), True


def check_room(owner: str) -> None:
    """Refuse one more match for a browser that keeps as many as it may; in a transaction
    that holds the browser's lock (:func:`lock_owners`), so that the count stays true."""
    if queries.count(owner) >= MAX_MATCHES_PER_BROWSER:
        raise TooManyMatches(
            N_(
                "This browser keeps at most %(most)s matches. Export them, then delete "
                "the ones you no longer need."
            ),
            most=MAX_MATCHES_PER_BROWSER,
        )


def _with_uid(owner: str, uid: str) -> MatchView | None:
    match_id = db.session.scalar(select(Match.id).where(Match.owner == owner, Match.uid == uid))
    return None if match_id is None else get_match(owner=owner, match_id=match_id)


def load_or_start(
    owner: str, match_id: int | None, device: Holder | None = None, *, deals: bool = True
) -> tuple[Match, tuple[int, int]]:
    """The match to change, locked, with its deals if asked; with no id, this browser's
    first match, started now.

    Either way it is the match on ``device``'s screen from now on.
    """
    if match_id is not None:
        found = queries.load(owner, match_id, for_update=True, deals=deals)
        pin(device, match_id)
        return found
    lock_owners(owner)
    check_room(owner)
    names = default_names()
    match = Match(
        owner=owner,
        player1=names[0],
        player2=names[1],
        target=scoring.DEFAULT_TARGET,
        first_dealer=1,
        rules=scoring.DEFAULT_RULES,
        deals=[],
    )
    played(match)
    db.session.add(match)
    db.session.flush()
    pin(device, match.id)
    return match, (0, 0)


@writes
def change_match(
    *,
    owner: str,
    match_id: int | None,
    target: int | None = None,
    names: tuple[str, str] | None = None,
    rules: RuleChanges | None = None,
    preset: Preset | None = None,
    first_dealer: Seat | None = None,
    play_on: bool = False,
    device: Holder | None = None,
) -> MatchView:
    """Switch the target, rename the players, change the house rules or the first dealer.

    A target that a score already reaches is refused; a higher target for a
    finished match takes its win back, and is refused unless ``play_on``. New
    rules count from the next deal: recorded deals keep theirs. A preset sets the
    rules and, unless ``target`` is given, the target. With no ``match_id`` the
    browser's first match is started with these settings.
    """
    match, earlier = load_or_start(owner, match_id, device)
    current = standing(match)
    if names is not None:
        current = scoring.Standing(current.scores, current.target, names)
    if preset is not None:
        match.rules = preset.rules
        target = preset.target if target is None else target
    if target is not None:
        current = current.with_target(target, play_on=play_on)
    if rules is not None:
        match.rules = changed_rules(match.rules, rules)
    if first_dealer is not None and first_dealer != match.first_dealer:
        if match.deals:
            raise Conflict(N_("Who dealt first can only be changed before the first deal."))
        match.first_dealer = first_dealer
    renamed = current.names != match.names
    match.player1, match.player2 = current.names
    match.target = current.target
    match.won_by = current.winner  # playing on reopens the match
    played(match)
    db.session.commit()
    if renamed or match_id is None:  # new names put the match in another series
        earlier = series.games_before(owner, match.names, match.id)
    view = full_view(match, earlier)
    push.changed(view.id)
    return view


@writes
def resume_match(*, owner: str, match_id: int, device: Holder | None = None) -> MatchView:
    """Make an unfinished match the one on ``device``'s screen again, with all it had."""
    match, earlier = queries.load(owner, match_id, for_update=True)
    if match.won_by is not None:
        raise MatchIsFinished(
            N_("This match is over; start a new one, or undo its last deal to play on.")
        )
    played(match)
    pin(device, match_id)
    db.session.commit()
    return full_view(match, earlier)


@writes
def delete_match(*, owner: str, match_id: int) -> MatchView:
    """Delete one match with its deals (and so its share link); returns what was deleted."""
    match, earlier = queries.load(owner, match_id, for_update=True)
    deleted = full_view(match, earlier)
    spent.spend_uid_of_deleted(owner=owner, uid=match.uid)
    db.session.execute(delete(Deal).where(Deal.match_id == match.id))
    db.session.execute(delete(Match).where(Match.id == match.id))
    db.session.commit()
    db.session.expunge(match)
    push.deleted(match_id)
    return deleted
