"""The service layer: every way in (HTML forms, JSON API) records and reads matches here.

Functions take the browser's owner key and plain values, check them with
:mod:`counter.scoring`, persist through SQLAlchemy and hand back read-only
views. A match that belongs to another browser is reported exactly like one
that does not exist.
"""

from __future__ import annotations

import functools
import math
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal, ParamSpec, TypeVar

from sqlalchemy import (
    ColumnElement,
    ScalarSelect,
    Select,
    String,
    and_,
    bindparam,
    case,
    func,
    or_,
    select,
)
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import aliased, selectinload

from counter import scoring
from counter.models import REQUEST_ID_MAX_LENGTH, WRITE, Deal, Match, db, utcnow
from counter.scoring import (
    DEFAULT_NAMES,
    DEFAULT_TARGET,
    N_,
    Outcome,
    RuleConflict,
    RuleError,
    Seat,
)

PAGE_SIZE = 20


class MatchNotFound(RuleError):
    """No match with that id belongs to this browser."""

    @classmethod
    def with_id(cls, match_id: int) -> MatchNotFound:
        """The same answer for a match that does not exist and one of another browser."""
        return cls(N_("There is no match %(id)s in this browser."), id=match_id)


class DealNotFound(MatchNotFound):
    """The match has no deal with that number."""

    @classmethod
    def with_number(cls, match_id: int | None, number: object) -> DealNotFound:
        return cls(
            N_("Match %(id)s has no deal %(number)s."), id=match_id, number=scoring.shown(number)
        )


class NothingToUndo(RuleConflict):
    """Undo was asked of a match without deals."""


class RequestReused(RuleConflict):
    """A request id came back with a different deal than the one it recorded."""


@dataclass(frozen=True)
class PlayerView:
    seat: Seat
    name: str
    score: int
    games: int


@dataclass(frozen=True)
class DealView:
    number: int
    player: Seat | None  # None for a tied deal
    outcome: Outcome
    points: int
    scores: tuple[int, int]
    created_at: datetime
    corrected: bool = False
    dealer: Seat = 1


@dataclass(frozen=True)
class MatchView:
    """A match as pages and the API show it; ``id`` is None before anything is stored."""

    id: int | None
    target: int
    players: tuple[PlayerView, PlayerView]
    winner: Seat | None
    deal_count: int
    created_at: datetime | None
    finished_at: datetime | None
    deals: tuple[DealView, ...] | None = None
    rules: scoring.HouseRules = scoring.DEFAULT_RULES
    first_dealer: Seat = 1
    dealer: Seat = 1  # who deals the next deal; the other player leads

    @property
    def finished(self) -> bool:
        return self.winner is not None

    @property
    def winner_name(self) -> str | None:
        return None if self.winner is None else self.players[self.winner - 1].name


@dataclass(frozen=True)
class MatchPage:
    matches: list[MatchView]
    page: int
    pages: int
    total: int


@dataclass(frozen=True)
class _Summary:
    """One row of a history page: a match and the totals of its deals."""

    id: int
    names: tuple[str, str]
    target: int
    created_at: datetime
    scores: tuple[int, int]
    deal_count: int
    last_deal_at: datetime | None
    won_by: Seat | None
    rules: scoring.HouseRules
    first_dealer: Seat

    @property
    def standing(self) -> scoring.Standing:
        return scoring.Standing(self.scores, self.target, self.names)


P = ParamSpec("P")
R = TypeVar("R")


def writes(service: Callable[P, R]) -> Callable[P, R]:
    """Run a service in a write transaction; a refusal rolls back, so it changes nothing."""

    @functools.wraps(service)
    def run(*args: P.args, **kwargs: P.kwargs) -> R:
        _begin_write()
        try:
            return service(*args, **kwargs)
        except BaseException:
            db.session.rollback()
            raise

    return run


def _begin_write() -> None:
    """Start a fresh transaction that may write; on SQLite it waits for the write lock now."""
    db.session.rollback()  # end any read transaction, whose snapshot may be stale
    db.session.connection(execution_options=WRITE)


