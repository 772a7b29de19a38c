"""Games: the matches each player has won in a series, counted by the database.

A series is this browser's matches between the same two names, in either seat, in the
order started; a match shows the wins of its series up to and including it. Only match
rows are read (``Match.won_by``), never deals.
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
    select,
)
from sqlalchemy.orm import aliased

from counter.game.scoring import Seat
from counter.storage.models import Match, db


def _same_series(match: Any, first: Any, second: Any) -> ColumnElement[bool]:
    """``match`` is between the names ``first`` and ``second``, in either seat.

    Said as each seat's name being one of the two (names differ within a match), which the
    index ``ix_match_series`` can answer without reading every match of the browser."""
    pair = (first, second)
    return and_(match.player1.in_(pair), match.player2.in_(pair), match.player1 != match.player2)


def _won(match: Any) -> tuple[ColumnElement[bool], Any]:
    """Whether ``match`` has a winner, and the winner's name."""
    return match.won_by.is_not(None), case((match.won_by == 1, match.player1), else_=match.player2)


@functools.cache
def _wins_query() -> Select[str, int]:
    finished, winner = _won(Match)
    first, second = bindparam("first", type_=String), bindparam("second", type_=String)
    return (
        select(winner, func.count())
        .where(
            Match.owner == bindparam("owner"),
            Match.id <= bindparam("up_to"),
            finished,
            _same_series(Match, first, second),
        )
        .group_by(winner)
    )


def wins(owner: str, names: tuple[str, str], up_to: int) -> dict[str, int]:
    """Matches won by each name in the series of ``names``, up to match ``up_to``."""
    values = {"owner": owner, "up_to": up_to, "first": names[0], "second": names[1]}
    return {name: count for name, count in db.session.execute(_wins_query(), values)}


def games(wins: dict[str, int], names: tuple[str, str]) -> tuple[int, int]:
    """Each seat's games from the wins of its series."""
    return wins.get(names[0], 0), wins.get(names[1], 0)


def games_before(owner: str, names: tuple[str, str], match_id: int) -> tuple[int, int]:
    """Each seat's games in the series before match ``match_id``."""
    return games(wins(owner, names, match_id - 1), names)


def earlier_wins(seat: Seat) -> ScalarSelect[int]:
    """For a match being loaded: its seat's player's wins in the series before it."""
    earlier = aliased(Match)
    player = Match.player1 if seat == 1 else Match.player2
    finished, winner = _won(earlier)
    return (
        select(func.count())
        .where(
            earlier.owner == Match.owner,
            earlier.id < Match.id,
            finished,
            winner == player,
            _same_series(earlier, Match.player1, Match.player2),
        )
        .correlate(Match)
        .scalar_subquery()
    )


def with_own_win(earlier: tuple[int, int], won_by: int | None) -> tuple[int, int]:
    """The games shown with a match: those won before it, and its own win."""
    return earlier[0] + int(won_by == 1), earlier[1] + int(won_by == 2)


def games_on_page(
    owner: str, rows: Sequence[tuple[int, tuple[str, str], int | None]]
) -> list[tuple[int, int]]:
    """Games of each match on a history page, ``rows`` being (id, names, won_by), newest first;
    one query per pair of names."""
    series: dict[frozenset[str], dict[str, int]] = {}
    shown = []
    for match_id, names, won_by in rows:
        pair = frozenset(names)
        if pair not in series:
            series[pair] = wins(owner, names, match_id)
        counts = series[pair]
        shown.append(games(counts, names))
        if won_by is not None:
            winner = names[won_by - 1]
            counts[winner] = counts.get(winner, 0) - 1
    return shown
