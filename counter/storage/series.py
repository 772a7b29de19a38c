"""Each player's games in a series (one game's matches between two names), from match rows."""

from typing import Any

from sqlalchemy import ColumnElement, ScalarSelect, and_, case, func, or_, select
from sqlalchemy.orm import aliased

from counter.game.games import GAMES, Tally, sessions
from counter.game.scoring import GameName, Seat, Session
from counter.storage.models import Match, db


def _same_series(match: Any, game: Any, first: Any, second: Any) -> ColumnElement[bool]:
    """``match`` is of ``game`` between the two, either seat (as ``ix_match_series`` answers)."""
    pair = (first, second)
    return and_(
        match.game == game,
        match.player1.in_(pair),
        match.player2.in_(pair),
        match.player1 != match.player2,
    )


_TO_LOSER = [game.name.value for game in GAMES.values() if game.tally is Tally.LOSER]


def earlier_wins(seat: Seat) -> ScalarSelect[int]:
    """For a match being loaded: the seat's games in the series before it."""
    earlier = aliased(Match)
    player = Match.player1 if seat == 1 else Match.player2
    to_first = or_(
        and_(earlier.won_by == 1, earlier.game.not_in(_TO_LOSER)),
        and_(earlier.won_by == 2, earlier.game.in_(_TO_LOSER)),
    )
    return (
        select(func.coalesce(func.sum(earlier.marks), 0))
        .where(
            earlier.owner == Match.owner,
            earlier.id < Match.id,
            earlier.won_by.is_not(None),
            case((to_first, earlier.player1), else_=earlier.player2) == player,
            _same_series(earlier, Match.game, Match.player1, Match.player2),
        )
        .correlate(Match)
        .scalar_subquery()
    )


def session_before(
    owner: str, game: GameName, names: tuple[str, str], match_id: int
) -> tuple[int, int]:
    """Each seat's matches won in the best of three still open before match ``match_id``."""
    winner = case((Match.won_by == 1, Match.player1), else_=Match.player2)
    winners = db.session.scalars(
        select(winner)
        .where(
            Match.owner == owner,
            Match.id < match_id,
            Match.won_by.is_not(None),
            Match.session == Session.BEST_OF_THREE,
            _same_series(Match, game.value, *names),
        )
        .order_by(Match.id)
    )
    _, open_set = sessions(winners)
    return open_set[names[0]], open_set[names[1]]