def _series_wins(owner: str, names: tuple[str, str], up_to: int) -> dict[str, int]:
    """Matches won by each name in this browser's series of ``names``, up to match ``up_to``.

    The rule of :func:`scoring.games_in_series`, counted by the database over match
    rows alone (``Match.won_by``): no deal is read, whatever the length of the history.
    """
    values = {"owner": owner, "up_to": up_to, "first": names[0], "second": names[1]}
    return {name: count for name, count in db.session.execute(_series_query(), values)}


def _same_series(match: Any, first: Any, second: Any) -> ColumnElement[bool]:
    """``match`` is between the names ``first`` and ``second``, in either seat: one series."""
    return or_(
        and_(match.player1 == first, match.player2 == second),
        and_(match.player1 == second, match.player2 == first),
    )


@functools.cache
def _series_query() -> Select[str, int]:
    winner = case((Match.won_by == 1, Match.player1), else_=Match.player2)
    first, second = bindparam("first", type_=String), bindparam("second", type_=String)
    return (
        select(winner, func.count())
        .where(
            Match.owner == bindparam("owner"),
            Match.id <= bindparam("up_to"),
            Match.won_by.is_not(None),
            _same_series(Match, first, second),
        )
        .group_by(winner)
    )


def _earlier_wins(seat: Seat) -> ScalarSelect[int]:
    """For a match being loaded: its seat's player's wins in the series before it."""
    earlier = aliased(Match)
    player = Match.player1 if seat == 1 else Match.player2
    winner = case((earlier.won_by == 1, earlier.player1), else_=earlier.player2)
    return (
        select(func.count())
        .where(
            earlier.owner == Match.owner,
            earlier.id < Match.id,
            earlier.won_by.is_not(None),
            winner == player,
            _same_series(earlier, Match.player1, Match.player2),
        )
        .correlate(Match)
        .scalar_subquery()
    )


def _games(wins: dict[str, int], names: tuple[str, str]) -> tuple[int, int]:
    return wins.get(names[0], 0), wins.get(names[1], 0)


def _page_summaries(owner: str, offset: int, limit: int) -> list[_Summary]:
    """A page of this browser's matches, newest first, each with its deals totalled."""
    page = (
        select(Match.id)
        .where(Match.owner == owner)
        .order_by(Match.id.desc())
        .offset(offset)
        .limit(limit)
        .subquery()
    )
    seat_points = [
        func.coalesce(func.sum(case((Deal.player == seat, Deal.points), else_=0)), 0)
        for seat in scoring.SEATS
    ]
    rows = db.session.execute(
        select(
            Match.id,
            Match.player1,
            Match.player2,
            Match.target,
            Match.created_at,
            *seat_points,
            func.count(Deal.id),
            func.max(Deal.created_at),
            Match.won_by,
            Match.failed_close,
            Match.wrong_claim,
            Match.next_dealer,
            Match.ties,
            Match.first_dealer,
        )
        .join(page, page.c.id == Match.id)
        .outerjoin(Deal, Deal.match_id == Match.id)
        .group_by(Match.id)
        .order_by(Match.id.desc())
    )
    return [
        _Summary(
            id=row[0],
            names=(row[1], row[2]),
            target=row[3],
            created_at=row[4],
            scores=(int(row[5]), int(row[6])),
            deal_count=row[7],
            last_deal_at=row[8],
            won_by=scoring.parse_seat(row[9]) if row[9] is not None else None,
            rules=scoring.HouseRules(
                scoring.FailedClose(row[10]),
                scoring.WrongClaim(row[11]),
                scoring.NextDealer(row[12]),
                scoring.Ties(row[13]),
            ),
            first_dealer=scoring.parse_seat(row[14]),
        )
        for row in rows
    ]


def _summary(row: _Summary, games: tuple[int, int]) -> MatchView:
    result = row.standing
    return MatchView(
        id=row.id,
        target=row.target,
        players=(
            PlayerView(1, row.names[0], result.scores[0], games[0]),
            PlayerView(2, row.names[1], result.scores[1], games[1]),
        ),
        winner=result.winner,
        deal_count=row.deal_count,
        created_at=row.created_at,
        finished_at=row.last_deal_at if result.finished else None,
        rules=row.rules,
        first_dealer=row.first_dealer,
    )


