"""Load a game :class:`~counter.game.match.Match` from its rows and save it back."""

from collections.abc import Collection, Iterator
from dataclasses import dataclass, field, fields
from datetime import datetime
from typing import Any, Self, cast

from sqlalchemy import bindparam, func, insert, select
from sqlalchemy.orm import selectinload

from counter.game import match as game
from counter.game.games import GAMES
from counter.game.refusals import N_, NotFound
from counter.game.scoring import Outcome, Seat
from counter.storage import series
from counter.storage.models import Deal, Match, db

RENUMBERING = 1_000_000  # a free range to move deal numbers through, unique at each step


class MatchNotFound(NotFound):
    """No match with that id belongs to this browser."""

    @classmethod
    def with_id(cls, match_id: object) -> Self:
        return cls(N_("There is no match %(id)s in this browser."), id=match_id)


@dataclass
class Stored:
    """A game match, its row, and each seat's games won before it in its series."""

    row: Match
    match: game.Match
    earlier: tuple[int, int] = (0, 0)
    _rows: dict[int, Deal] = field(default_factory=dict, repr=False)


DEAL_FIELDS = tuple(each.name for each in fields(game.Deal))


def _columns(deal: game.Deal) -> dict[str, Any]:
    """A game deal as its row's attributes."""
    return {name: getattr(deal, name) for name in DEAL_FIELDS} | {"outcome": deal.outcome.value}


def _match_columns(match: game.Match) -> dict[str, Any]:
    """What a match row keeps of the game's match; ``won_by`` and ``marks`` for series.py."""
    return {
        "player1": match.names[0],
        "player2": match.names[1],
        "target": match.target,
        "first_dealer": match.first_dealer,
        "rules": match.rules,
        "won_by": match.winner,
        "marks": match.marks or None,
        "game": match.game.name,
    }


def _stored(row: Match, earlier: tuple[int, int] = (0, 0)) -> Stored:
    deals = [
        game.Deal(
            **{name: getattr(each, name) for name in DEAL_FIELDS}
            | {"outcome": Outcome(each.outcome)}
        )
        for each in row.deals
    ]
    match = game.Match(
        uid=row.uid,
        names=(row.player1, row.player2),
        created_at=row.created_at,
        target=row.target,
        first_dealer=cast(Seat, row.first_dealer),
        rules=row.rules,
        deals=deals,
        game=GAMES[row.game],
    )
    rows = {id(deal): each for deal, each in zip(deals, row.deals, strict=True)}
    return Stored(row, match, earlier, rows)


# Built once, as are the two below: building took longer than running (a third of a deal).
_EARLIER = (series.earlier_wins(1), series.earlier_wins(2))
_LOAD = select(Match, *_EARLIER).options(selectinload(Match.deals))
_ONE = _LOAD.where(Match.id == bindparam("match_id"), Match.owner == bindparam("owner"))
_LOCKED = _ONE.with_for_update(of=Match)


def load(owner: str | None, match_id: int, *, for_update: bool = False) -> Stored:
    """One of this browser's matches; another browser's is not found, as a missing one."""
    statement = _LOCKED if for_update else _ONE
    found = db.session.execute(statement, {"match_id": match_id, "owner": owner}).one_or_none()
    if found is None:
        raise MatchNotFound.with_id(match_id)
    return _stored(found[0], (found[1], found[2]))


def current_id(owner: str | None) -> int | None:
    """The match this browser played in last; none without a key (every row has an owner)."""
    latest = select(Match.id).where(Match.owner == owner)
    return db.session.scalar(latest.order_by(Match.played_at.desc(), Match.id.desc()).limit(1))


def add(owner: str, match: game.Match, *, at: datetime) -> Stored:
    row = Match(owner=owner, uid=match.uid, created_at=match.created_at, deals=[])
    stored = Stored(row, match)
    db.session.add(row)
    save(stored, at=at)
    return stored


