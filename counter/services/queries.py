"""How matches are read: each statement built once, then run with the request's values."""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal, NamedTuple

from sqlalchemy import Select, String, and_, bindparam, func, select, type_coerce
from sqlalchemy.orm import raiseload, selectinload

from counter.game import parsing, scoring
from counter.game.refusals import N_, NotFound
from counter.game.scoring import HouseRules, Seat
from counter.services import devices, series
from counter.services.read_models import MatchRow, result_of, tally_holds
from counter.storage.lone_reads import LoneRead
from counter.storage.models import Deal, Device, Match, db


class MatchNotFound(NotFound):
    """No match with that id belongs to this browser."""

    @classmethod
    def with_id(cls, match_id: object) -> MatchNotFound:
        """The same answer for a match that does not exist and one of another browser."""
        return cls(N_("There is no match %(id)s in this browser."), id=match_id)


def load(
    owner: str | None, match_id: int, *, for_update: bool = False, deals: bool = True
) -> tuple[Match, tuple[int, int]]:
    """The match, its deals and the games won before it, in one query; locked if asked.
    Without ``deals`` the match's deals are not loaded (and may not be read: see
    :func:`ledger` and :func:`deals_from`).

    Raises MatchNotFound for a match of another browser exactly as for one that
    does not exist.
    """
    found = None
    if owner is not None:
        found = _run("id", for_update, deals, match_id=match_id, owner=owner)
    if found is None:
        raise MatchNotFound.with_id(match_id)
    return found


def row_to_write(owner: str | None, match_id: int) -> tuple[MatchRow, tuple[int, int]]:
    """The match's own row and the games won before it, locked for a write into it
    (PostgreSQL: its row, FOR UPDATE; SQLite's lock is the whole file's), as :func:`load`
    finds it, but as a row: a deal, the write every tap makes, needs no ORM object.

    Raises MatchNotFound as :func:`load` does."""
    found = None
    if owner is not None:
        values = {"match_id": match_id, "owner": owner}
        found = db.session.connection().execute(_row_query(), values).one_or_none()
    if found is None:
        raise MatchNotFound.with_id(match_id)
    own, kept = found[: len(ROW_COLUMNS)], found[len(ROW_COLUMNS) :]
    tally, (first_games, second_games, *rules) = kept[: len(TALLY)], kept[len(TALLY) :]
    row = MatchRow(
        **dict(zip(ROW_COLUMNS, own, strict=True)),
        rules=house_rules(*rules),
        tally=scoring.Tally(*tally),
    )
    return row, (first_games, second_games)


ROW_COLUMNS = (
    "id",
    "uid",
    "player1",
    "player2",
    "target",
    "created_at",
    "won_by",
    "first_dealer",
    "played_at",
    "tallied_at",
)
TALLY = tuple(column.name for column in Match.tally.prop.columns)  # as scoring.Tally orders them


def tally_columns(tally: scoring.Tally) -> dict[str, int]:
    """A match's tally as the values of its columns (for a write with no ORM object)."""
    return dict(zip(TALLY, dataclasses.astuple(tally), strict=True))


@functools.cache
def _row_query() -> Select[*tuple[Any, ...]]:
    columns = [Match.__table__.c[name] for name in ROW_COLUMNS + TALLY]
    games = (series.earlier_wins(1), series.earlier_wins(2))
    return (
        select(*columns, *games, *_stored_rules(Match))
        .where(Match.id == bindparam("match_id"), Match.owner == bindparam("owner"))
        .with_for_update(of=Match)
    )


def load_current(owner: str | None) -> tuple[Match, tuple[int, int]] | None:
    """This browser's match played last, with its deals and the games won before it."""
    return None if owner is None else _run("current", False, True, owner=owner)


def current_id(owner: str | None) -> int | None:
    """The id of the match this browser played last, if any."""
    if owner is None:
        return None
    return db.session.scalar(_current_id(), {"owner": owner})


@functools.cache
def _current_id() -> Select[int]:
    return (
        select(Match.id)
        .where(Match.owner == bindparam("owner"))
        .order_by(Match.played_at.desc(), Match.id.desc())
        .limit(1)
    )


def _run(
    by: Literal["id", "current"], for_update: bool, deals: bool, **values: object
) -> tuple[Match, tuple[int, int]] | None:
    row = db.session.execute(_match_query(by, for_update, deals), values).one_or_none()
    if row is None:
        return None
    return row[0], (row[1], row[2])


@functools.cache
def _match_query(
    by: Literal["id", "current"], for_update: bool, deals: bool
) -> Select[Match, int, int]:
    """A match with the games won before it, then its deals (if asked)."""
    statement = select(Match, series.earlier_wins(1), series.earlier_wins(2)).options(
        selectinload(Match.deals) if deals else raiseload(Match.deals)
    )
    if by == "id":
        statement = statement.where(
            Match.id == bindparam("match_id"), Match.owner == bindparam("owner")
        )
    else:
        statement = statement.where(Match.id == _current_id().scalar_subquery())
    return statement.with_for_update(of=Match) if for_update else statement