def _full_view(match: Match, earlier: tuple[int, int] | None = None) -> MatchView:
    """The match with its deals, running totals and the games of its series.

    ``earlier`` are the games won before this match, when loaded with it (see
    :func:`_load`); otherwise they are counted now.
    """
    if earlier is None:
        games = _games(_series_wins(match.owner, match.names, match.id), match.names)
    else:
        own = match.won_by
        games = (earlier[0] + int(own == 1), earlier[1] + int(own == 2))
    results = [_deal_result(deal) for deal in match.deals]
    running = scoring.running_totals(results, match.target, match.names)
    rules = match.rules
    first_dealer = scoring.parse_seat(match.first_dealer)
    dealers = scoring.dealers(first_dealer, results, rules.next_dealer)
    deals = tuple(
        DealView(
            number=deal.number,
            player=result.player,
            outcome=result.outcome,
            points=result.points,
            scores=after.scores,
            created_at=deal.created_at,
            corrected=deal.corrected_at is not None,
            dealer=dealer,
        )
        for deal, result, after, dealer in zip(match.deals, results, running, dealers, strict=False)
    )
    last = running[-1] if running else scoring.Standing((0, 0), match.target, match.names)
    return MatchView(
        id=match.id,
        target=match.target,
        players=(
            PlayerView(1, match.player1, last.scores[0], games[0]),
            PlayerView(2, match.player2, last.scores[1], games[1]),
        ),
        winner=last.winner,
        deal_count=len(deals),
        created_at=match.created_at,
        finished_at=deals[-1].created_at if last.finished else None,
        deals=deals,
        rules=rules,
        first_dealer=first_dealer,
        dealer=dealers[-1],
    )


def _deal_result(deal: Deal) -> scoring.DealResult:
    return scoring.DealResult(
        player=None if deal.player is None else scoring.parse_seat(deal.player),
        outcome=Outcome(deal.outcome),
        points=deal.points,
    )


def _load(owner: str, match_id: int, *, for_update: bool = False) -> tuple[Match, tuple[int, int]]:
    """The match, its deals and the games won before it, in one query.

    Locked against other writers when asked. Raises MatchNotFound for a match of
    another browser exactly as for one that does not exist.
    """
    found = _load_where("id", for_update, match_id=match_id, owner=owner)
    if found is None:
        raise MatchNotFound.with_id(match_id)
    return found


def _load_where(
    by: Literal["id", "newest"], for_update: bool = False, **values: object
) -> tuple[Match, tuple[int, int]] | None:
    row = db.session.execute(_match_query(by, for_update), values).one_or_none()
    return None if row is None else (row[0], (row[1], row[2]))


@functools.cache
def _match_query(by: Literal["id", "newest"], for_update: bool) -> Select[Match, int, int]:
    """A match with the games won before it, then its deals: built once, run with values."""
    statement = select(Match, _earlier_wins(1), _earlier_wins(2)).options(selectinload(Match.deals))
    if by == "id":
        statement = statement.where(
            Match.id == bindparam("match_id"), Match.owner == bindparam("owner")
        )
    else:
        newest = select(func.max(Match.id)).where(Match.owner == bindparam("owner"))
        statement = statement.where(Match.id == newest.scalar_subquery())
    return statement.with_for_update(of=Match) if for_update else statement


def _standing(match: Match) -> scoring.Standing:
    return scoring.standing((_deal_result(deal) for deal in match.deals), match.target, match.names)


def blank_match(names: tuple[str, str] = DEFAULT_NAMES) -> MatchView:
    """What the counter shows before this browser has recorded anything."""
    return MatchView(
        id=None,
        target=DEFAULT_TARGET,
        players=(PlayerView(1, names[0], 0, 0), PlayerView(2, names[1], 0, 0)),
        winner=None,
        deal_count=0,
        created_at=None,
        finished_at=None,
        deals=(),
    )


def get_match(owner: str | None, match_id: int) -> MatchView:
    """One of this browser's matches, with its deals."""
    if owner is None:
        raise MatchNotFound.with_id(match_id)
    return _full_view(*_load(owner, match_id))


