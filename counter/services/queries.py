"""How matches are read: each statement built once, then run with the request's values."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal, NamedTuple

from sqlalchemy import Select, String, bindparam, case, func, select, type_coerce
from sqlalchemy.orm import raiseload, selectinload

from counter import parsing, scoring
from counter.models import Deal, Match, db
from counter.refusals import N_, NotFound
from counter.scoring import HouseRules, Seat
from counter.services import series
from counter.services.read_models import result_of


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


def version(owner: str | None, match_id: int | None) -> tuple[Any, ...] | None:
    """All a page of this browser's match (none: its match played last) can change with:
    the match's own row, the games won before it, and its deals' count, ids and last
    correction; None if there is no such match. Every change of the match, or of the
    games before it, gives another version: one light query tells a kept page is still
    what it shows."""
    if owner is None:
        return None
    by: Literal["id", "current"] = "current" if match_id is None else "id"
    row = db.session.execute(_version_query(by), {"owner": owner, "match_id": match_id}).first()
    return None if row is None else tuple(row)


@functools.cache
def _version_query(by: Literal["id", "current"]) -> Select[*tuple[Any, ...]]:
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
    return statement.where(Match.id == _current_id().scalar_subquery())


class Entry(NamedTuple):
    """One deal of a match as the rules read it, with the request id it was recorded by."""

    request_id: str | None
    result: scoring.DealResult


def ledger(match_id: int) -> list[Entry]:
    """A match's deals in order (deal N is the Nth), as the rules read them: one select
    of the few columns the rules need, and no object per deal, so that a write into a
    long match costs about what one into a short match does."""
    rows = db.session.execute(_ledger_query(), {"match_id": match_id})
    return [
        Entry(request_id, result_of(player, outcome, points, house_rules(*rules)))
        for player, outcome, points, request_id, *rules in rows
    ]


@functools.cache
def _ledger_query() -> Select[*tuple[Any, ...]]:
    # The rules as the strings stored: the few sets of them in use are made once each.
    rules = [type_coerce(Deal.__table__.c[switch.name], String) for switch in HouseRules.switches()]
    return (
        select(Deal.player, Deal.outcome, Deal.points, Deal.request_id, *rules)
        .where(Deal.match_id == bindparam("match_id"))
        .order_by(Deal.number)
    )


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
    return db.session.scalar(select(func.count()).where(Match.owner == owner)) or 0


def count_deals(owner: str) -> int:
    """The deals of all this browser's matches."""
    counted = select(func.count(Deal.id)).join(Match, Match.id == Deal.match_id)
    return db.session.scalar(counted.where(Match.owner == owner)) or 0


def page_summaries(owner: str, offset: int, limit: int) -> list[Summary]:
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
        select(Match, *seat_points, func.count(Deal.id), func.max(Deal.created_at))
        .join(page, page.c.id == Match.id)
        .outerjoin(Deal, Deal.match_id == Match.id)
        .group_by(Match.id)
        .order_by(Match.id.desc())
    )
    return [
        Summary(
            id=match.id,
            uid=match.uid,
            names=match.names,
            target=match.target,
            created_at=match.created_at,
            played_at=match.played_at,
            scores=(int(first), int(second)),
            deal_count=deals,
            last_deal_at=last_deal_at,
            won_by=None if match.won_by is None else parsing.seat(match.won_by),
            rules=match.rules,
            first_dealer=parsing.seat(match.first_dealer),
        )
        for match, first, second, deals, last_deal_at in rows
    ]
