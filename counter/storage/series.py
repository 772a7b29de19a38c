"""Games: each player's tally in a series, counted by the database.

A series is this browser's matches of one game between the same two names, in either
seat, in the order started; a match shows the tally of its series up to and including
it. A won match adds its ``marks`` (1, or 2 for a win to nil where the rules say so) to
its winner's games, or in Schnapsen to its loser's Bummerl (counter.game.games). Only
match rows are read (``Match.won_by``, ``marks``, ``game``), never deals.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

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
from sqlalchemy.orm import aliased

from counter.game.games import GAMES, Tally, sessions
from counter.game.scoring import GameName, Seat, Session
from counter.storage.models import Match, db


def _same_series(match: Any, game: Any, first: Any, second: Any) -> ColumnElement[bool]:
    """``match`` is of ``game`` between the names ``first`` and ``second``, in either seat.

    Said as each seat's name being one of the two (names differ within a match), which the
    index ``ix_match_series`` can answer without reading every match of the browser."""
    pair = (first, second)
    return and_(
        match.game == game,
        match.player1.in_(pair),
        match.player2.in_(pair),
        match.player1 != match.player2,
    )


# The games whose tally counts the matches lost (Bummerl), not the matches won.
_TO_LOSER = [game.name.value for game in GAMES.values() if game.tally is Tally.LOSER]


def _won(match: Any) -> tuple[ColumnElement[bool], Any]:
    """Whether ``match`` has a winner, and the name of the player it counts for."""
    to_first = or_(
        and_(match.won_by == 1, match.game.not_in(_TO_LOSER)),
        and_(match.won_by == 2, match.game.in_(_TO_LOSER)),
    )
    return match.won_by.is_not(None), case((to_first, match.player1), else_=match.player2)


@functools.cache
def _wins_query() -> Select[str, int]:
    finished, tallied = _won(Match)
    first, second = bindparam("first", type_=String), bindparam("second", type_=String)
    return (
        select(tallied, func.sum(Match.marks))
        .where(
            Match.owner == bindparam("owner"),
            Match.id <= bindparam("up_to"),
            finished,
            _same_series(Match, bindparam("game", type_=String), first, second),
        )
        .group_by(tallied)
    )


def wins(owner: str, game: GameName, names: tuple[str, str], up_to: int) -> dict[str, int]:
    """Each name's tally in the series of ``names`` in ``game``, up to match ``up_to``."""
    values = {
        "owner": owner,
        "game": game.value,
        "up_to": up_to,
        "first": names[0],
        "second": names[1],
    }
    return {name: int(count) for name, count in db.session.execute(_wins_query(), values)}


def games(wins: dict[str, int], names: tuple[str, str]) -> tuple[int, int]:
    """Each seat's games from the wins of its series."""
    return wins.get(names[0], 0), wins.get(names[1], 0)


def games_before(
    owner: str, game: GameName, names: tuple[str, str], match_id: int
) -> tuple[int, int]:
    """Each seat's games in the series before match ``match_id``."""
    return games(wins(owner, game, names, match_id - 1), names)


def earlier_wins(seat: Seat) -> ScalarSelect[int]:
    """For a match being loaded: its seat's player's wins in the series before it."""
    earlier = aliased(Match)
    player = Match.player1 if seat == 1 else Match.player2
    finished, tallied = _won(earlier)
    return (
        select(func.coalesce(func.sum(earlier.marks), 0))
        .where(
            earlier.owner == Match.owner,
            earlier.id < Match.id,
            finished,
            tallied == player,
            _same_series(earlier, Match.game, Match.player1, Match.player2),
        )
        .correlate(Match)
        .scalar_subquery()
    )


def with_own_win(earlier: tuple[int, int], tallied: int | None, marks: int) -> tuple[int, int]:
    """The games shown with a match: those before it, and its own ``marks`` for ``tallied``."""
    return earlier[0] + marks * (tallied == 1), earlier[1] + marks * (tallied == 2)


def games_on_page(
    owner: str, rows: Sequence[tuple[int, GameName, tuple[str, str], int | None, int]]
) -> list[tuple[int, int]]:
    """Games of each match on a history page, ``rows`` being (id, game, names, the seat its
    tally goes to, its marks), newest first; one query per game and pair of names."""
    series: dict[tuple[GameName, frozenset[str]], dict[str, int]] = {}
    shown = []
    for match_id, game, names, tallied, marks in rows:
        key = (game, frozenset(names))
        if key not in series:
            series[key] = wins(owner, game, names, match_id)
        counts = series[key]
        shown.append(games(counts, names))
        if tallied is not None:
            name = names[tallied - 1]
            counts[name] = counts.get(name, 0) - marks
    return shown


def session_before(
    owner: str, game: GameName, names: tuple[str, str], match_id: int
) -> tuple[int, int]:
    """Each seat's matches won in the best of three still open before match ``match_id``,
    as the game counts them from the winners of the pair's best-of-three matches."""
    winner = case((Match.won_by == 1, Match.player1), else_=Match.player2)
    winners = db.session.scalars(
        select(winner)
        .where(
            Match.owner == owner,
            Match.id < match_id,
            Match.won_by.is_not(None),
            Match.__table__.c.session == Session.BEST_OF_THREE.value,
            _same_series(Match, game.value, *names),
        )
        .order_by(Match.id)
    )
    _, open_set = sessions(winners)
    return open_set[names[0]], open_set[names[1]]