def current_match_id(owner: str | None) -> int | None:
    """The id of this browser's most recently started match, if any."""
    if owner is None:
        return None
    return db.session.scalar(select(func.max(Match.id)).where(Match.owner == owner))


def current_match(owner: str | None) -> MatchView | None:
    """This browser's most recently started match, with its deals."""
    if owner is None:
        return None
    found = _load_where("newest", owner=owner)
    return None if found is None else _full_view(*found)


def list_matches(owner: str | None, page: int = 1, per_page: int = PAGE_SIZE) -> MatchPage:
    """A page of this browser's matches, newest first, as summaries without deals."""
    if page < 1:
        raise RuleError(N_("Pages are numbered from 1."))
    total = 0
    if owner is not None:
        total = db.session.scalar(select(func.count()).where(Match.owner == owner)) or 0
    pages = max(1, math.ceil(total / per_page))
    if page > pages:
        raise MatchNotFound(
            N_("There is no page %(page)s; the history has %(pages)s."), page=page, pages=pages
        )
    rows = _page_summaries(owner, (page - 1) * per_page, per_page) if owner is not None else []
    return MatchPage(
        matches=[
            _summary(row, games) for row, games in zip(rows, _page_games(owner, rows), strict=True)
        ],
        page=page,
        pages=pages,
        total=total,
    )


def _page_games(owner: str | None, rows: list[_Summary]) -> list[tuple[int, int]]:
    """Games of each match on a page (newest first), one query per pair of names on it.

    The wins of a series up to the newest of its matches on the page come from the
    database; walking the page towards older matches takes each match's own win off.
    """
    if owner is None:
        return []
    wins: dict[frozenset[str], dict[str, int]] = {}
    games = []
    for row in rows:
        pair = frozenset(row.names)
        if pair not in wins:
            wins[pair] = _series_wins(owner, row.names, row.id)
        series = wins[pair]
        games.append(_games(series, row.names))
        if row.won_by is not None:
            winner = row.names[row.won_by - 1]
            series[winner] = series.get(winner, 0) - 1
    return games


@writes
def start_match(
    owner: str,
    target: object = DEFAULT_TARGET,
    names: object = None,
    replacing: int | None = None,
    defaults: tuple[str, str] = DEFAULT_NAMES,
    rules: object = None,
    first_dealer: object = None,
) -> tuple[MatchView, bool]:
    """Store a new match; names default to the browser's last match, then to Player 1 and 2.

    House rules not given are those of the browser's last match (its last choice).
    With ``replacing`` (the match on screen), a repeated request finds that a newer
    match already replaced it and returns that one instead of starting another.
    Returns the match and whether it is new.
    """
    target = scoring.parse_target(target)
    players = None if names is None else _parse_names(names, defaults)
    dealer = 1 if first_dealer is None else scoring.parse_seat(first_dealer)
    latest_id = current_match_id(owner)
    if replacing is not None and latest_id is not None and latest_id > replacing:
        return _full_view(*_load(owner, latest_id)), False
    latest = db.session.get(Match, latest_id) if latest_id is not None else None
    chosen = scoring.parse_rules(
        {} if rules is None else rules, latest.rules if latest else scoring.DEFAULT_RULES
    )
    if players is None:
        players = latest.names if latest is not None else defaults
    match = Match(
        owner=owner, player1=players[0], player2=players[1], target=target, first_dealer=dealer
    )
    match.rules = chosen
    db.session.add(match)
    db.session.commit()
    return _full_view(match), True


def _parse_names(names: object, defaults: tuple[str, str]) -> tuple[str, str]:
    if not isinstance(names, list | tuple) or len(names) != 2:
        raise RuleError(N_("Give exactly two player names."))
    return scoring.parse_names(names[0], names[1], defaults)


def _check_request_id(request_id: object) -> str | None:
    if request_id is None:
        return None
    if not isinstance(request_id, str) or not 1 <= len(request_id) <= REQUEST_ID_MAX_LENGTH:
        raise RuleError(
            N_("request_id must be text of 1 to %(most)s characters."), most=REQUEST_ID_MAX_LENGTH
        )
    return request_id