def version(
    owner: str | None, match_id: int | None, *, snapshot: bool = False
) -> tuple[Any, ...] | None:
    """All a page of this browser's match (none: its match played last) can change with:
    the match's own row, the games won before it, and its deals' count, ids and last
    correction; None if there is no such match. Every change of the match, or of the
    games before it, gives another version: one light query tells a kept page is still
    what it shows.

    A lone read (counter/storage/lone_reads.py), or with ``snapshot`` one in the
    session's snapshot, to read the match itself in after it; the values are the
    driver's either way, so the two give the same version of the same match."""
    if owner is None:
        return None
    read = _VERSION_OF_CURRENT if match_id is None else _VERSION_OF
    values = {"owner": owner} if match_id is None else {"owner": owner, "match_id": match_id}
    return read.in_session(**values) if snapshot else read.first(**values)


def device_and_version(token: str) -> tuple[tuple[Any, ...], tuple[Any, ...] | None] | None:
    """The device with this cookie token (a row of :data:`devices.COLUMNS`) and the
    :func:`version` of the match pinned on it, if it is there; None without the device.
    One lone read where the device and then the version would be two (on PostgreSQL,
    two round trips)."""
    row = _DEVICE_AND_VERSION.first(token=token)
    if row is None:
        return None
    device, version = row[: len(devices.COLUMNS)], row[len(devices.COLUMNS) :]
    return device, None if version[0] is None else version


def _version_query(by: Literal["id", "current", "device"]) -> Select[*tuple[Any, ...]]:
    own = [
        column for column in Match.__table__.columns if column.name not in ("owner", "share_token")
    ]
    deals = [
        select(aggregate).where(Deal.match_id == Match.id).correlate(Match).scalar_subquery()
        # The sum of the ids, not their largest: PostgreSQL would look for that one by
        # walking the whole table's ids backwards. A deal recorded anew has a new id.
        for aggregate in (func.count(Deal.id), func.sum(Deal.id), func.max(Deal.corrected_at))
    ]
    statement = select(*own, series.earlier_wins(1), series.earlier_wins(2), *deals)
    if by == "id":
        return statement.where(Match.id == bindparam("match_id"), Match.owner == bindparam("owner"))
    if by == "device":  # the device, then its pinned match's version (none: NULLs)
        pinned = and_(Match.id == Device.match_id, Match.owner == Device.owner)
        return (
            statement.with_only_columns(*devices.COLUMNS, *statement.selected_columns)
            .select_from(Device)
            .outerjoin(Match, pinned)
            .where(Device.token == bindparam("token"))
        )
    return statement.where(Match.id == _current_id().scalar_subquery())


_VERSION_OF = LoneRead(lambda: _version_query("id"))
_VERSION_OF_CURRENT = LoneRead(lambda: _version_query("current"))
_DEVICE_AND_VERSION = LoneRead(lambda: _version_query("device"))


class Entry(NamedTuple):
    """One deal of a match as the rules read it, with the request id it was recorded by."""

    request_id: str | None
    result: scoring.DealResult


def ledger(match_id: int) -> list[Entry]:
    """A match's deals in order (deal N is the Nth), as the rules read them: one select
    of the few columns the rules need, and no object per deal, so that a write into a
    long match costs about what one into a short match does."""
    rows = db.session.connection().execute(_ledger_query(), {"match_id": match_id})
    return [Entry(row[0], _stored_result(row[1:])) for row in rows]


def results(match_id: int) -> list[scoring.DealResult]:
    """A match's deals in order, as the rules read them (see :func:`ledger`)."""
    return [entry.result for entry in ledger(match_id)]


def worked_out_tally(match_id: int, first_dealer: int) -> scoring.Tally:
    """The match's tally worked out afresh from its deals, for one whose kept tally may not
    hold (see Match.tallied_at)."""
    return scoring.tally(parsing.seat(first_dealer), results(match_id))


def recorded_by(match_id: int, request_id: str) -> tuple[int, int | None, str] | None:
    """The number, player and outcome of the deal of this match that ``request_id``
    recorded, if it is there: one lookup in the index of the two, however long the match."""
    values = {"match_id": match_id, "request_id": request_id}
    found = db.session.connection().execute(_recorded_by_query(), values).first()
    return None if found is None else (found[0], found[1], found[2])


@functools.cache
def _recorded_by_query() -> Select[int, int | None, str]:
    return select(Deal.number, Deal.player, Deal.outcome).where(
        Deal.match_id == bindparam("match_id"), Deal.request_id == bindparam("request_id")
    )


@functools.cache
def _ledger_query() -> Select[*tuple[Any, ...]]:
    rules = _stored_rules(Deal)
    return (
        select(Deal.request_id, Deal.player, Deal.outcome, Deal.points, *rules)
        .where(Deal.match_id == bindparam("match_id"))
        .order_by(Deal.number)
    )