def save(stored: Stored, *, at: datetime) -> None:
    """Write the match as the game has it now, played in at ``at``, with its series' games."""
    row, match = stored.row, stored.match
    rows = [stored._rows.get(id(deal)) for deal in match.deals]  # None: not stored yet
    kept = {id(each) for each in rows if each is not None}
    gone = [each for each in row.deals if id(each) not in kept]
    for each in gone:
        row.deals.remove(each)
    moving = [
        each for number, each in enumerate(rows, 1) if each is not None and each.number != number
    ]
    for each in moving:
        each.number += RENUMBERING
    if gone or moving:
        db.session.flush()  # the deletes and the moves out of the way before the numbers
    for number, (deal, found) in enumerate(zip(match.deals, rows, strict=True), 1):
        if found is None:
            found = stored._rows[id(deal)] = Deal(**_columns(deal))
            row.deals.append(found)
        # Only what changed is set: setting a column costs, even to the same value. A deal's
        # rules, time and request id stay as recorded (Match.correct keeps them).
        values = (number, deal.player, deal.outcome.value, deal.points, deal.corrected_at)
        if values != (found.number, found.player, found.outcome, found.points, found.corrected_at):
            found.number, found.player, found.outcome, found.points, found.corrected_at = values
    other_series = (row.game, row.player1, row.player2) != (match.game.name, *match.names)
    for name, value in _match_columns(match).items():
        if getattr(row, name) != value:
            setattr(row, name, value)
    row.played_at = at
    db.session.flush()
    if other_series:
        first, second = db.session.execute(select(*_EARLIER).where(Match.id == row.id)).one()
        stored.earlier = (first, second)


def add_many(owner: str, matches: list[game.Match]) -> None:
    """Store what :func:`add` stores for many matches, in two multi-row INSERTs."""
    ids = db.session.execute(
        insert(Match).returning(Match.id, sort_by_parameter_order=True),
        [
            {
                "uid": match.uid,
                "owner": owner,
                "created_at": match.created_at,
                "played_at": max(
                    [match.created_at, *(d.corrected_at or d.created_at for d in match.deals)]
                ),
                **_match_columns(match),
            }
            for match in matches
        ],
    ).scalars()
    deals = [
        {"match_id": match_id, "number": number, **_columns(deal)}
        for match_id, match in zip(ids, matches, strict=True)
        for number, deal in enumerate(match.deals, 1)
    ]
    if deals:
        db.session.execute(insert(Deal), deals)


def page(owner: str | None, *, offset: int, limit: int) -> list[Stored]:
    """Some of this browser's matches, newest first."""
    found = _LOAD.where(Match.owner == owner).order_by(Match.id.desc()).offset(offset).limit(limit)
    return [_stored(row, (first, second)) for row, first, second in db.session.execute(found)]


def each_of(owner: str | None, *, batch: int = 100) -> Iterator[Stored]:
    """Every match of this browser, oldest first, ``batch`` at a time in memory."""
    ids = list(db.session.scalars(select(Match.id).where(Match.owner == owner).order_by(Match.id)))
    for start in range(0, len(ids), batch):
        yield from several(ids[start : start + batch]).values()
        db.session.expunge_all()


def several(ids: Collection[int]) -> dict[int, Stored]:
    """Matches by id, oldest first, whoever's: the caller has said why it may read them."""
    found = select(Match).where(Match.id.in_(ids)).order_by(Match.id)
    found = found.options(selectinload(Match.deals))
    return {row.id: _stored(row) for row in db.session.scalars(found)} if ids else {}


def count(owner: str | None) -> int:
    return db.session.scalar(select(func.count(Match.id)).where(Match.owner == owner)) or 0


def count_deals(owner: str) -> int:
    counted = select(func.count(Deal.id)).join(Match, Match.id == Deal.match_id)
    return db.session.scalar(counted.where(Match.owner == owner)) or 0
