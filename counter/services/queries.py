"""How matches are read: each statement built once, then run with the request's values."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from sqlalchemy import Select, bindparam, case, func, select
from sqlalchemy.orm import selectinload

from counter import parsing, scoring
from counter.models import Deal, Match, db
from counter.refusals import N_, NotFound
from counter.scoring import HouseRules, Seat
from counter.services import series


class MatchNotFound(NotFound):
    """No match with that id belongs to this browser."""

    @classmethod
    def with_id(cls, match_id: object) -> MatchNotFound:
        """The same answer for a match that does not exist and one of another browser."""
        return cls(N_("There is no match %(id)s in this browser."), id=match_id)


def load(
    owner: str | None, match_id: int, *, for_update: bool = False
) -> tuple[Match, tuple[int, int]]:
    """The match, its deals and the games won before it, in one query; locked if asked.

    Raises MatchNotFound for a match of another browser exactly as for one that
    does not exist.
    """
    found = None
    if owner is not None:
        found = _run("id", for_update, match_id=match_id, owner=owner)
    if found is None:
        raise MatchNotFound.with_id(match_id)
    return found


def load_current(owner: str | None) -> tuple[Match, tuple[int, int]] | None:
    """This browser's match played last, with its deals and the games won before it."""
    return None if owner is None else _run("current", False, owner=owner)


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
    by: Literal["id", "current"], for_update: bool, **values: object
) -> tuple[Match, tuple[int, int]] | None:
    row = db.session.execute(_match_query(by, for_update), values).one_or_none()
    if row is None:
        return None
    return row[0], (row[1], row[2])


@functools.cache
def _match_query(by: Literal["id", "current"], for_update: bool) -> Select[Match, int, int]:
    """A match with the games won before it, then its deals."""
    statement = select(Match, series.earlier_wins(1), series.earlier_wins(2)).options(
        selectinload(Match.deals)
    )
    if by == "id":
        statement = statement.where(
            Match.id == bindparam("match_id"), Match.owner == bindparam("owner")
        )
    else:
        statement = statement.where(Match.id == _current_id().scalar_subquery())
    return statement.with_for_update(of=Match) if for_update else statement


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