@functools.lru_cache(maxsize=1024)
def _stored_result(stored: tuple[Any, ...]) -> scoring.DealResult:
    """A deal's result from its stored player, outcome, points and rules: deals are of a
    few kinds, and each kind is looked up by its plain values, made once."""
    player, outcome, points, *rules = stored
    return result_of(player, outcome, points, house_rules(*rules))


def _stored_rules(model: type[Match] | type[Deal]) -> list[Any]:
    """The house rules' columns of a match or a deal, read as the strings stored: the few
    sets of them in use are made once each (:func:`house_rules`)."""
    return [type_coerce(model.__table__.c[switch.name], String) for switch in HouseRules.switches()]


@functools.lru_cache(maxsize=256)
def house_rules(*choices: str) -> HouseRules:
    """The house rules of these stored choices, one per rule in the order of the rules."""
    switches = HouseRules.switches()
    values: list[Any] = [
        switch.kind(choice) for switch, choice in zip(switches, choices, strict=True)
    ]
    return HouseRules(*values)


def deals_from(match_id: int, number: int) -> list[Deal]:
    """The match's deals numbered ``number`` and above, in order."""
    later = select(Deal).where(Deal.match_id == match_id, Deal.number >= number)
    return list(db.session.scalars(later.order_by(Deal.number)))


@dataclass(frozen=True)
class Summary:
    """One row of a history page: a match and the totals of its deals."""

    id: int
    uid: str
    names: tuple[str, str]
    target: int
    created_at: datetime
    played_at: datetime
    scores: tuple[int, int]
    deal_count: int
    last_deal_at: datetime | None
    won_by: Seat | None
    rules: HouseRules
    first_dealer: Seat


def count(owner: str) -> int:
    return db.session.connection().execute(_count_query(), {"owner": owner}).scalar_one()


@functools.cache
def _count_query() -> Select[int]:
    return select(func.count(Match.id)).where(Match.owner == bindparam("owner"))


def count_deals(owner: str) -> int:
    """The deals of all this browser's matches."""
    counted = select(func.count(Deal.id)).join(Match, Match.id == Deal.match_id)
    return db.session.scalar(counted.where(Match.owner == owner)) or 0


def page_summaries(owner: str, offset: int, limit: int) -> list[Summary]:
    """A page of this browser's matches, newest first, each with its tally: one statement
    of plain columns of the matches' own rows (and each one's last deal, for when it
    finished), so that a page costs what its rows do, however long their matches."""
    values = {"owner": owner, "offset": offset, "limit": limit}
    rows = db.session.connection().execute(_page_query(), values)
    return sorted((_summary(*row) for row in rows), key=lambda summary: summary.id, reverse=True)


def _summary(
    id: int,  # noqa: A002 - the column's name
    uid: str,
    player1: str,
    player2: str,
    target: int,
    created_at: datetime,
    played_at: datetime,
    won_by: int | None,
    first_dealer: int,
    tallied_at: datetime | None,
    first: int,
    second: int,
    deals: int,
    last_deal_at: datetime | None,
    *rules: str,
) -> Summary:
    if not tally_holds(tallied_at=tallied_at, played_at=played_at):
        tally = worked_out_tally(id, first_dealer)
        (first, second), deals = tally.scores, tally.deals
        last_deal_at = deals_from(id, deals)[0].created_at if deals else None
    return Summary(
        id=id,
        uid=uid,
        names=(player1, player2),
        target=target,
        created_at=created_at,
        played_at=played_at,
        scores=(first, second),
        deal_count=deals,
        last_deal_at=last_deal_at,
        won_by=None if won_by is None else parsing.seat(won_by),
        rules=house_rules(*rules),
        first_dealer=parsing.seat(first_dealer),
    )


@functools.cache
def _page_query() -> Select[*tuple[Any, ...]]:
    own = [
        Match.id,
        Match.uid,
        Match.player1,
        Match.player2,
        Match.target,
        Match.created_at,
        Match.played_at,
        Match.won_by,
        Match.first_dealer,
        Match.tallied_at,
    ]
    first, second, deals, _dealer = (Match.__table__.c[name] for name in TALLY)
    last = select(Deal.created_at).where(Deal.match_id == Match.id, Deal.number == deals)
    # The page's ids first, from the index of the browser's matches alone. Asked in one
    # select with their rows, PostgreSQL with its statistics walks every match of every
    # browser by id, newest first, until it has found this browser's (1.8 ms at 10,000
    # matches, against 0.2). The few rows are put in order by page_summaries.
    page = (
        select(Match.id)
        .where(Match.owner == bindparam("owner"))
        .order_by(Match.id.desc())
        .offset(bindparam("offset"))
        .limit(bindparam("limit"))
        .subquery()
    )
    return select(*own, first, second, deals, last.scalar_subquery(), *_stored_rules(Match)).join(
        page, page.c.id == Match.id
    )