@writes
def record_deal(
    owner: str,
    match_id: int | None,
    player: object,
    outcome: object,
    request_id: object = None,
    defaults: tuple[str, str] = DEFAULT_NAMES,
) -> tuple[MatchView, bool]:
    """Record one deal's game points for ``player``; returns the match and whether it is new.

    With no ``match_id`` the browser's first match is started with this deal.
    A ``request_id`` seen before in this match records nothing and returns the
    match as it is, so a double tap or a retried request counts once.
    """
    kind = scoring.parse_outcome(outcome)
    seat = _seat_for(kind, player)
    request = _check_request_id(request_id)
    for attempt in range(3):
        if attempt:
            _begin_write()
        match, earlier = _load_or_start(owner, match_id, defaults)
        result = scoring.score_deal(seat, kind, match.rules)
        if _replayed(match, request, result):
            view = _full_view(match, earlier)
            db.session.rollback()  # nothing to write: end the transaction and its lock
            return view, False
        after = _standing(match).after(result)  # refuses a finished match
        if after.finished:
            match.won_by = after.winner
        match.deals.append(
            Deal(
                number=len(match.deals) + 1,
                player=result.player,
                outcome=result.outcome.value,
                points=result.points,
                request_id=request,
            )
        )
        try:
            db.session.commit()
        except IntegrityError:
            # Another request took this deal number or request id first (PostgreSQL
            # without the match lock, e.g. the very first deal): look again.
            continue
        return _full_view(match, earlier), True
    raise RuleConflict(N_("The match changed while this deal was being recorded; try again."))


def _seat_for(outcome: Outcome, player: object) -> Seat | None:
    """The receiving seat; a tie has none (score_deal says so if one is sent)."""
    if outcome is Outcome.TIE and player is None:
        return None
    return scoring.parse_seat(player)


def _load_or_start(
    owner: str, match_id: int | None, defaults: tuple[str, str]
) -> tuple[Match, tuple[int, int] | None]:
    if match_id is not None:
        return _load(owner, match_id, for_update=True)
    match = Match(owner=owner, player1=defaults[0], player2=defaults[1])
    match.target = DEFAULT_TARGET
    match.first_dealer = 1
    match.rules = scoring.DEFAULT_RULES
    match.deals = []
    db.session.add(match)
    return match, None


def _replayed(match: Match, request_id: str | None, result: scoring.DealResult) -> bool:
    if request_id is None:
        return False
    for deal in match.deals:
        if deal.request_id == request_id:
            if (deal.player, deal.outcome) != (result.player, result.outcome.value):
                raise RequestReused(
                    N_(
                        "That request was already recorded as deal %(number)s, for another "
                        "player or outcome; nothing new was recorded."
                    ),
                    number=deal.number,
                )
            return True
    return False


@writes
def undo_last_deal(
    owner: str, match_id: int, number: int | None = None
) -> tuple[MatchView, DealView]:
    """Remove the latest deal; a match it had finished is open again.

    With ``number``, only that deal is taken back: a repeated undo (double tap,
    retried request) finds it gone and removes nothing more.
    Returns the match as it is now and the deal that was taken back.
    """
    match, earlier = _load(owner, match_id, for_update=True)
    if not match.deals:
        raise NothingToUndo(N_("There is no deal to undo in this match."))
    last = match.deals[-1]
    if number is not None and last.number != number:
        raise NothingToUndo(
            N_("Deal %(number)s is no longer the last one; nothing was undone."), number=number
        )
    removed = _full_view(match, earlier).deals[-1]  # type: ignore[index]
    match.deals.remove(last)  # deleted on commit
    match.won_by = None  # only the last deal can have won the match: it is open again
    db.session.commit()
    return _full_view(match, earlier), removed


@writes
def change_match(
    owner: str,
    match_id: int | None,
    target: object = None,
    names: object = None,
    defaults: tuple[str, str] = DEFAULT_NAMES,
    rules: object = None,
    first_dealer: object = None,
) -> MatchView:
    """Switch the target and/or rename the players, as long as the match would not end by it.

    With no ``match_id`` the browser's first match is started with these settings.
    """
    match, earlier = _load_or_start(owner, match_id, defaults)
    current = _standing(match)
    if names is not None:
        current = scoring.Standing(current.scores, current.target, _parse_names(names, defaults))
    if target is not None:
        current = current.with_target(scoring.parse_target(target))
    if rules is not None:
        # Deals keep the points they were given: new rules count from the next deal.
        match.rules = scoring.parse_rules(rules, match.rules)
    if first_dealer is not None:
        dealer = scoring.parse_seat(first_dealer)
        if match.deals and dealer != match.first_dealer:
            raise RuleConflict(N_("Who dealt first can only be changed before the first deal."))
        match.first_dealer = dealer
    match.player1, match.player2 = current.names
    match.target = current.target
    match.won_by = current.winner  # a raised target reopens the match
    db.session.commit()
    # New names put the match in another series: count its games afresh.
    return _full_view(match, None if names is not None else earlier)


def _numbered(match: Match, number: object) -> Deal:
    if isinstance(number, int) and not isinstance(number, bool):
        for deal in match.deals:
            if deal.number == number:
                return deal
    raise DealNotFound.with_number(match.id, number)


@writes
def correct_deal(
    owner: str, match_id: int, number: int, player: object = None, outcome: object = None
) -> tuple[MatchView, DealView]:
    """Change who received a past deal's points and why (either may stay as it was).

    Totals and winner follow. Refused when the match would then be won before its
    last deal. The deal gets the points its new outcome is worth. Returns the match
    and the corrected deal.
    """
    match, earlier = _load(owner, match_id, for_update=True)
    deal = _numbered(match, number)
    kind = scoring.parse_outcome(deal.outcome if outcome is None else outcome)
    if player is None and kind is not Outcome.TIE:
        player = deal.player
    result = scoring.score_deal(_seat_for(kind, player), kind, match.rules)
    results = [result if each is deal else _deal_result(each) for each in match.deals]
    after = scoring.replay(results, match.target, match.names)
    if (deal.player, deal.outcome, deal.points) != (result.player, result.outcome, result.points):
        deal.player, deal.outcome, deal.points = result.player, result.outcome.value, result.points
        deal.corrected_at = utcnow()
    match.won_by = after.winner
    db.session.commit()
    view = _full_view(match, earlier)
    return view, view.deals[number - 1]  # type: ignore[index]


@writes
def delete_deal(owner: str, match_id: int, number: int) -> tuple[MatchView, DealView]:
    """Remove a past deal; the later ones move up a number, totals and winner follow.

    Refused when the match would then be won before its last deal. Returns the
    match and the deal that was removed.
    """
    match, earlier = _load(owner, match_id, for_update=True)
    deal = _numbered(match, number)
    removed = _full_view(match, earlier).deals[number - 1]  # type: ignore[index]
    rest = [each for each in match.deals if each is not deal]
    after = scoring.replay([_deal_result(each) for each in rest], match.target, match.names)
    match.deals.remove(deal)
    db.session.flush()  # the number is free before the later deals move into it
    for later in rest[number - 1 :]:
        later.number -= 1
        db.session.flush()  # one at a time, in order: numbers stay unique throughout
    match.won_by = after.winner
    db.session.commit()
    return _full_view(match, earlier), removed


@writes
def share_match(owner: str, match_id: int) -> str:
    """The read-only link token of a match, made on first use."""
    match, _earlier = _load(owner, match_id, for_update=True)
    if match.share_token is None:
        match.share_token = secrets.token_urlsafe(16)
        db.session.commit()
    return match.share_token


@writes
def stop_sharing(owner: str, match_id: int) -> None:
    """Revoke the share link: it shows nothing from now on."""
    match, _earlier = _load(owner, match_id, for_update=True)
    match.share_token = None
    db.session.commit()


def share_token(owner: str | None, match_id: int) -> str | None:
    """The match's current share token, if it is shared."""
    if owner is None:
        return None
    return db.session.scalar(
        select(Match.share_token).where(Match.id == match_id, Match.owner == owner)
    )


def shared_match(token: str) -> MatchView:
    """The match a share link shows; 404 once the link is revoked."""
    row = db.session.execute(
        select(Match.owner, Match.id).where(Match.share_token == token)
    ).one_or_none()
    if row is None:
        raise MatchNotFound(N_("This match is not shared any more."))
    return _full_view(*_load(row.owner, row.id))
